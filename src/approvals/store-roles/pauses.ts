import type { Gate } from '../../adk/gate.js';
import type { JsonValue } from '../../json.js';
import type {
  AdkCoordinates,
  CardLocation,
  ExternalOrigin,
  GateDecision,
  GatePolicy,
  GateState,
  PauseView,
} from '../records.js';
import type { FinishResumeInput } from './resume-leases.js';

/**
 * Pauses and the decisions on their gates. Every transition is atomic across any number of
 * replicas; expected outcomes ("already decided", "expired") come back as tagged results, and
 * only outages and corrupt records throw.
 */
export interface PauseStore {
  /** Records a pause and its gates. The same pause twice: one record, and `existed` says so. */
  createPause(input: NewPause): Promise<CreatePauseResult>;
  getPause(pauseId: string): Promise<PauseView | undefined>;
  /**
   * The pause as this replica last saw it (a transition's reply or a read), if it saw it lately:
   * nothing is read, so it may be stale. A vote given its gates' version (`checkedGatesVersion`)
   * is applied only if no gate changed since, and answers `stale` otherwise.
   */
  recentPause(pauseId: string): PauseView | undefined;
  /**
   * Whether the pause changed (or is gone) since `view` was read: its versions only, without
   * reading or decoding its records, for a caller that already rendered `view`.
   */
  changedSince(view: PauseView): Promise<boolean>;
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
  /**
   * Within a pause's undo window, `by` takes back their approvals (all of them, for an admin):
   * the gates go back to pending and the hold ends. Nothing was sent to the agent.
   */
  undo(input: UndoInput): Promise<UndoResult>;
  /**
   * The re-check before a resume refused these approved gates: they go back to pending (votes
   * cleared, `reopened` kept) and the resume to idle, so that nothing is sent until someone
   * allowed decides again. Only the resume's lease owner, while it resumes.
   */
  reopen(input: ReopenInput): Promise<ReopenResult>;
}

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
  /**
   * The version of the pause's gates (`gatesVersion`) the voter was checked against: the vote is
   * applied only if no gate changed since, and answers `stale` otherwise. Absent: applied to the
   * pause as it is.
   */
  checkedGatesVersion?: number;
  /**
   * Who resumes the pause if this vote decides it: the resume is claimed for them in the same
   * step (as `claimResume` would, `leaseMs` from `now`), unless an undo window holds it; the
   * result's `claimed` says so.
   */
  resumeClaim?: { owner: string; leaseMs: number };
  now: number;
}

export type VoteResult =
  /** Counted; the gate still needs more approvals. */
  | { kind: 'counted'; view: PauseView; approvals: number; quorum: number }
  /**
   * This vote decided the gate. `pauseDecided`: every gate of the pause is now decided.
   * `claimed`: the resume was claimed for the input's `resumeClaim` owner, this attempt.
   */
  | {
      kind: 'decided';
      view: PauseView;
      state: GateState;
      pauseDecided: boolean;
      claimed?: { attempt: number };
    }
  | { kind: 'already_voted'; view: PauseView }
  /** The gate was decided before this vote; by whom and when is in `decision`. */
  | { kind: 'already_decided'; view: PauseView; state: GateState; decision: GateDecision }
  /** The gate's time ran out; the vote applied its expiry instead (see `ExpiredGate`). */
  | { kind: 'expired'; view: PauseView; state: GateState; pauseDecided: boolean }
  /** Only with `checkedGatesVersion`: a gate changed since; nothing was applied; `view` is the pause now. */
  | { kind: 'stale'; view: PauseView }
  | { kind: 'not_found' };

export interface VoteAllInput
  extends Omit<VoteInput, 'callId' | 'payload' | 'checkedGatesVersion'> {
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
