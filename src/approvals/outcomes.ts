import type { JsonValue } from '../json.js';
import type { Approver, GateDecision, GatePolicy, GateState } from './records.js';

/**
 * Outcomes the workflow returns as values rather than throws: why a click changed nothing, why a
 * run ended without an answer. Renderers in `slack/` word them; nothing here knows about Slack.
 */

/** Why a click (a vote, a modal, a Retry, a command) changed nothing. */
/**
 * `question`: the gate is an input request (`adk_request_input`), which people answer rather
 * than approve; the reply says so.
 */
export type Refusal =
  /** The clicker is not among the approvers; `approvers` says who is. */
  | { kind: 'not_approver'; approvers: readonly Approver[]; question?: true }
  /** The clicker started the run and the policy does not allow self-approval. */
  | { kind: 'self_approval'; question?: true }
  /** Only the requester (or a policy admin) may withdraw a request. */
  | { kind: 'not_requester'; requester: string }
  /** Only the approver (or a policy admin) may undo an approval. */
  | { kind: 'not_decider' }
  /** The undo window is over: the agent has the decision, or is being given it. */
  | { kind: 'too_late' }
  /** The rule in force does not offer that grant scope (any more) for this call. */
  | { kind: 'grant_not_offered' }
  /**
   * The clicker decides this for someone who handed over to them: a grant covers later calls in
   * a person's own name, so it is the delegator's to give (or anyone's with their own standing).
   */
  | { kind: 'grant_on_behalf'; onBehalfOf: string }
  /** The grant expired or was revoked already. */
  | { kind: 'grant_gone' }
  /** Only a grant's granter, its requester or a policy admin may revoke it. */
  | { kind: 'not_grant_party' }
  | { kind: 'already_decided'; state: GateState; decision: GateDecision; question?: true }
  | { kind: 'already_voted'; approvals?: number; quorum?: number }
  | { kind: 'expired'; expiresAt?: number; onExpiry?: GatePolicy['onExpiry'] }
  /** No such gate, or no longer pending (a stale card, a pause already resumed). */
  | { kind: 'not_found' }
  /** The store holds no record of the card's pause at all (Redis lost its data, or it was removed). */
  | { kind: 'pause_gone' }
  | { kind: 'nobody_may_approve'; rule: string; question?: true }
  /** Rejecting needs a reason under the rule in force (`rule`, when known), and none was given. */
  | { kind: 'reason_required'; rule?: string }
  /** A batch held a call whose rule in force says `batch: false`: it is decided on its card. */
  | { kind: 'not_batchable'; rule: string }
  /** An input request is answered with its form, never approved or rejected as it stands. */
  | { kind: 'answer_required' }
  /** Slack could not tell who may approve (a user group or channel lookup failed): fail closed. */
  | { kind: 'permission_check_failed' }
  /** The app could not record the decision (Redis unreachable, …): nothing changed. */
  | { kind: 'decision_failed'; reference?: string | undefined }
  /** Redis took the vote but never answered: it may be recorded. The app checks and says. */
  | { kind: 'outcome_unknown' }
  /**
   * Others' decisions kept changing the request between each check of the click and its vote:
   * nothing was recorded (a vote is only applied to the request as it was checked).
   */
  | { kind: 'changed_meanwhile' }
  /** The run could not start its thread in this channel; `code` is Slack's error. */
  | { kind: 'cannot_post_here'; code: string };

/** What became of one call picked in a batch from the App Home. */
export interface BatchPick {
  pauseId: string;
  callId: string;
  /** The call as its card shows it; absent when its pause is no longer on record. */
  call?: {
    tool: string;
    args: JsonValue;
    requester: string;
    app: string;
    /** Where its card is. */
    channelId: string;
  };
  outcome:
    | { kind: 'approved' | 'rejected' }
    /** An approval that counted towards a quorum not met yet: the call still waits. */
    | { kind: 'counted'; approvals: number; quorum: number }
    /** Nothing was decided for it, and why. */
    | { kind: 'refused'; refusal: Refusal };
}

/** Why a run ended without an answer. Messages come from ADK and are shown escaped. */
export type RunError =
  | { kind: 'unreachable' }
  | { kind: 'http'; status: number; message?: string }
  | { kind: 'error_frame'; message: string }
  /** ADK refused to apply a decision (IntentMismatchError); `reason` is ADK's word for why. */
  | { kind: 'not_applied'; reason: string }
  | { kind: 'timeout' }
  /** The server answered something this app cannot read. */
  | { kind: 'unreadable'; message: string }
  /** The stream stopped before the agent's final event, with no error (ADK Java fails so). */
  | { kind: 'ended_early' };

/** What a re-read found about a vote whose outcome was unknown. */
export type VoteCheck =
  | { kind: 'recorded'; states: readonly GateState[] }
  | { kind: 'not_recorded' }
  /** The store stayed out of reach for as long as the app kept trying. */
  | { kind: 'still_unknown' };
