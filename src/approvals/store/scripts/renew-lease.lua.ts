import { PAUSE_PRELUDE } from './prelude.lua.js';

/**
 * renew_lease: the owner of a resume's lease extends it while the resume streams (a heartbeat),
 * so that leases can be short and a dead replica's resume is taken over within seconds. Only
 * the current owner may renew, even after its lease lapsed, as long as nobody took over. No
 * version bump and no audit entry: nothing a card or a person sees has changed.
 * KEYS: [1] pause hash, [2] pause audit list, [3..] gate hashes in callIds order
 * ARGV: [1] now, [2] owner, [3] new lease end (ms)
 * Returns OK {leaseUntil} | LOST_LEASE | NOT_FOUND | CORRUPT | KEYS_MISMATCH
 */
export const RENEW_LEASE_LUA = `${PAUSE_PRELUDE}
local pause, gates = load()
if not pause then return gates end
if pause.resume_state ~= RESUME.resuming or pause.lease_owner ~= ARGV[2] then
  return reply(CODE.LOST_LEASE)
end
redis.call('HSET', PAUSE, 'leaseUntil', ARGV[3])
return reply(CODE.OK, {ARGV[3]})
`;
