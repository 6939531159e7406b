import type { Gate } from '../adk/gate.js';
import type { JsonValue } from '../json.js';
import type { CardClaims } from './card-claims.js';
import type { GrantScope } from './grants.js';
import type {
  AdkCoordinates,
  CardLocation,
  DeliveryStatus,
  ExternalOrigin,
  GateDecision,
  GateOutcome,
  GatePolicy,
  GateState,
  PauseNotes,
  PauseView,
} from './records.js';

/**
 * The shared truth about pending confirmations. Every transition is atomic across any number of
 * replicas; expected outcomes ("already decided", "expired") come back as tagged results, and
 * only outages and corrupt records throw.
 */
export interface ConfirmationStore {
  /** Records a pause and its gates. The same pause twice: one record, and `existed` says so. */
  createPause(input: NewPause): Promise<CreatePauseResult>;
  getPause(pauseId: string): Promise<PauseView | undefined>;
  /**
   * Whether the pause changed (or is gone) since `view` was read: its versions only, without
   * reading or decoding its records, for a caller that already rendered `view`.
   */
  changedSince(view: PauseView): Promise<boolean>;
  /** O(1): which pause holds the gate answered with this call id. */
  findPauseIdByCallId(callId: string): Promise<string | undefined>;
  /** Remembers where the card was posted (its `ts`), once Slack answered; `now` dates the audit entry. */
  setCardTs(pauseId: string, ts: string, now: number): Promise<PauseView | undefined>;

  /** One vote. One reject decides; approvals decide at the quorum; a voter counts once. */
  vote(input: VoteInput): Promise<VoteResult>;
  /**
   * One voter's vote on several gates of a pause in one atomic step (Approve all / Reject all):
   * each gate's outcome as `vote` would give it, all or nothing applied.
   */
  voteAll(input: VoteAllInput): Promise<VoteAllResult>;
  /** Cancels every pending gate of the pause; the pause will not be resumed. */
  cancel(input: CancelInput): Promise<CancelResult>;
  /**
   * The requester calls the request off: every pending gate becomes `withdrawn`, exactly once,
   * and the pause's resume comes due (the agent is told). Nothing pending: nothing changes.
   */
  withdraw(input: WithdrawInput): Promise<WithdrawResult>;
  /** Applies expiry to gates due at `now`; safe for any number of replicas at once. */
  expireDue(now: number, limit?: number): Promise<ExpiredGate[]>;

  /**
   * Pauses recorded at least `graceMs` ago whose card was never posted (no `ts`): a replica died
   * between recording a pause and posting its card, and nobody can see or approve it. Each id
   * returned is claimed for `leaseMs` by `owner` (its card claim, see `cardClaims`), so that one
   * replica posts it; a pause whose card another poster holds the claim of is not returned.
   */
  claimCardless(input: ClaimCardlessInput): Promise<string[]>;
  /** Who is posting each pause's card: one poster at a time. */
  readonly cardClaims: CardClaims;

  /**
   * Run intents: an `/agent` command accepted and not yet ended, held by the replica running it
   * under a lease it renews (`advanceRun`) while the run goes on. A replica that dies stops
   * renewing, and `claimDeadRuns` hands the intent to one other replica to tell the requester.
   */
  recordRun(input: RecordRunInput): Promise<void>;
  /** Renews the lease and records progress; `lost` when another replica has taken the run over. */
  advanceRun(input: AdvanceRunInput): Promise<'renewed' | 'lost'>;
  /** The run ended (a card, an answer, an error said): the owner's intent is removed. */
  finishRun(input: { runId: string; owner: string }): Promise<void>;
  /** Intents whose lease lapsed at `now`, each claimed for `leaseMs` by `owner`. */
  claimDeadRuns(input: ClaimDeadRunsInput): Promise<RunIntent[]>;

  /**
   * Reminders and escalations (the gate policy's `remindAfter`, `escalateAfter`) due at `now`
   * whose gate is still pending, each claimed for `leaseMs`: of any number of replicas one gets
   * each, and one that dies before `finishNudge` leaves it to be claimed again once the lease
   * lapses. Entries of decided or gone gates are dropped.
   */
  claimDueNudges(input: ClaimNudgesInput): Promise<DueNudge[]>;
  /** The nudge was handled: it is never due again (unless a newer claim took it over). */
  finishNudge(nudge: DueNudge): Promise<void>;

