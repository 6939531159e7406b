import type { AdkClient } from '../adk/client.js';
import type { Clock } from '../approvals/clock.js';
import { type GrantStore, MemoryGrantStore } from '../approvals/grants.js';
import type { HomeViewers } from '../approvals/home-viewers.js';
import type { BatchPick } from '../approvals/outcomes.js';
import type { PauseSignals } from '../approvals/pause-signals.js';
import type { ApproverDirectory, Policy } from '../approvals/policy.js';
import { type PauseView, viewVersion } from '../approvals/records.js';
import { MemoryRunThreadRecords, type RunThreadRecords } from '../approvals/run-threads.js';
import {
  type ConfirmationStore,
  type DueNudge,
  type ExpiredGate,
  type RunIntent,
  StoreError,
} from '../approvals/store.js';
import type { ToolOutcome } from '../approvals/tool-outcomes.js';
import { correlationId } from '../correlation.js';
import { errorMessage } from '../error-message.js';
import type { Log } from '../log.js';
import { type Metrics, noMetrics } from '../metrics.js';
import type { SlackMessage } from '../slack/codecs/block-kit.js';
import type { HomeGate } from '../slack/render/home-view.js';
import { renderPauseGoneCard } from '../slack/render/notices.js';
import type { PersonNames } from '../slack/transport/person-names.js';
import type { SlackPort } from '../slack/transport/port.js';
import { type ApprovalTracing, noTracing } from '../tracing/approval-tracing.js';
import { withDecisionSpans } from '../tracing/decision-spans.js';
import { type AgentCommandInput, AgentRuns } from './agent-runs.js';
import { AppHomes } from './app-homes.js';
import { type BatchRef, type BatchRequest, BatchVotes } from './batch-votes.js';
import { CardRefresher } from './card-refresher.js';
import { ApprovalCards } from './cards.js';
import { closedGate } from './closed-gates.js';
import { CriticalPath } from './critical-path.js';
import { Decider, type DecisionReply, type VoteRequest, type VoterCheck } from './decider.js';
import { ExternalPauses } from './external-pauses.js';
import { type GiveGrantRequest, GrantDecisions } from './grant-decisions.js';
import { PauseRecorder } from './pause-recorder.js';
import { Reminders } from './reminders.js';
import { Resumer, type ResumerOptions, type ResumeTiming } from './resumer.js';
import { type HeldRun, RunIntents } from './run-intents.js';
import { RunRecovery } from './run-recovery.js';
import { RunStatusBoard, runThreadOf } from './run-status-board.js';
import { RunStreamer, type RunStreamerDeps } from './run-streamer.js';
import { RunThreads } from './run-thread.js';
import {
  type ThreadMessageInput,
  type ThreadMessageOutcome,
  ThreadReplies,
} from './thread-replies.js';
import { Undos } from './undos.js';
import { type VoteToVerify, VoteVerifier } from './vote-verifier.js';
import {
  WebhookDeliveries,
  type WebhookDeliveryOptions,
  type WebhookKey,
} from './webhook-deliveries.js';
import { Withdrawals, type WithdrawRequest } from './withdrawals.js';
import { afterPendingIo, KeyedWorkQueue } from './work-queue.js';

type WorkflowAdk = Pick<AdkClient, 'listApps' | 'createSession' | 'getSession' | 'runSse'>;

/** What pauses posted through the approvals API need beyond the Slack flow. */
export interface ExternalDeps {
  /** Wakes long-polls on every replica when a pause changes. */
  signals: PauseSignals;
  /** ADK servers the app may resume by name; the default (`ADK_BASE_URL`) is `default`. */
  adkTargets: ReadonlyMap<string, WorkflowAdk>;
  signingSecretOf: (keyName: string) => string | undefined;
  webhookKeyOf: (keyName: string) => WebhookKey | undefined;
  webhook?: Omit<WebhookDeliveryOptions, 'owner'>;
}

export type Tell = (message: SlackMessage) => Promise<void>;

/**
 * Longest a card, run root or Home redraw waits for the decisions and resumes under way (see
 * `CriticalPath`): about what a burst of a couple of hundred clicks takes to be decided and sent.
 */
