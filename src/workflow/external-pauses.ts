import { type Gate, gateKind } from '../adk/gate.js';
import type { Clock } from '../approvals/clock.js';
import { apiActor } from '../approvals/deciders.js';
import { heldUntil } from '../approvals/decision-hold.js';
import type { GrantStore } from '../approvals/grants.js';
import type { PauseSignals } from '../approvals/pause-signals.js';
import { evaluatePolicy, type Policy, resolveGatePolicy } from '../approvals/policy.js';
import {
  type ExternalOrigin,
  type GateOutcome,
  type PauseNotes,
  type PauseView,
  pauseIdFor,
} from '../approvals/records.js';
import type { ApprovalStore } from '../approvals/store.js';
import type { NewGate } from '../approvals/store-roles/pauses.js';
import { errorMessage } from '../error-message.js';
import type { Log } from '../log.js';
import { answeredByAgentReason } from '../slack/render/agent-answers.js';
import type { PersonNames } from '../slack/transport/person-names.js';
import type { SlackPort } from '../slack/transport/port.js';
import type { ApprovalTracing } from '../tracing/approval-tracing.js';
import type { TraceParent } from '../tracing/traceparent.js';
import { ApiPauseCards } from './api-pause-cards.js';
import type { ApprovalChecks } from './approval-checks.js';
import { CardPosting } from './card-posting.js';
import type { ApprovalCards } from './cards.js';
import type { PolicyVotes } from './decider.js';
import { refuseIfReported } from './hand-overs.js';
import { type DecisionBody, deciderNames, decisionBody } from './pause-decision.js';
import type { RunThreads } from './run-thread.js';
import type { StreamNotices } from './stream-requests.js';

/** How long an `Idempotency-Key` stays bound to the request it first came with. */
const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

/** A pause posted through the approvals API, parsed and authorized by the API layer. */
export interface ExternalPauseInput {
  keyName: string;
  app: string;
  userId: string;
  sessionId: string;
  /** Every gate the posted events raise, in order (confirmations, then input requests). */
  gates: Gate[];
  /** What the events ask that nobody can answer in Slack: posted as notices. */
  notices?: StreamNotices;
  external: ExternalOrigin;
  channel?: string;
  /** The thread the card goes into, which also names its channel (the approvals API's `thread`). */
  thread?: { channelId: string; threadTs: string };
  requesterSlackUserId?: string;
  /** `Idempotency-Key` and a hash of the body it came with. */
  idempotency?: { key: string; fingerprint: string };
  /** The agent's W3C `traceparent`: the pause's spans join its trace. */
  traceparent?: TraceParent;
}

export type CreateExternalPauseResult =
  | { kind: 'created' | 'existed'; view: PauseView }
  /**
   * Recorded, and its card is on its way from another request still posting it (or whose claim
   * has not lapsed yet): the same request again answers it.
   */
  | { kind: 'card_pending'; view: PauseView }
  /** Nothing to answer, only notices (credentials, unraised confirmations), posted in `channel`. */
  | { kind: 'unsupported'; channel: string }
  | { kind: 'unknown_target'; target: string }
  | { kind: 'no_channel' }
  /** The key was first used, within its life, with another body: for `pauseId`. */
  | { kind: 'idempotency_conflict'; pauseId: string };

export type ExternalPauseRead =
  /** `names`: the deciders' display names by user id, for `decidedBy`. */
  | { kind: 'found'; view: PauseView; notes: PauseNotes; names: Map<string, string> }
  | { kind: 'not_found' };

export type DecisionRead =
  | { kind: 'decided'; body: DecisionBody }
  | { kind: 'pending' }
  /** Decided, but held back until `holdUntil` (ms): an undo window runs. Not the decision. */
  | { kind: 'held'; holdUntil: number }
  | { kind: 'not_found' };

export type CancelExternalResult =
  | { kind: 'cancelled'; view: PauseView }
  | { kind: 'nothing_pending'; view: PauseView }
  | { kind: 'not_found' };

export type OutcomeReport = 'recorded' | 'not_found' | 'unknown_gate';

export type RunClaim =
  | 'claimed'
  | 'taken'
  | 'not_approved'
  | 'not_found'
  | 'unknown_gate'
  /** Approved, but held back until `holdUntil` (ms): the approval may still be undone. */
  | { held: number };

