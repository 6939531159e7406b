import type { FinishResult } from '../../store-roles/resume-leases.js';
import { FINISH_EVENT } from '../rules.js';
import type { FinishResumeArgs } from '../scripts/finish-resume.lua.js';
import type { PauseRun } from './prelude.js';

/**
 * Twin of scripts/finish-resume.lua.ts: records how a resume ended, only for the current lease
 * owner. The same call repeated by that owner is answered `ok` again, without a second entry.
 */
export function finishResume(run: PauseRun, args: FinishResumeArgs): FinishResult {
  const pause = run.entry.pause;
  const { owner, outcome } = args;
  if (pause.resume.leaseOwner !== owner) return { kind: 'lost_lease', view: run.view() };
  if (pause.resume.state === outcome) return { kind: 'ok', view: run.view() };
  if (pause.resume.state !== 'resuming') return { kind: 'lost_lease', view: run.view() };
  pause.resume = { ...pause.resume, state: outcome, at: run.now };
  if (outcome !== 'resumed') pause.resume.lastError = args.error;
  pause.version += 1;
  run.audit(FINISH_EVENT[outcome], owner, '', args.detail);
  run.retain(args.retentionMs);
  return { kind: 'ok', view: run.view() };
}