const REDRAW_MAX_WAIT_MS = 1_000;

export interface WorkflowDeps {
  store: ConfirmationStore;
  adk: WorkflowAdk;
  slack: SlackPort;
  /** Absent: no approvals API (pauses come only from `/agent` runs). */
  external?: ExternalDeps;
  /**
   * Each run thread's one record: its root message and status, and which ADK session replies in
   * it continue. Default: this process's memory.
   */
  runThreads?: RunThreadRecords;
  /** Where people's scoped grants are kept. Default: this process's memory. */
  grants?: GrantStore;
  /** Who looked at their App Home lately (their Homes follow changes). Default: this process's memory. */
  homeViewers?: HomeViewers;
  directory: ApproverDirectory;
  /** The policy as it is now; read on every decision. */
  policy: () => Policy;
  clock: Clock;
  log: Log;
  /** Where latencies and outcomes are reported. Default: nowhere. */
  metrics?: Metrics;
  /** Where approvals' spans go (OpenTelemetry). Default: nowhere. */
  tracing?: ApprovalTracing;
  /** Deciders' names for decisions read outside Slack. Default: their user ids. */
  people?: PersonNames;
  options: ResumerOptions & {
    defaultApp: string | undefined;
    /**
     * Decisions handled at once (short tasks: a vote, its check and store step). Default 8: each
     * starts after the clicks already received are acked, yet 16 let a burst of clicks delay the
     * acks of its last clicks (see bench/app.bench.ts and docs/performance.md).
     */
    decisionConcurrency?: number;
    /** Agent runs and resumes streaming at once (long tasks, mostly waiting on a model). Default 64. */
    runConcurrency?: number;
    /**
     * The lease of a run intent, renewed every third of it while the run goes on: a run whose
     * replica died is told to its requester one lease (and a sweep) later. Default `leaseMs`.
     */
    runLeaseMs?: number;
  };
}

/**
 * The approval workflow as the Slack listeners see it. Each method is called after the ack.
 * Decisions go through a per-pause ordered queue; runs and resumes, which stream for minutes,
 * through a queue of their own so that they never hold up a click.
 */
export class ApprovalWorkflow {
  private readonly decisions: KeyedWorkQueue;
  private readonly runs: KeyedWorkQueue;
  /** Votes, and resumes until sent: redraws wait for them. */
  private readonly criticalPath = new CriticalPath(REDRAW_MAX_WAIT_MS);
  private readonly cards: ApprovalCards;
  private readonly cardRefresher: CardRefresher;
  /** Each person's App Home, refreshed when a pause that concerns them changes. */
  readonly homes: AppHomes;
  private readonly verifier: VoteVerifier;
  private readonly decider: Decider;
  private readonly batches: BatchVotes;
  private readonly reminders: Reminders;
  private readonly withdrawals: Withdrawals;
  private readonly undos: Undos;
  /** Scoped grants: given from a card, listed and revoked from the App Home and the API. */
  readonly grants: GrantDecisions;
  private readonly resumer: Resumer;
  /** Resumers of the other configured ADK targets, for API pauses in `adk` mode. */
  private readonly targetResumers = new Map<string, Resumer>();
  private readonly deliveries: WebhookDeliveries | undefined;
  private readonly signals: PauseSignals | undefined;
  /** Entry points of the approvals API; absent without it. */
  readonly external: ExternalPauses | undefined;
  private readonly agentRuns: AgentRuns;
  private readonly runIntents: RunIntents;
  private readonly runRecovery: RunRecovery;
  private readonly owner: string;
  private readonly threadReplies: ThreadReplies;
  private readonly runStatus: RunStatusBoard;
  private readonly store: ConfirmationStore;
  private readonly clock: Clock;
  private readonly slack: SlackPort;
  private readonly log: Log;
  private readonly metrics: Metrics;
  /** When the click being decided on a pause arrived (`performance.now()`), for click → resume. */
  private readonly clickedAt = new Map<string, number>();

