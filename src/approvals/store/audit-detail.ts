import type { JsonValue } from '../../json.js';

/**
 * The `detail` of audit entries, the same for both stores: facts about a transition, never the
 * argument, payload or reason values themselves (a reason's length, whether a payload came).
 */

export function voteDetail(vote: {
  choice: 'approve' | 'reject';
  payload?: JsonValue;
  reason?: string;
}): string {
  const parts = [`choice=${vote.choice}`];
  if (vote.payload !== undefined) parts.push('payload=yes');
  if (vote.reason !== undefined) parts.push(`reason_length=${vote.reason.length}`);
  return parts.join(' ');
}

export function cancelDetail(reason: string | undefined): string {
  return reason === undefined ? '' : `reason_length=${reason.length}`;
}

export function resumeFailedDetail(error: string): string {
  return `error_length=${error.length}`;
}

export function claimDetail(claim: {
  attempt: number;
  leaseMs: number;
  tookOverFrom?: string;
}): string {
  const detail = `attempt=${claim.attempt} lease_ms=${claim.leaseMs}`;
  return claim.tookOverFrom === undefined
    ? detail
    : `${detail} took_over_from=${claim.tookOverFrom}`;
}
