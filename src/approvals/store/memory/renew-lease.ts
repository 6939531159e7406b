import type { RenewLeaseResult } from '../../store-roles/resume-leases.js';
import type { RenewLeaseArgs } from '../scripts/renew-lease.lua.js';
import type { PauseRun } from './prelude.js';

/** Twin of scripts/renew-lease.lua.ts: the lease's owner extends it while the resume streams. */
export function renewLease(run: PauseRun, args: RenewLeaseArgs): RenewLeaseResult {
  const { owner, leaseUntil } = args;
  const resume = run.entry.pause.resume;
  if (resume.state !== 'resuming' || resume.leaseOwner !== owner) return { kind: 'lost_lease' };
  run.entry.pause.resume = { ...resume, leaseUntil };
  return { kind: 'renewed', leaseUntil };
}
