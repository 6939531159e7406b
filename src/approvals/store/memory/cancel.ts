import type { CancelResult } from '../../store-roles/pauses.js';
import type { CancelArgs } from '../scripts/cancel.lua.js';
import type { PauseRun } from './prelude.js';

/** Twin of scripts/cancel.lua.ts: cancels every pending gate; the pause is abandoned. */
export function cancel(run: PauseRun, args: CancelArgs): CancelResult {
  const { by, decision, detail, retentionMs } = args;
  if (run.pending() === 0) return { kind: 'nothing_pending', view: run.view() };
  const callIds = run.abandon(by, decision, detail, retentionMs);
  return { kind: 'cancelled', view: run.view(), callIds };
}