  constructor(deps: WorkflowDeps) {
    const { store, slack, clock, options } = deps;
    this.store = store;
    this.clock = clock;
    this.slack = slack;
    this.log = deps.log;
    const tracing = deps.tracing ?? noTracing;
    const metrics = withDecisionSpans(deps.metrics ?? noMetrics, tracing);
    this.metrics = metrics;
    const log = deps.log;
    const quiet = () => this.criticalPath.quiet();
    this.decisions = new KeyedWorkQueue(log.child('decisions'), {
      concurrency: options.decisionConcurrency ?? 8,
      // The acks of a burst's clicks before its decisions (bench/app.bench.ts: ack p99).
      admit: afterPendingIo,
    });
    this.runs = new KeyedWorkQueue(log.child('runs'), {
      concurrency: options.runConcurrency ?? 64,
    });
    this.homes = new AppHomes({
      store,
      slack,
      directory: deps.directory,
      policy: deps.policy,
      check: (pauseId, callIds, voter) =>
        this.decider.check(pauseId, callIds, voter, { listing: true }),
      clock,
      log: log.child('homes'),
      ...(deps.homeViewers === undefined ? {} : { viewers: deps.homeViewers }),
      quiet,
      grantsFor: (userId) =>
        (deps.policy().admins ?? []).includes(userId)
          ? this.grants.listAll()
          : this.grants.listFor(userId),
    });
    this.cards = new ApprovalCards({
      store,
      slack,
      clock,
      log: log.child('cards'),
      onChanged: (pauseId) => this.homes.pauseChanged(pauseId),
      tracing,
    });
    this.cardRefresher = new CardRefresher({ cards: this.cards, log: log.child('cards'), quiet });
    // Whatever changes a card changes the Homes of the people it concerns.
    const refreshCard = (
      pauseId: string,
      toolOutcomes?: ReadonlyMap<string, ToolOutcome>,
      view?: PauseView,
    ) => {
      this.cardRefresher.request(pauseId, toolOutcomes, view);
      this.homes.pauseChanged(pauseId, view);
    };
    const knowToolOutcomes = (pauseId: string, toolOutcomes: ReadonlyMap<string, ToolOutcome>) =>
      this.cardRefresher.knowToolOutcomes(pauseId, toolOutcomes);
    const threads = new RunThreads({ slack, log: log.child('thread') });
    const runThreads = deps.runThreads ?? new MemoryRunThreadRecords();
    const grants = deps.grants ?? new MemoryGrantStore();
    const recordPause: RunStreamerDeps['onPause'] = async (context, gates, invocationId) => {
      const { pauseId } = await recorder.record(context, gates, invocationId);
      const { channelId, threadTs } = context.thread;
      if (threadTs !== undefined) await runThreads.notePause(channelId, threadTs, pauseId);
    };
    const runStatus = new RunStatusBoard({
      runs: runThreads,
      slack,
      log: log.child('run-status'),
      quiet,
    });
    this.runStatus = runStatus;
    const recorder = new PauseRecorder({
      store,
      cards: this.cards,
      threads,
      policy: deps.policy,
      clock,
      log: log.child('pauses'),
      metrics,
      tracing,
      runStatus,
      slack,
      decideByPolicy: (request) => this.decider.decideByPolicy(request),
      grants,
      granterMayApprove: (view, callId, granter) =>
        this.decider.granterMayApprove(view, callId, granter),
    });
    const streamer = new RunStreamer({
      adk: deps.adk,
      threads,
      onPause: recordPause,
      log: log.child('stream'),
    });
    this.decider = new Decider({
      store,
      refreshCard,
      directory: deps.directory,
      policy: deps.policy,
      clock,
      log: log.child('decide'),
      metrics,
      onPauseDecided: (pauseId) => this.scheduleResume(pauseId),
      ...(deps.people === undefined ? {} : { people: deps.people }),
      grants,
    });
    this.batches = new BatchVotes({
      store,
      decider: this.decider,
      decide: (pauseId, task, options) => this.decide(pauseId, task, options),
    });
    this.grants = new GrantDecisions({
      store,
      grants,
      decider: this.decider,
      policy: deps.policy,
      threads,
      clock,
      log: log.child('grants'),
      refreshHomes: (userIds) => this.homes.peopleChanged(userIds),
    });
    this.reminders = new Reminders({
      store,
      slack,
      directory: deps.directory,
      clock,
      log: log.child('reminders'),
      refreshCard,
    });
    this.withdrawals = new Withdrawals({
      store,
      policy: deps.policy,
      threads,
      clock,
      log: log.child('withdraw'),
      metrics,
      refreshCard,
      onPauseDecided: (pauseId) => this.scheduleResume(pauseId),
      ...(deps.people === undefined ? {} : { people: deps.people }),
    });
    this.undos = new Undos({
      store,
      policy: deps.policy,
      threads,
      clock,
      log: log.child('undo'),
      refreshCard,
    });
    this.verifier = new VoteVerifier({
      store,
      clock,
      log: log.child('verify'),
      onPauseDecided: (pauseId) => this.scheduleResume(pauseId),
      refreshCard,
    });
    this.resumer = new Resumer({
      store,
      refreshCard,
      knowToolOutcomes,
      adk: deps.adk,
      streamer,
      threads,
      clock,
      log: log.child('resume'),
      metrics,
      tracing,
      options,
      runStatus,
      recheck: (view) => this.decider.recheck(view),
    });
    const external = deps.external;
    this.signals = external?.signals;
    if (external !== undefined) {
      for (const [name, adk] of external.adkTargets) {
        const targetStreamer = new RunStreamer({
          adk,
          threads,
          onPause: recordPause,
          log: log.child(`stream:${name}`),
        });
        this.targetResumers.set(
          name,
          new Resumer({
            store,
            refreshCard,
            knowToolOutcomes,
            adk,
            streamer: targetStreamer,
            threads,
            clock,
            log: log.child(`resume:${name}`),
            metrics,
            tracing,
            options,
            runStatus,
            recheck: (view) => this.decider.recheck(view),
          }),
        );
      }
      this.deliveries = new WebhookDeliveries({
        store,
        cards: this.cards,
        clock,
        log: log.child('webhooks'),
        metrics,
        tracing,
        ...(deps.people === undefined ? {} : { people: deps.people }),
        keyOf: external.webhookKeyOf,
        options: { owner: options.owner, ...external.webhook },
        recheck: (view) => this.decider.recheck(view),
      });
      this.external = new ExternalPauses({
        store,
        signals: external.signals,
        cards: this.cards,
        threads,
        policy: deps.policy,
        clock,
        log: log.child('api-pauses'),
        adkTargets: new Set(external.adkTargets.keys()),
        signingSecretOf: external.signingSecretOf,
        ...(deps.people === undefined ? {} : { people: deps.people }),
        decideByPolicy: (request) => this.decider.decideByPolicy(request),
        grants,
        granterMayApprove: (view, callId, granter) =>
          this.decider.granterMayApprove(view, callId, granter),
        slack,
        tracing,
        owner: options.owner,
      });
    }
    this.owner = options.owner;
    this.runIntents = new RunIntents({
      store,
      clock,
      log: log.child('run-intents'),
      owner: options.owner,
      leaseMs: options.runLeaseMs ?? options.leaseMs,
    });
    this.runRecovery = new RunRecovery({
      adk: deps.adk,
      slack,
      threads,
      streamer,
      sessions: runThreads,
      log: log.child('run-recovery'),
    });
    this.agentRuns = new AgentRuns({
      adk: deps.adk,
      threads,
      sessions: runThreads,
      streamer,
      defaultApp: options.defaultApp,
      policy: deps.policy,
      clock,
      log: log.child('runs'),
      runStatus,
    });
    this.threadReplies = new ThreadReplies({
      sessions: runThreads,
      store,
      threads,
      streamer,
      log: log.child('replies'),
    });
  }

