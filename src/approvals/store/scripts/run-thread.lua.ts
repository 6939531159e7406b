import { luaCodeTable } from './codes.js';

/**
 * run_thread: one write to a run thread's record, and its time to live renewed with it. A write
 * that needs an earlier one (a status needs the root, a pause needs the session) names that field
 * as its guard and changes nothing while it is missing, so that a stray write makes no half
 * record.
 * KEYS: [1] the run thread hash
 * ARGV: [1] guard field, or '' for none, [2] time to live (ms), [3..] field, value pairs
 * Returns {OK, the guard field's value or ''} (written: a status is redrawn with the root it
 *   guards, read with it) | {UNCHANGED, ''} (the guard field is missing)
 */
export const RUN_THREAD_LUA = `${luaCodeTable()}
local key = KEYS[1]
local guarded = ''
if ARGV[1] ~= '' then
  guarded = redis.call('HGET', key, ARGV[1])
  if not guarded then return {CODE.UNCHANGED, ''} end
end
if #ARGV > 2 then redis.call('HSET', key, unpack(ARGV, 3)) end
redis.call('PEXPIRE', key, ARGV[2])
return {CODE.OK, guarded}
`;