  /** Claims the resume of a fully decided pause, with a lease another replica may take over once it lapses. */
  claimResume(input: ClaimResumeInput): Promise<ClaimResult>;
  /** Pauses whose resume is due: decided but never claimed, or whose lease lapsed. */
  dueResumes(now: number, limit?: number): Promise<string[]>;
  /** The lease's owner extends it while the resume streams (a heartbeat). */
  renewLease(input: RenewLeaseInput): Promise<RenewLeaseResult>;
  markResumed(input: FinishResumeInput): Promise<FinishResult>;
  markResumeFailed(input: ResumeFailedInput): Promise<FinishResult>;
  /**
   * The agent received the answers and refused them (nothing ran); finished: no Retry claims it,
   * since the agent's session already holds the answers.
   */
  markResumeRefused(input: ResumeFailedInput): Promise<FinishResult>;
  /**
   * The re-check before a resume refused these approved gates: they go back to pending (votes
   * cleared, `reopened` kept) and the resume to idle, so that nothing is sent until someone
   * allowed decides again. Only the resume's lease owner, while it resumes.
   */
  reopen(input: ReopenInput): Promise<ReopenResult>;
  /**
   * Within a pause's undo window, `by` takes back their approvals (all of them, for an admin):
   * the gates go back to pending and the hold ends. Nothing was sent to the agent.
   */
  undo(input: UndoInput): Promise<UndoResult>;

  listPendingByChannel(channelId: string, limit?: number): Promise<GateRef[]>;
  /**
   * Gates still pending, by ADK app name: each pause's own count, which its transitions keep
   * exact; reads every live pause (O(pauses)), so callers cache it (the metrics gauge does).
   */
  countPendingByApp(): Promise<Map<string, number>>;
  listPendingByApprover(userId: string, limit?: number): Promise<GateRef[]>;
  /**
   * Pending gates by one index (see `PendingIndex`), oldest first. Candidates only: who may
   * decide a gate is settled by the policy as it is now, when the listing is used.
   */
  listPending(index: PendingIndex, limit?: number): Promise<GateRef[]>;
  /** Records what the agent reported after a decision; the pause's trail gets an entry. */
  recordOutcome(input: OutcomeInput): Promise<OutcomeResult>;
  /**
   * The agent a decision was handed to (poll, webhook) received it and did not act on it (ADK
   * refused it, or its driver could not use it): a resume marked `resumed` becomes `refused`,
   * with the agent's words, and the pause's trail gets an entry. Any other resume state is left
   * as it is (`not_handed_over`): the hand-over, once marked, looks for the report itself.
   */
  refuseHandOver(input: HandOverRefusal): Promise<'refused' | 'not_handed_over' | 'not_found'>;
  /**
   * Records that an agent is about to run a decided gate's call: the first claim of a gate wins,
   * atomically across replicas; any later one is `taken` (single use across processes).
   */
  claimGateRun(input: GateRunClaim): Promise<'claimed' | 'taken'>;
  /** Records where a webhook delivery stands (shown on the card); the trail gets an entry. */
  recordDelivery(input: DeliveryInput): Promise<'recorded' | 'not_found'>;
  /** A grant given on a gate's card, or revoked, in the pause's trail beside the gate's votes. */
  recordGrantEvent(input: GrantEventInput): Promise<OutcomeResult>;
  /** Outcomes and the delivery status of a pause (empty when none were recorded). */
  readNotes(pauseId: string): Promise<PauseNotes>;
  /**
   * Binds an idempotency key to the request it first came with, for `ttlMs`. Atomic across
   * replicas: of two concurrent first uses exactly one is `claimed`.
   */
  claimIdempotencyKey(input: IdempotencyInput): Promise<IdempotencyResult>;