  /**
   * A person's message in a channel the app is in (Events API, after the ack). Replies in one
   * thread are taken one at a time, in order; anything outside a run's thread is ignored.
   */
  onThreadMessage(input: ThreadMessageInput): void {
    void this.runs.enqueue(
      `thread:${input.channelId}:${input.threadTs ?? input.ts}`,
      'thread reply',
      async () => {
        const outcome: ThreadMessageOutcome = await this.threadReplies.handle(input);
        this.log.debug('thread message handled', { eventId: input.eventId, outcome });
      },
    );
  }

  /**
   * `/agent …` accepted: its intent is recorded before the ack, so that a crash from here on is
   * told to the requester by another replica. Undefined when the store could not record it.
   */
  acceptRun(input: AgentCommandInput): Promise<HeldRun | undefined> {
    return this.runIntents.accept(input);
  }

  /** `/agent …`: runs in the background; `reply` answers the person privately. */
  startRun(
    input: AgentCommandInput,
    reply: (message: SlackMessage) => Promise<void>,
    held?: HeldRun,
  ): void {
    void this.runs.enqueue(`run:${input.channelId}:${input.userId}`, 'agent run', () =>
      this.agentRuns.start(input, reply, held),
    );
  }

  /**
   * Runs whose replica died, claimed by this replica's sweep: the requester is told. A run that
   * could not be told (Slack or ADK down) keeps its claim until the lease lapses, then is retried.
   */
  async onDeadRuns(intents: readonly RunIntent[]): Promise<void> {
    await Promise.all(
      intents.map((intent) =>
        this.runs.enqueue(`dead-run:${intent.id}`, 'tell of a dead run', async () => {
          await this.runRecovery.recover(intent);
          await this.store.finishRun({ runId: intent.id, owner: this.owner });
        }),
      ),
    );
  }

