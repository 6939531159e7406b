import { PAUSE_PRELUDE } from './prelude.lua.js';

/**
 * finish_resume: records how a resume ended, only for the current lease owner. The same call
 * repeated by that owner is answered OK again (a retried request), without a second entry.
 * KEYS: [1] pause hash, [2] pause audit list, [3..] gate hashes in callIds order
 * ARGV: [1] now, [2] owner, [3] 'resumed' | 'failed' | 'refused' (FINISH_EVENT's keys),
 *       [4] retention ms, [5] error text or '',
 *       [6] audit detail
 * Returns OK {the lease's leaseUntil} | LOST_LEASE | NOT_FOUND | CORRUPT | KEYS_MISMATCH
 */
export const FINISH_RESUME_LUA = `${PAUSE_PRELUDE}
local pause, gates = load()
if not pause then return gates end
local owner, outcome = ARGV[2], ARGV[3]
local lease_until = tostring(pause.lease_until or '')
if pause.lease_owner ~= owner then return reply(CODE.LOST_LEASE) end
if pause.resume_state == outcome then return reply(CODE.OK, {lease_until}) end
if pause.resume_state ~= RESUME.resuming then return reply(CODE.LOST_LEASE) end
redis.call('HSET', PAUSE, 'resumeState', outcome, 'resumeAt', NOW)
if outcome ~= RESUME.resumed then redis.call('HSET', PAUSE, 'lastError', ARGV[5]) end
bump(PAUSE)
audit(FINISH_EVENT[outcome], owner, nil, ARGV[6])
retain(ARGV[4])
return reply(CODE.OK, {lease_until})
`;