  /** The audit trail, oldest first. */
  readAudit(options?: { pauseId?: string; count?: number }): Promise<AuditEntry[]>;
  /**
   * The store-wide audit, oldest first, one page: entries after the `after` cursor (an entry id,
   * exclusive), else written at or after `since`; up to `until` (ms, inclusive); `limit` at most.
   * What the audit export streams, page by page.
   */
  readAuditPage(options: AuditPageOptions): Promise<AuditEntry[]>;
  /**
   * A person's recent decisions, newest first: the deciding entries (approved, rejected, expired,
   * cancelled, withdrawn) they made or that were made on their requests, from an index of their
   * own (never a scan of the audit).
   */
  readRecentDecisions(userId: string, limit: number): Promise<AuditEntry[]>;
  /** Drops store-wide audit entries written before `before` (ms): the audit retention. */
  trimAudit(before: number): Promise<void>;

  /**
   * Sets the marker that tells a store that lost its data from one that holds it (at start;
   * kept if it is there already). Redis restarted without persistence, flushed or evicted: the
   * marker is gone with everything else, and `readMarker` says so. Placed again after a loss,
   * it keeps when that loss was found (`lossFoundAt`), for every replica to report.
   */
  placeMarker(input: { now: number; lossFoundAt?: number }): Promise<void>;
  readMarker(): Promise<StoreMarker>;

  close(): Promise<void>;
}

/**
 * The store's marker: gone (the store lost its data), or there since `placedAt`; `lossFoundAt`
 * when it was placed again after a loss found then.
 */
export type StoreMarker =
  | { kind: 'missing' }
  | { kind: 'present'; placedAt: number; lossFoundAt?: number };

export interface NewGate extends Gate {
  policy: GatePolicy;
}

export interface NewPause {
  /** From `pauseIdFor(adk, callIds)`. */
  id: string;
  adk: AdkCoordinates;
  requester: string;
  card: CardLocation;
  runThread?: { channelId: string; threadTs: string };
  origin?: { prompt?: string; permalink?: string };
  gates: NewGate[];
  /** Posted through the approvals API. */
  external?: ExternalOrigin;
  /** The pause's span (`ApprovalTracing`): its later spans join that trace. */
  traceparent?: string;
  now: number;
}

export interface OutcomeInput {
  pauseId: string;
  callId: string;
  outcome: GateOutcome;
  /** Who reported it, e.g. `api:<key name>`. */
  actor: string;
}

export type OutcomeResult = 'recorded' | 'not_found' | 'unknown_gate';

export interface HandOverRefusal {
  pauseId: string;
  /** Who reported it, e.g. `api:<key name>`. */
  actor: string;
  /** What the agent said (shown on the card): no arguments or payloads. */
  error: string;
  at: number;
}

export interface GateRunClaim {
  pauseId: string;
  callId: string;
  /** Who claims, e.g. `api:<key name>`. */
  by: string;
  at: number;
}

export interface DeliveryInput {
  pauseId: string;
  delivery: DeliveryStatus;
  actor: string;
}

export interface GrantEventInput {
  pauseId: string;
  /** The gate whose card gave the grant. */
  callId: string;
  event: 'granted' | 'grant_revoked';
  /** Who gave or revoked it: a Slack user id, or `api:<key>`. */
  actor: string;
  grantId: string;
  scope: GrantScope;
  expiresAt: number;
  /** Revocations: the calls it had decided. */
  uses?: number;
  at: number;
}

export interface IdempotencyInput {
  /** Unique per caller and key, e.g. `<key name>:<Idempotency-Key>`. */
  key: string;
  /** A hash of the request body: the same key with another body is a conflict. */
  fingerprint: string;
  pauseId: string;
  ttlMs: number;
}

export type IdempotencyResult =
  | { kind: 'claimed' }
  | { kind: 'seen'; fingerprint: string; pauseId: string };

export type CreatePauseResult =
  | { kind: 'created'; view: PauseView }
  | { kind: 'existed'; view: PauseView };

export interface VoteInput {
  pauseId: string;
  callId: string;
  voter: string;
  /** The voter's display name, kept in the decision for the audit. */
  voterName?: string;
  /** The approver the voter decides for, under a hand-over while away (kept in the vote, its decision and the audit). */
  onBehalfOf?: string;
  choice: 'approve' | 'reject';
  payload?: JsonValue;
  reason?: string;
  now: number;
}