  /** The call id of the gate at `index` in its pause (menus name gates by position). */
  async callIdAt(pauseId: string, index: number): Promise<string | undefined> {
    const view = await this.store.getPause(pauseId);
    return view?.pause.callIds[index];
  }

  /** May this person decide these gates? Checked before a modal opens. */
  check(pauseId: string, callIds: readonly string[], voter: string): Promise<VoterCheck> {
    return this.decider.check(pauseId, callIds, voter);
  }

  /** `tell`: a later private word to the voter, when the store's answer was lost. */
  vote(request: VoteRequest, tell?: Tell): Promise<DecisionReply> {
    const clickedAt = performance.now();
    const check = { pauseId: request.pauseId, voter: request.voter, callIds: [request.callId] };
    return this.decide(request.pauseId, () => this.decider.vote(request), {
      clickedAt,
      unknown: { check, tell },
    });
  }

  voteAll(request: Omit<VoteRequest, 'callId' | 'payload'>, tell?: Tell): Promise<DecisionReply> {
    const clickedAt = performance.now();
    const check = { pauseId: request.pauseId, voter: request.voter, callIds: [] };
    return this.decide(request.pauseId, () => this.decider.voteAll(request), {
      clickedAt,
      unknown: { check, tell },
    });
  }

  /** A batch from the App Home: what became of each picked call (see `BatchVotes`). */
  voteBatch(request: BatchRequest, refs: readonly BatchRef[], tell?: Tell): Promise<BatchPick[]> {
    return this.batches.vote(request, refs, tell);
  }

  /** The calls waiting for this person that a batch may hold (the App Home's list). */
  batchCandidates(userId: string): Promise<HomeGate[]> {
    return this.homes.decidableBy(userId);
  }

  /** Approve, and give a grant of `scope` that decides later calls (the card's grant buttons). */
  grant(request: GiveGrantRequest, tell: Tell): Promise<DecisionReply> {
    const clickedAt = performance.now();
    const check = { pauseId: request.pauseId, voter: request.granter, callIds: [request.callId] };
    return this.decide(request.pauseId, () => this.grants.give(request, tell), {
      clickedAt,
      unknown: { check, tell },
    });
  }

  /** Withdraw: the requester or a policy admin calls the pending request off. */
  withdraw(request: WithdrawRequest): Promise<DecisionReply> {
    return this.decide(request.pauseId, () => this.withdrawals.withdraw(request));
  }

