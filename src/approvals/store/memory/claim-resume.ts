import { isFinishedResume } from '../../records.js';
import type { ClaimResult } from '../../store-roles/resume-leases.js';
import { claimDetail } from '../rules.js';
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
  if (isFinishedResume(state)) {
    return { kind: 'finished', view: run.view() };
  }
  if (run.pending() > 0) return { kind: 'not_decided', view: run.view() };
  if (state === 'failed' && !args.retryFailed) return { kind: 'awaiting_retry', view: run.view() };
  const holdUntil = run.heldUntil();
  if (holdUntil !== undefined) return { kind: 'held', view: run.view(), until: holdUntil };
  if (state === 'resuming' && resume.leaseUntil !== undefined && resume.leaseUntil > run.now) {
    return { kind: 'leased', view: run.view(), leaseUntil: resume.leaseUntil };
  }
  // A failed pause was set to expire with the retention; a retry makes it live again.
  if (state === 'failed') run.entry.removeAt = undefined;
  const attempt = takeLease(run, args);
  return { kind: 'claimed', view: run.view(), attempt, retried: state === 'failed' };
}

/**
 * Twin of take_lease (claim-resume.lua.ts): the resume is `owner`'s until `leaseUntil`, one
 * attempt more, with its audit entry; returns the attempt.
 */
export function takeLease(
  run: PauseRun,
  lease: { owner: string; leaseUntil: number; leaseMs: number },
): number {
  const pause = run.entry.pause;
  const resume = pause.resume;
  const attempt = resume.attempts + 1;
  const tookOverFrom = resume.state === 'resuming' ? resume.leaseOwner : undefined;
  pause.resume = {
    ...resume,
    state: 'resuming',
    at: run.now,
    leaseOwner: lease.owner,
    leaseUntil: lease.leaseUntil,
    attempts: attempt,
  };
  pause.version += 1;
  run.audit(
    'resume_claimed',
    lease.owner,
    '',
    claimDetail({ attempt, leaseMs: lease.leaseMs, tookOverFrom }),
  );
  return attempt;
}