export interface ExternalPausesDeps {
  store: Pick<ApprovalStore, 'pauses' | 'reports' | 'notes' | 'idempotency' | 'cardClaims'>;
  signals: PauseSignals;
  cards: ApprovalCards;
  threads: RunThreads;
  policy: () => Policy;
  clock: Clock;
  log: Log;
  /** Names of the ADK targets the app may resume (`default` is ADK_BASE_URL). */
  adkTargets: ReadonlySet<string>;
  /** The signing secret of an API key, for attestations. */
  signingSecretOf: (keyName: string) => string | undefined;
  /** The deciders' names in decisions; absent: their user ids stand in. */
  people?: PersonNames;
  /** Applies a policy's `allow` or `deny` to a gate (`Decider.decideByPolicy`). */
  votes?: PolicyVotes;
  /** People's scoped grants, which may decide a call a person would be asked about. */
  grants?: GrantStore;
  /** May a grant's granter still approve this call? */
  checks?: Pick<ApprovalChecks, 'granterMayApprove'>;
  /** Posts the channel line of a pause the policy decided alone (its ts stands in for a card). */
  slack?: SlackPort;
  tracing: ApprovalTracing;
  /** This replica, as card claims name it. */
  owner: string;
}

/**
 * The workflow's entry points for pauses of agents that run elsewhere: record one pause per
 * post (one card), answer reads and long-polls, withdraw a pause, note what happened after the
 * decision. Every read is scoped to the key that posted the pause.
 */
export class ExternalPauses {
  private readonly cardPosting: CardPosting;
  private readonly shows: ApiPauseCards;

  constructor(private readonly deps: ExternalPausesDeps) {
    this.shows = new ApiPauseCards(deps);
    this.cardPosting = new CardPosting({
      store: deps.store,
      cards: deps.cards,
      clock: deps.clock,
      log: deps.log,
      owner: deps.owner,
    });
  }

  async create(input: ExternalPauseInput): Promise<CreateExternalPauseResult> {
    const span = this.deps.tracing.startPause(input.traceparent, {
      app: input.app,
      tools: input.gates.map((gate) => gate.originalCall.name),
      source: 'api',
    });
    try {
      const result = await this.createTraced(input, span.traceparent);
      span.end('view' in result ? { pauseId: result.view.pause.id } : { error: result.kind });
      return result;
    } catch (error) {
      span.end({ error: errorMessage(error) });
      throw error;
    }
  }