  /** Undo, in a decision's undo window: its approver or a policy admin takes the approval back. */
  undo(pauseId: string, user: string): Promise<DecisionReply> {
    return this.decide(pauseId, async () => {
      const reply = await this.undos.undo(pauseId, user);
      // The grants the undone approval gave go with it.
      if (reply.kind === 'done') await this.grants.revokeGivenOn(pauseId, user);
      return reply;
    });
  }

  /** The Retry button on a failed resume: the requester or any approver may press it. */
  retryResume(pauseId: string, user: string): Promise<DecisionReply> {
    return this.decide(pauseId, async () => {
      const check = await this.decider.checkRetry(pauseId, user);
      if (check.kind === 'done') this.scheduleResume(pauseId, { retry: true });
      return check;
    });
  }

  /**
   * A click found its card's pause gone from the store (Redis lost its data): the card says so and
   * loses its buttons, so that nobody else clicks it in vain.
   */
  async showPauseGone(card: { channelId: string; ts: string }): Promise<void> {
    try {
      await this.slack.updateMessage({
        channel: card.channelId,
        ts: card.ts,
        ...renderPauseGoneCard(),
      });
    } catch (error) {
      this.log.warn('could not mark a card whose pause is gone', { error: errorMessage(error) });
    }
  }

  /**
   * A pause that expired under `onExpiry: cancel` is never resumed, so nothing else tells its
   * run's root message that the wait is over: it says expired.
   */
  private showCalledOff(view: PauseView | undefined): void {
    if (view?.pause.resume.state !== 'abandoned') return;
    const thread = runThreadOf(view.pause.runThread ?? view.pause.card);
    if (thread !== undefined) this.runStatus.set(thread, { kind: 'expired' });
  }

  /** The sweeper expired these gates: show it, and resume pauses that are now decided. */
  async onExpired(expired: readonly ExpiredGate[]): Promise<void> {
    const pauses = new Map<string, boolean>();
    const views = new Map<string, PauseView>();
    const now = this.clock();
    for (const gate of expired) {
      const record = gate.view.gates.find((g) => g.confirmationCallId === gate.callId);
      if (gate.state !== 'pending') {
        this.metrics.gateClosed(closedGate(gate.view, record, gate.state, now, true));
      }
      const pauseId = gate.view.pause.id;
      pauses.set(pauseId, (pauses.get(pauseId) ?? false) || gate.pauseDecided);
      // Two gates of one pause expired in one batch: the later expiry's view holds both.
      const seen = views.get(pauseId);
      if (seen === undefined || viewVersion(gate.view) > viewVersion(seen)) {
        views.set(pauseId, gate.view);
      }
    }
    await Promise.all(
      [...pauses].map(([pauseId, decided]) =>
        this.decisions.enqueue(pauseId, 'show expiry', async () => {
          const view = views.get(pauseId);
          if (decided) this.scheduleResume(pauseId);
          this.showCalledOff(view);
          // Drawn from the expiry's own view unless a resume follows, which changes the pause
          // before its card is drawn (read then, as after a deciding vote).
          const latest = !decided || view?.pause.resume.state === 'abandoned';
          this.cardRefresher.request(pauseId, undefined, latest ? view : undefined);
          this.homes.pauseChanged(pauseId, view);
        }),
      ),
    );
  }

  /** Reminders and escalations the sweeper claimed for this replica. */
  async onNudges(nudges: readonly DueNudge[]): Promise<void> {
    await this.reminders.handle(nudges);
  }

  /** Decided pauses nobody resumed, or whose resume lease lapsed on a replica that died. */
  async onResumeDue(pauseIds: readonly string[]): Promise<void> {
    for (const pauseId of pauseIds) this.scheduleResume(pauseId);
  }

  /**
   * Pauses recorded without a card: the replica that recorded one died before posting it, and
   * nobody could see or approve it. Posted now.
   */
  async onCardless(pauseIds: readonly string[]): Promise<void> {
    await Promise.all(
      pauseIds.map((pauseId) =>
        this.decisions.enqueue(pauseId, 'post a missing card', async () => {
          const view = await this.store.getPause(pauseId);
          if (view === undefined || view.pause.card.ts !== undefined) return;
          // Decided already (by the policy, its line lost with Slack): nothing to ask anyone.
          if (!view.gates.some((gate) => gate.state === 'pending')) return;
          this.log.warn('posting the card of a pause recorded without one', { pauseId });
          await this.cards.postMissing(view, { claimedBy: this.owner });
        }),
      ),
    );
  }

