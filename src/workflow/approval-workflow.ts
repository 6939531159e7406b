import type { AdkClient } from '../adk/client.js';
import type { Clock } from '../approvals/clock.js';
import type { ApproverDirectory, Policy } from '../approvals/policy.js';
import { type ConfirmationStore, type ExpiredGate, StoreError } from '../approvals/store.js';
import { errorMessage } from '../error-message.js';
import type { Log } from '../log.js';
import type { SlackMessage } from '../slack/block-kit.js';
import { renderPauseGoneCard } from '../slack/notices.js';
import type { SlackPort } from '../slack/port.js';
import { type AgentCommandInput, AgentRuns } from './agent-runs.js';
import { CardRefresher } from './card-refresher.js';
import { ApprovalCards } from './cards.js';
import { Decider, type DecisionReply, type VoteRequest, type VoterCheck } from './decider.js';
import { PauseRecorder } from './pause-recorder.js';
import { Resumer, type ResumerOptions } from './resumer.js';
import { RunStreamer } from './run-streamer.js';
import { RunThreads } from './run-thread.js';
import { type VoteToVerify, VoteVerifier } from './vote-verifier.js';
import { KeyedWorkQueue } from './work-queue.js';

type Tell = (message: SlackMessage) => Promise<void>;

export interface WorkflowDeps {
  store: ConfirmationStore;
  adk: Pick<AdkClient, 'listApps' | 'createSession' | 'getSession' | 'runSse'>;
  slack: SlackPort;
  directory: ApproverDirectory;
  /** The policy as it is now; read on every decision. */
  policy: () => Policy;
  clock: Clock;
  log: Log;
  options: ResumerOptions & {
    defaultApp: string | undefined;
    /**
     * Decisions handled at once (short tasks: vote, card update). Default 4: more lets a burst of
     * clicks starve the acks of later clicks of the event loop (see bench/app.bench.ts).
     */
    decisionConcurrency?: number;
    /** Agent runs and resumes streaming at once (long tasks, mostly waiting on a model). Default 64. */
    runConcurrency?: number;
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
  private readonly cards: ApprovalCards;
  private readonly cardRefresher: CardRefresher;
  private readonly verifier: VoteVerifier;
  private readonly decider: Decider;
  private readonly resumer: Resumer;
  private readonly agentRuns: AgentRuns;
  private readonly store: ConfirmationStore;
  private readonly slack: SlackPort;
  private readonly log: Log;

  constructor(deps: WorkflowDeps) {
    const { store, slack, clock, options } = deps;
    this.store = store;
    this.slack = slack;
    this.log = deps.log;
    const log = deps.log;
    this.decisions = new KeyedWorkQueue(log.child('decisions'), {
      concurrency: options.decisionConcurrency ?? 4,
    });
    this.runs = new KeyedWorkQueue(log.child('runs'), {
      concurrency: options.runConcurrency ?? 64,
    });
    this.cards = new ApprovalCards({ store, slack, clock, log: log.child('cards') });
    this.cardRefresher = new CardRefresher({ cards: this.cards, log: log.child('cards') });
    const refreshCard = (pauseId: string) => this.cardRefresher.request(pauseId);
    const threads = new RunThreads({ slack, log: log.child('thread') });
    const recorder = new PauseRecorder({
      store,
      cards: this.cards,
      threads,
      policy: deps.policy,
      clock,
      log: log.child('pauses'),
    });
    const streamer = new RunStreamer({
      adk: deps.adk,
      threads,
      onPause: (context, gates, invocationId) => recorder.record(context, gates, invocationId),
      log: log.child('stream'),
    });
    this.decider = new Decider({
      store,
      refreshCard,
      directory: deps.directory,
      policy: deps.policy,
      clock,
      log: log.child('decide'),
      onPauseDecided: (pauseId) => this.scheduleResume(pauseId),
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
      adk: deps.adk,
      streamer,
      threads,
      clock,
      log: log.child('resume'),
      options,
    });
    this.agentRuns = new AgentRuns({
      adk: deps.adk,
      threads,
      streamer,
      defaultApp: options.defaultApp,
      clock,
      log: log.child('runs'),
    });
  }

  /** `/agent …`: runs in the background; `reply` answers the person privately. */
  startRun(input: AgentCommandInput, reply: (message: SlackMessage) => Promise<void>): void {
    void this.runs.enqueue(`run:${input.channelId}:${input.userId}`, 'agent run', () =>
      this.agentRuns.start(input, reply),
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
    const check = { pauseId: request.pauseId, voter: request.voter, callIds: [request.callId] };
    return this.decide(request.pauseId, () => this.decider.vote(request), { check, tell });
  }

  voteAll(request: Omit<VoteRequest, 'callId' | 'payload'>, tell?: Tell): Promise<DecisionReply> {
    const check = { pauseId: request.pauseId, voter: request.voter, callIds: [] };
    return this.decide(request.pauseId, () => this.decider.voteAll(request), { check, tell });
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

  /** The sweeper expired these gates: show it, and resume pauses that are now decided. */
  async onExpired(expired: readonly ExpiredGate[]): Promise<void> {
    const pauses = new Map<string, boolean>();
    for (const gate of expired) {
      const pauseId = gate.view.pause.id;
      pauses.set(pauseId, (pauses.get(pauseId) ?? false) || gate.pauseDecided);
    }
    await Promise.all(
      [...pauses].map(([pauseId, decided]) =>
        this.decisions.enqueue(pauseId, 'show expiry', async () => {
          if (decided) this.scheduleResume(pauseId);
          this.cardRefresher.request(pauseId);
        }),
      ),
    );
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
          this.log.warn('posting the card of a pause recorded without one', { pauseId });
          await this.cards.post(view);
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
    const cards = await this.cardRefresher.drain(timeoutMs);
    return decisions && runs && cards;
  }

  private scheduleResume(pauseId: string, options: { retry?: boolean } = {}): void {
    void this.runs.enqueue(pauseId, 'resume', () => this.resumer.resume(pauseId, options));
  }

  private async decide(
    pauseId: string,
    task: () => Promise<DecisionReply>,
    unknown?: { check: VoteToVerify; tell: Tell | undefined },
  ): Promise<DecisionReply> {
    try {
      return await this.decisions.run(pauseId, task);
    } catch (error) {
      this.log.error('decision failed', { pauseId, error: errorMessage(error) });
      // Sent but never answered: the vote may be recorded. Say so, then find out and say that.
      if (error instanceof StoreError && error.reason === 'outcome_unknown' && unknown?.tell) {
        this.verifier.verify(unknown.check, unknown.tell);
        return { kind: 'refused', refusal: { kind: 'outcome_unknown' } };
      }
      return { kind: 'refused', refusal: { kind: 'decision_failed' } };
    }
  }
}