export type VoteResult =
  /** Counted; the gate still needs more approvals. */
  | { kind: 'counted'; view: PauseView; approvals: number; quorum: number }
  /** This vote decided the gate. `pauseDecided`: every gate of the pause is now decided. */
  | { kind: 'decided'; view: PauseView; state: GateState; pauseDecided: boolean }
  | { kind: 'already_voted'; view: PauseView }
  /** The gate was decided before this vote; by whom and when is in `decision`. */
  | { kind: 'already_decided'; view: PauseView; state: GateState; decision: GateDecision }
  /** The gate's time ran out; the vote applied its expiry instead (see `ExpiredGate`). */
  | { kind: 'expired'; view: PauseView; state: GateState; pauseDecided: boolean }
  | { kind: 'not_found' };

export interface VoteAllInput extends Omit<VoteInput, 'callId' | 'payload'> {
  /** The gates to vote on, at least one. */
  callIds: readonly string[];
  /** Part of a batch from the App Home of this many calls (for the audit). */
  batch?: number;
}

export type VoteAllResult =
  /** `view`: the pause after the step; `results`: each gate's outcome, in `callIds` order. */
  | { kind: 'applied'; view: PauseView; results: { callId: string; result: VoteResult }[] }
  | { kind: 'not_found' };

export interface CancelInput {
  pauseId: string;
  by: string;
  reason?: string;
  now: number;
}

export type CancelResult =
  | { kind: 'cancelled'; view: PauseView; callIds: string[] }
  | { kind: 'nothing_pending'; view: PauseView }
  | { kind: 'not_found' };

export interface WithdrawInput {
  pauseId: string;
  /** A Slack user id, or `api:<key name>`. */
  by: string;
  /** A person's display name, kept in the decision for the audit. */
  byName?: string;
  reason?: string;
  now: number;
}

export type WithdrawResult =
  /** `callIds`: the gates this call withdrew. The pause is now decided. */
  | { kind: 'withdrawn'; view: PauseView; callIds: string[] }
  /** Every gate was decided already (by a vote, an expiry or an earlier withdraw). */
  | { kind: 'nothing_pending'; view: PauseView }
  | { kind: 'not_found' };

export interface ExpiredGate {
  view: PauseView;
  callId: string;
  /** `expired` (rejected on expiry) or `cancelled`, per the gate's policy. */
  state: GateState;
  pauseDecided: boolean;
}

export interface ClaimResumeInput {
  pauseId: string;
  owner: string;
  now: number;
  leaseMs: number;
  /** A person pressed Retry: a failed resume may be claimed again. Without it, it may not. */
  retryFailed?: boolean;
}

export type ClaimResult =
  /** `retried`: a person's Retry claimed a failed resume (else a first claim or a takeover). */
  | { kind: 'claimed'; view: PauseView; attempt: number; retried: boolean }
  /** The last resume failed; only a Retry (`retryFailed`) claims it again. */
  | { kind: 'awaiting_retry'; view: PauseView }
  /** Some gates are still pending. */
  | { kind: 'not_decided'; view: PauseView }
  /** Another owner holds a live lease. */
  | { kind: 'leased'; view: PauseView; leaseUntil: number }
  /** In its undo window: not claimed before `until`. */
  | { kind: 'held'; view: PauseView; until: number }
  | { kind: 'finished'; view: PauseView }
  | { kind: 'not_found' };

export interface ClaimNudgesInput {
  now: number;
  leaseMs: number;
  limit?: number;
}

/** `remind`: the approvers who have not voted are reminded; `escalate`: `escalateTo` joins them. */
export const NUDGE_KINDS = ['remind', 'escalate'] as const;
export type NudgeKind = (typeof NUDGE_KINDS)[number];

/** A reminder or an escalation of one gate, claimed until `claimedUntil`. */
export interface DueNudge extends GateRef {
  kind: NudgeKind;
  claimedUntil: number;
}

export interface ClaimCardlessInput {
  now: number;
  graceMs: number;
  owner: string;
  leaseMs: number;
  limit?: number;
}

/** What is known of an accepted `/agent` run, so that another replica can say what happened. */
export interface RunIntent {
  id: string;
  requester: string;
  teamId?: string;
  channelId: string;
  /** The command text (what the person asked). */
  text: string;
  acceptedAt: number;
  /** Once the run's root message is posted: the thread. */
  threadTs?: string;
  /** Once the ADK session exists. */
  appName?: string;
  sessionId?: string;
}

export type RunProgress = Pick<RunIntent, 'threadTs' | 'appName' | 'sessionId'>;