  /** Stops taking work and waits for what was taken, up to `timeoutMs`. */
  async drain(timeoutMs: number): Promise<boolean> {
    const [decisions, runs] = await Promise.all([
      this.decisions.drain(timeoutMs),
      this.runs.drain(timeoutMs),
    ]);
    // Last: decisions and resumes finishing above still ask for card updates.
    const [cards, homes] = await Promise.all([
      this.cardRefresher.drain(timeoutMs),
      this.homes.drain(timeoutMs),
    ]);
    await this.runStatus.settle();
    return decisions && runs && cards && homes;
  }

  private scheduleResume(pauseId: string, options: { retry?: boolean } = {}): void {
    if (this.signals !== undefined) {
      // Long-polls on any replica wake on this: the pause is decided.
      this.signals.notify(pauseId).catch((error: unknown) => {
        this.log.warn('could not signal a decided pause', { pauseId, error: errorMessage(error) });
      });
    }
    const clickedAt = this.clickedAt.get(pauseId);
    // On the critical path from here until the decisions are sent, or not sent after all (the
    // resume ended without sending, or was refused at shutdown).
    const sending = this.criticalPath.begin();
    const resumed = this.runs
      .enqueue(pauseId, 'resume', () =>
        this.resumeByMode(pauseId, {
          ...options,
          sending,
          ...(clickedAt === undefined ? {} : { clickedAt }),
        }),
      )
      .finally(sending);
    this.cardRefresher.holdUntil(pauseId, resumed);
  }

  /**
   * Pauses of `/agent` runs resume on the default ADK server; API pauses by their mode: on the
   * named target, by webhook, or not at all (poll: the agent resumes itself; the pause is
   * marked resumed so that the sweeper stops handing it over).
   */
  private async resumeByMode(
    pauseId: string,
    options: { retry?: boolean } & ResumeTiming,
  ): Promise<void> {
    if (this.external === undefined) return this.resumer.resume(pauseId, options);
    const view = await this.store.getPause(pauseId);
    const resume = view?.pause.external?.resume;
    if (resume === undefined) return this.resumer.resume(pauseId, options);
    switch (resume.mode) {
      case 'adk': {
        const resumer = this.targetResumers.get(resume.target);
        if (resumer !== undefined) return resumer.resume(pauseId, options);
        this.log.error('no such ADK target; the pause cannot be resumed', { pauseId });
        return;
      }
      case 'webhook':
        // Off the critical path as it starts: a slow receiver holds no redraw up.
        options.sending?.();
        return this.deliveries?.deliver(pauseId);
      case 'poll':
        return this.external.finishPolled(pauseId);
    }
  }

  private async decide(
    pauseId: string,
    task: () => Promise<DecisionReply>,
    {
      clickedAt,
      unknown,
    }: { clickedAt?: number; unknown?: { check: VoteToVerify; tell: Tell | undefined } } = {},
  ): Promise<DecisionReply> {
    try {
      return await this.criticalPath.track(() =>
        this.decisions.run(pauseId, async () => {
          // Decisions on one pause run one at a time, so this is the click being decided.
          if (clickedAt !== undefined) this.clickedAt.set(pauseId, clickedAt);
          try {
            return await task();
          } finally {
            this.clickedAt.delete(pauseId);
          }
        }),
      );
    } catch (error) {
      this.log.error('decision failed', { pauseId, error: errorMessage(error) });
      // Sent but never answered: the vote may be recorded. Say so, then find out and say that.
      if (error instanceof StoreError && error.reason === 'outcome_unknown' && unknown?.tell) {
        this.verifier.verify(unknown.check, unknown.tell);
        return { kind: 'refused', refusal: { kind: 'outcome_unknown' } };
      }
      return { kind: 'refused', refusal: { kind: 'decision_failed', reference: correlationId() } };
    }
  }
}
