import { gateKind } from '../../adk/gate.js';
import { deciderOf } from '../../approvals/deciders.js';
import type { GateRecord, GateState } from '../../approvals/records.js';

/**
 * One word for each way a gate leaves `pending`, the same on the card, in the thread, on the App
 * Home and in the run's status line: denied by the policy is not rejected by a person; withdrawn
 * by the person who asked is not cancelled by the agent; an expiry that cancels is an expiry; a
 * run stood down because its alert resolved is neither.
 * Pure; the emoji are ones Slack and the local sandbox both draw.
 */
export type Outcome =
  | 'pending'
  | 'approved'
  | 'answered'
  | 'rejected'
  | 'denied'
  | 'expired'
  | 'expired_cancelled'
  | 'withdrawn'
  | 'cancelled'
  | 'stood_down';

/**
 * `state` and who decided (`by`, the decision's actor): a policy's reject is a denial; a cancel
 * is the agent's (`POST …/cancel`), a person's (a question withdrawn: ADK has no "no" to a
 * question, so it is cancelled) or an expiry's. `input`: the gate asked a question.
 */
export function outcomeOf(state: GateState, by: string | undefined, input = false): Outcome {
  const decider = by === undefined ? undefined : deciderOf(by).kind;
  switch (state) {
    case 'approved':
      return input ? 'answered' : 'approved';
    case 'rejected':
      return decider === 'policy' ? 'denied' : 'rejected';
    case 'cancelled':
      if (decider === 'expiry') return 'expired_cancelled';
      if (decider === 'stand_down') return 'stood_down';
      return decider === 'person' ? 'withdrawn' : 'cancelled';
    default:
      return state;
  }
}

/** A gate's own outcome: its state, who decided it, and whether it asked a question. */
export function gateOutcome(gate: Pick<GateRecord, 'state' | 'decision' | 'kind'>): Outcome {
  return outcomeOf(gate.state, gate.decision?.by, gateKind(gate) === 'input');
}

export const OUTCOME_EMOJI: Record<Outcome, string> = {
  pending: ':hourglass_flowing_sand:',
  approved: ':white_check_mark:',
  answered: ':white_check_mark:',
  rejected: ':x:',
  denied: ':no_entry:',
  expired: ':hourglass:',
  expired_cancelled: ':hourglass:',
  withdrawn: ':leftwards_arrow_with_hook:',
  cancelled: ':no_entry_sign:',
  stood_down: ':no_bell:',
};

/** The word after the tool's name ("`deploy` denied by policy rule `prod`"), lower case. */
export const OUTCOME_WORD: Record<Outcome, string> = {
  pending: 'pending',
  approved: 'approved',
  answered: 'answered',
  rejected: 'rejected',
  denied: 'denied',
  expired: 'expired',
  expired_cancelled: 'expired',
  withdrawn: 'withdrawn',
  cancelled: 'cancelled',
  stood_down: 'stood down',
};