  private async createTraced(
    input: ExternalPauseInput,
    traceparent: string | undefined,
  ): Promise<CreateExternalPauseResult> {
    const { store, log } = this.deps;
    const { resume } = input.external;
    if (resume.mode === 'adk' && !this.deps.adkTargets.has(resume.target)) {
      return { kind: 'unknown_target', target: resume.target };
    }
    const policy = this.deps.policy();
    const now = new Date(this.deps.clock());
    const resolved = input.gates.map((gate) => {
      const verdict = evaluatePolicy(policy, {
        app: input.app,
        tool: gate.originalCall.name,
        kind: gateKind(gate),
        args: gate.originalCall.args,
        ...(gate.payloadTemplate === undefined ? {} : { payload: gate.payloadTemplate }),
        requester: { id: input.requesterSlackUserId ?? apiActor(input.keyName) },
        ...(cardChannelOf(input) === undefined ? {} : { channel: cardChannelOf(input) }),
        source: 'api',
        now,
      });
      // Questions need a person's answer; without a way to apply it, the policy cannot decide.
      const byPolicy =
        verdict.decision !== 'ask' &&
        gateKind(gate) === 'confirmation' &&
        this.deps.votes !== undefined;
      if (byPolicy) verdict.resolved.policy.quorum = 1;
      return { gate, ...verdict.resolved, verdict: byPolicy ? verdict : undefined };
    });
    const noticeTools = [
      ...(input.notices?.credentialTools ?? []),
      ...(input.notices?.unraisedConfirmations.map((unraised) => unraised.tool) ?? []),
    ];
    const channel =
      cardChannelOf(input) ??
      [
        ...resolved,
        ...noticeTools.map((tool) => resolveGatePolicy(policy, { app: input.app, tool })),
      ].find((entry) => entry.channel !== undefined)?.channel;
    if (channel === undefined) return { kind: 'no_channel' };
    const place = input.thread ?? { channelId: channel };
    if (input.gates.length === 0) {
      await this.shows.postNotices(place, input.notices);
      log.info('notices posted through the API, no pause', { key: input.keyName, app: input.app });
      return { kind: 'unsupported', channel };
    }

    const adk = { appName: input.app, userId: input.userId, sessionId: input.sessionId };
    const invocationId = input.gates[0]?.invocationId;
    const id = pauseIdFor(
      `api:${input.keyName}`,
      invocationId === undefined ? adk : { ...adk, invocationId },
      input.gates,
    );
    if (input.idempotency !== undefined) {
      const claim = await store.idempotency.claimIdempotencyKey({
        key: `${input.keyName}:${input.idempotency.key}`,
        fingerprint: input.idempotency.fingerprint,
        pauseId: id,
        ttlMs: IDEMPOTENCY_TTL_MS,
      });
      if (claim.kind === 'seen' && claim.fingerprint !== input.idempotency.fingerprint) {
        return { kind: 'idempotency_conflict', pauseId: claim.pauseId };
      }
    }
    const gates: NewGate[] = resolved.map((entry) => ({ ...entry.gate, policy: entry.policy }));
    const result = await store.pauses.createPause({
      id,
      adk: invocationId === undefined ? adk : { ...adk, invocationId },
      requester: input.requesterSlackUserId ?? apiActor(input.keyName),
      card: place,
      gates,
      external: input.external,
      ...(traceparent === undefined ? {} : { traceparent }),
      now: this.deps.clock(),
    });
    if (result.kind === 'created') {
      log.info('pause posted through the API', {
        pauseId: id,
        key: input.keyName,
        app: input.app,
        gates: gates.length,
        resume: resume.mode,
      });
    } else if (result.view.pause.card.ts !== undefined) {
      return { kind: 'existed', view: result.view };
    }
    // The request that recorded the pause shows it. Another request for it (a retry, a replica)
    // finding no card waits for that one's card, or takes over when that one died.
    const shown = await this.cardPosting.once(
      id,
      { takeOver: result.kind === 'existed' },
      (view, context) => this.shows.show(view, resolved, input, channel, context),
    );
    if (shown.kind === 'busy') return { kind: 'card_pending', view: shown.view };
    return { kind: result.kind, view: shown.kind === 'done' ? shown.view : result.view };
  }

  async read(keyName: string, pauseId: string): Promise<ExternalPauseRead> {
    const view = await this.ownView(keyName, pauseId);
    if (view === undefined) return { kind: 'not_found' };
    const [notes, names] = await Promise.all([
      this.deps.store.notes.readNotes(pauseId),
      deciderNames(view, this.deps.people),
    ]);
    return { kind: 'found', view, notes, names };
  }

  /**
   * The decision once no gate is pending and nothing holds it back, waiting up to `waitMs` for
   * it. Woken by the pause's signal (any replica's vote, expiry or cancel), not by polling the
   * store, and at the end of a hold: an undo window holds the decision (`held`, never the
   * decision), which is answered once it ends, or `pending` again if the approval was undone.
   */
  async decision(keyName: string, pauseId: string, waitMs: number): Promise<DecisionRead> {
    const secret = this.deps.signingSecretOf(keyName);
    if (secret === undefined) return { kind: 'not_found' };
    let wake: () => void = () => {};
    let woken = false;
    const stop = this.deps.signals.listen(pauseId, () => {
      woken = true;
      wake();
    });
    const deadline = this.deps.clock() + waitMs;
    try {
      for (;;) {
        woken = false;
        const view = await this.ownView(keyName, pauseId);
        if (view === undefined) return { kind: 'not_found' };
        const now = this.deps.clock();
        const decided = view.gates.every((gate) => gate.state !== 'pending');
        const holdUntil = decided ? heldUntil(view, now) : undefined;
        if (decided && holdUntil === undefined) {
          const names = await deciderNames(view, this.deps.people);
          return { kind: 'decided', body: decisionBody(view, { keyName, secret }, names) };
        }
        const left = deadline - now;
        if (left <= 0)
          return holdUntil === undefined ? { kind: 'pending' } : { kind: 'held', holdUntil };
        // A hold ends on its own, without a signal: look again then.
        const wait = holdUntil === undefined ? left : Math.min(left, holdUntil - now + 1);
        if (!woken) await wakeOrTimeout((resolve) => (wake = resolve), wait);
      }
    } finally {
      stop();
    }
  }