export interface RecordRunInput {
  intent: RunIntent;
  owner: string;
  now: number;
  leaseMs: number;
}

export interface AdvanceRunInput {
  runId: string;
  owner: string;
  now: number;
  leaseMs: number;
  progress?: RunProgress;
}

export interface ClaimDeadRunsInput {
  now: number;
  owner: string;
  leaseMs: number;
  limit?: number;
}

export interface RenewLeaseInput {
  pauseId: string;
  owner: string;
  now: number;
  leaseMs: number;
}

export type RenewLeaseResult =
  | { kind: 'renewed'; leaseUntil: number }
  /** Another owner took the resume over (or it finished): stop. */
  | { kind: 'lost_lease' }
  | { kind: 'not_found' };

/** Only the current lease owner's outcome is recorded. */
export interface FinishResumeInput {
  pauseId: string;
  owner: string;
  now: number;
}

export interface ResumeFailedInput extends FinishResumeInput {
  /** Shown on the card; no arguments or payloads. */
  error: string;
}

export interface ReopenInput extends FinishResumeInput {
  /** Approved gates whose approval no longer holds; others are left as they are. */
  callIds: readonly string[];
  /** Whose approval no longer holds (a Slack user id). */
  voter: string;
  /** Why, for the card and the audit: no names, no arguments. */
  why: string;
}

export type ReopenResult =
  /** `callIds`: the gates sent back (none when none of them was approved). */
  | { kind: 'reopened'; view: PauseView; callIds: string[] }
  | { kind: 'lost_lease'; view: PauseView }
  | { kind: 'not_found' };

export interface UndoInput {
  pauseId: string;
  /** A Slack user id. */
  by: string;
  /** An admin undoes any approval of the pause; a person only their own. */
  admin: boolean;
  now: number;
}

export type UndoResult =
  | { kind: 'undone'; view: PauseView; callIds: string[] }
  /** The window ended, or the resume was claimed already. */
  | { kind: 'too_late'; view: PauseView }
  /** `by` approved none of the pause's gates. */
  | { kind: 'not_decider'; view: PauseView }
  | { kind: 'not_found' };

export type FinishResult =
  | { kind: 'ok'; view: PauseView }
  /** The lease lapsed and someone else took over: this owner's outcome is not recorded. */
  | { kind: 'lost_lease'; view: PauseView }
  | { kind: 'not_found' };

/**
 * The pending indexes a gate is in while pending: its card's channel, each user approver, each
 * user-group approver, its requester, and — when its card channel's members may approve — the
 * one store-wide list of such gates (channel membership is known only to Slack).
 */
export type PendingIndex =
  | { kind: 'channel'; id: string }
  | { kind: 'user'; id: string }
  | { kind: 'usergroup'; id: string }
  | { kind: 'requester'; id: string }
  | { kind: 'channel_members' };

export interface GateRef {
  pauseId: string;
  callId: string;
}

export interface AuditPageOptions {
  since?: number;
  until?: number;
  after?: string;
  limit: number;
}

export interface AuditEntry {
  /** Stream entry id (or a monotonic id in memory). */
  id: string;
  at: number;
  pauseId: string;
  callId?: string;
  /** What happened: `created`, `voted`, `approved`, `rejected`, `expired`, `cancelled`, `resume_claimed`, `resumed`, `resume_failed`, … */
  event: string;
  /** Who caused it: a Slack user id, a replica's owner id, or `system`. */
  actor: string;
  /** Short facts without argument or payload values, e.g. the reason length or the lease owner. */
  detail?: string;
  /**
   * The entry's line of its pause's hash chain, byte for byte (audit-chain.ts): who, what, why,
   * the policy version, and the links. Absent for entries written before the chain existed.
   */
  line?: string;
}

/** Why a store call failed for a reason that is not an expected outcome. */
export type StoreErrorReason =
  | 'unavailable'
  /**
   * The call was sent but its answer never came (a reply timeout, the connection lost while
   * waiting): a script may have run. Read the records again before saying what happened.
   */
  | 'outcome_unknown'
  | 'corrupt_record'
  | 'script';

export class StoreError extends Error {
  override readonly name = 'StoreError';
  constructor(
    readonly reason: StoreErrorReason,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}
