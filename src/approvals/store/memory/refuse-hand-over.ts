import type { HandOverRefusal } from '../../store-roles/pause-reports.js';
import { handOverRefusedAudit } from '../rules.js';
import type { PauseRun } from './prelude.js';

/**
 * Twin of scripts/refuse-hand-over.lua.ts: a handed-over decision (resume `resumed`) the agent
 * received and did not act on becomes `refused`, with an entry in the trail.
 */
export function refuseHandOver(
  run: PauseRun,
  input: HandOverRefusal,
): 'refused' | 'not_handed_over' {
  const pause = run.entry.pause;
  if (pause.resume.state !== 'resumed') return 'not_handed_over';
  pause.resume = { ...pause.resume, state: 'refused', at: input.at, lastError: input.error };
  pause.version += 1;
  const audit = handOverRefusedAudit(input.actor, input.error, input.at);
  run.audit(audit.event, audit.actor, '', audit.detail);
  return 'refused';
}