  async cancel(
    keyName: string,
    pauseId: string,
    reason: string | undefined,
  ): Promise<CancelExternalResult> {
    const view = await this.ownView(keyName, pauseId);
    if (view === undefined) return { kind: 'not_found' };
    const result = await this.deps.store.pauses.cancel({
      pauseId,
      by: apiActor(keyName),
      ...(reason === undefined ? {} : { reason }),
      now: this.deps.clock(),
    });
    if (result.kind === 'not_found') return result;
    await this.changed(pauseId);
    return result.kind === 'cancelled'
      ? { kind: 'cancelled', view: result.view }
      : { kind: 'nothing_pending', view: result.view };
  }

  /**
   * What happened after a decision, as the agent tells it. An outcome for a gate nobody here
   * decided means the agent answered the call itself (a plugin whose enforcement is `deny-only`
   * or `off` ran a `{confirmed: true}` sent straight to the runner): the gate is closed with that
   * fact first, so that no card offers a decision that can no longer mean anything. A `refused`
   * report of a decision handed over makes the resume `refused`.
   */
  async reportOutcome(
    keyName: string,
    pauseId: string,
    callId: string,
    outcome: Omit<GateOutcome, 'at'>,
  ): Promise<OutcomeReport> {
    const { store, clock } = this.deps;
    const view = await this.ownView(keyName, pauseId);
    if (view === undefined) return 'not_found';
    const gate = view.gates.find((g) => g.confirmationCallId === callId);
    if (gate === undefined) return 'unknown_gate';
    const actor = apiActor(keyName);
    if (gate.state === 'pending' && outcome.status !== 'refused') {
      const reason = answeredByAgentReason(gate.originalCall.name, outcome);
      await store.pauses.cancel({ pauseId, by: actor, reason, now: clock() });
    }
    const at = clock();
    const recorded = await store.reports.recordOutcome({
      pauseId,
      callId,
      outcome: { ...outcome, at },
      actor,
    });
    if (recorded !== 'recorded') return recorded;
    if (outcome.status === 'refused') await refuseIfReported(store, view, at);
    await this.changed(pauseId);
    return recorded;
  }

  /**
   * An agent is about to run an approved gate's call: the first claim wins, across processes
   * and replicas, so one decision runs the tool once however many processes were handed it.
   */
  async claimRun(keyName: string, pauseId: string, callId: string): Promise<RunClaim> {
    const view = await this.ownView(keyName, pauseId);
    if (view === undefined) return 'not_found';
    const gate = view.gates.find((g) => g.confirmationCallId === callId);
    if (gate === undefined) return 'unknown_gate';
    if (gate.state !== 'approved') return 'not_approved';
    const holdUntil = heldUntil(view, this.deps.clock());
    if (holdUntil !== undefined) return { held: holdUntil };
    const claim = await this.deps.store.reports.claimGateRun({
      pauseId,
      callId,
      by: apiActor(keyName),
      at: this.deps.clock(),
    });
    // The card then says the agent took the decision; the tool need not wait for Slack.
    if (claim === 'claimed') void this.deps.cards.refresh(pauseId);
    return claim;
  }

  /** A pause changed outside a vote: show it and wake its waiters. */
  async changed(pauseId: string): Promise<void> {
    await this.deps.signals.notify(pauseId).catch((error: unknown) => {
      this.deps.log.warn('could not signal a pause change', { pauseId, error: String(error) });
    });
    await this.deps.cards.refresh(pauseId);
  }

  /** Another key's pause is as good as absent: ids are not secrets, scopes are. */
  private async ownView(keyName: string, pauseId: string): Promise<PauseView | undefined> {
    const view = await this.deps.store.pauses.getPause(pauseId);
    return view?.pause.external?.keyName === keyName ? view : undefined;
  }
}

function wakeOrTimeout(arm: (resolve: () => void) => void, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    arm(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/** The card's channel the request names: its thread's, else its `channel`. */
function cardChannelOf(input: ExternalPauseInput): string | undefined {
  return input.thread?.channelId ?? input.channel;
}
