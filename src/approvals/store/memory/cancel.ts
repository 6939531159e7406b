import type { GateDecision } from '../../records.js';
import type { CancelResult } from '../../store-roles/pauses.js';
import type { PauseRun } from './prelude.js';

/** Twin of scripts/cancel.lua.ts: cancels every pending gate; the pause is abandoned. */
export function cancel(
  run: PauseRun,
  by: string,
  decision: GateDecision,
  retentionMs: number,
  detail: string,
): CancelResult {
  if (run.pending() === 0) return { kind: 'nothing_pending', view: run.view() };
  const callIds = run.abandon(by, decision, detail, retentionMs);
  return { kind: 'cancelled', view: run.view(), callIds };
}
