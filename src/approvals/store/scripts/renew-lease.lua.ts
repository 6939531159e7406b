import { type ArgsOf, arg, PauseScript } from './pause-script.js';

const RENEW_LEASE_ARGS = {
  now: arg.number,
  owner: arg.text(),
  /** The lease's new end (ms). */
  leaseUntil: arg.number,
};
export type RenewLeaseArgs = ArgsOf<typeof RENEW_LEASE_ARGS>;

/**
 * renew_lease: the owner of a resume's lease extends it while the resume streams (a heartbeat),
 * so that leases can be short and a dead replica's resume is taken over within seconds. Only
 * the current owner may renew, even after its lease lapsed, as long as nobody took over. No
 * version bump and no audit entry: nothing a card or a person sees has changed.
 * KEYS: [1] pause hash, [2] pause audit list, [3..] gate hashes in callIds order
 * ARGV: RENEW_LEASE_ARGS, in that order
 * Returns OK {leaseUntil} | LOST_LEASE | NOT_FOUND | CORRUPT | KEYS_MISMATCH
 */
export const RENEW_LEASE = new PauseScript(
  'renew_lease',
  RENEW_LEASE_ARGS,
  {
    body: `
local pause, gates = load()
if not pause then return gates end
if pause.resume_state ~= RESUME.resuming or pause.lease_owner ~= args.owner then
  return reply(CODE.LOST_LEASE)
end
hset(PAUSE, 'leaseUntil', args.leaseUntil)
return reply(CODE.OK, {tostring(args.leaseUntil)})
`,
  },
  ({ code }) => code,
);
