import type { GateRef } from './pending-queries.js';

/**
 * Reminders and escalations (the gate policy's `remindAfter`, `escalateAfter`), queued when a
 * pause is recorded.
 */
export interface NudgeQueue {
  /**
   * Nudges due at `now` whose gate is still pending, each claimed for `leaseMs`: of any number
   * of replicas one gets each, and one that dies before `finishNudge` leaves it to be claimed
   * again once the lease lapses. Entries of decided or gone gates are dropped.
   */
  claimDueNudges(input: ClaimNudgesInput): Promise<DueNudge[]>;
  /** The nudge was handled: it is never due again (unless a newer claim took it over). */
  finishNudge(nudge: DueNudge): Promise<void>;
}

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
