import type { ReopenResult } from '../../store-roles/pauses.js';
import type { ReopenArgs } from '../scripts/reopen.lua.js';
import type { PauseRun } from './prelude.js';

/**
 * Twin of scripts/reopen.lua.ts: approved gates back to pending, votes cleared and the reason
 * kept, the resume back to idle; only for the resume's lease owner while it resumes.
 */
export function reopen(run: PauseRun, args: ReopenArgs): ReopenResult {
  const pause = run.entry.pause;
  if (pause.resume.leaseOwner !== args.owner || pause.resume.state !== 'resuming') {
    return { kind: 'lost_lease', view: run.view() };
  }
  const callIds: string[] = [];
  for (const index of args.gateIndexes) {
    const gate = run.entry.gates[index - 1];
    if (gate === undefined || gate.record.state !== 'approved') continue;
    const callId = gate.record.confirmationCallId;
    run.sendBack(gate, args.reopened);
    run.audit('reopened', args.owner, callId, args.detail);
    callIds.push(callId);
  }
  if (callIds.length > 0) {
    const { leaseOwner: _owner, leaseUntil: _until, ...resume } = pause.resume;
    pause.resume = resume;
    run.setResume('idle');
    delete run.entry.removeAt;
  }
  return { kind: 'reopened', view: run.view(), callIds };
}
