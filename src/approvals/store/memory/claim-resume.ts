import type { ClaimResult } from '../../store-roles/resume-leases.js';
import { claimDetail, FINISHED_RESUME_STATES } from '../rules.js';
import type { ClaimResumeArgs } from '../scripts/claim-resume.lua.js';
import type { PauseRun } from './prelude.js';

/**
 * Twin of scripts/claim-resume.lua.ts: takes the lease to resume a fully decided pause. A lapsed
 * lease may be taken over; a failed resume is claimed again only by a Retry.
 */
export function claimResume(run: PauseRun, args: ClaimResumeArgs): ClaimResult {
  const pause = run.entry.pause;
  const resume = pause.resume;
  const state = resume.state;
  if (FINISHED_RESUME_STATES.some((finished) => finished === state)) {
    return { kind: 'finished', view: run.view() };
  }
  if (run.pending() > 0) return { kind: 'not_decided', view: run.view() };
  if (state === 'failed' && !args.retryFailed) return { kind: 'awaiting_retry', view: run.view() };
  const { holdUntil } = resume;
  if (state === 'idle' && holdUntil !== undefined && run.now < holdUntil) {
    return { kind: 'held', view: run.view(), until: holdUntil };
  }
  if (state === 'resuming' && resume.leaseUntil !== undefined && resume.leaseUntil > run.now) {
    return { kind: 'leased', view: run.view(), leaseUntil: resume.leaseUntil };
  }
  const attempt = resume.attempts + 1;
  const tookOverFrom = state === 'resuming' ? resume.leaseOwner : undefined;
  // A failed pause was set to expire with the retention; a retry makes it live again.
  if (state === 'failed') run.entry.removeAt = undefined;
  pause.resume = {
    ...resume,
    state: 'resuming',
    at: run.now,
    leaseOwner: args.owner,
    leaseUntil: args.leaseUntil,
    attempts: attempt,
  };
  pause.version += 1;
  run.audit(
    'resume_claimed',
    args.owner,
    '',
    claimDetail({ attempt, leaseMs: args.leaseMs, tookOverFrom }),
  );
  return { kind: 'claimed', view: run.view(), attempt, retried: state === 'failed' };
}
