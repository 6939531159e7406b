import type { UndoResult } from '../../store-roles/pauses.js';
import type { UndoArgs } from '../scripts/undo.lua.js';
import type { PauseRun } from './prelude.js';

/**
 * Twin of scripts/undo.lua.ts: within the undo window, the approver (or an admin: `any`) takes
 * their approvals back; the gates are pending again and the hold ends.
 */
export function undo(run: PauseRun, args: UndoArgs): UndoResult {
  const pause = run.entry.pause;
  if (run.heldUntil() === undefined) return { kind: 'too_late', view: run.view() };
  const callIds: string[] = [];
  for (const gate of run.entry.gates) {
    if (gate.record.state !== 'approved') continue;
    if (!args.any && gate.record.decision?.by !== args.by) continue;
    run.sendBack(gate, args.reopened);
    run.audit('undone', args.by, gate.record.confirmationCallId, args.detail);
    callIds.push(gate.record.confirmationCallId);
  }
  if (callIds.length === 0) return { kind: 'not_decider', view: run.view() };
  const { holdUntil: _, ...resume } = pause.resume;
  pause.resume = resume;
  pause.version += 1;
  return { kind: 'undone', view: run.view(), callIds };
}
