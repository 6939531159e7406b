import type { WithdrawResult } from '../../store-roles/pauses.js';
import type { WithdrawArgs } from '../scripts/withdraw.lua.js';
import type { PauseRun } from './prelude.js';

/** Twin of scripts/withdraw.lua.ts: every pending gate becomes `withdrawn`; the resume comes due. */
export function withdraw(run: PauseRun, args: WithdrawArgs): WithdrawResult {
  const { by, decision, detail } = args;
  if (run.pending() === 0) return { kind: 'nothing_pending', view: run.view() };
  const callIds: string[] = [];
  for (const gate of run.entry.gates) {
    if (gate.record.state !== 'pending') continue;
    run.decide(gate, 'withdrawn', decision);
    run.audit('withdrawn', by, gate.record.confirmationCallId, detail);
    callIds.push(gate.record.confirmationCallId);
  }
  return { kind: 'withdrawn', view: run.view(), callIds };
}
