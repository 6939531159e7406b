import { luaCodeTable } from './codes.js';

/**
 * started_run_update: changes a started run unless it has ended (an ended run stays as it
 * ended: a late "done" never overwrites "cancelled"), and renews its time to live.
 * KEYS: [1] the run hash
 * ARGV: [1] time to live (ms), [2] space-separated ended statuses, [3..] field, value pairs
 * Returns OK (written) | UNCHANGED (ended) | NOT_FOUND
 */
export const STARTED_RUN_UPDATE_LUA = `${luaCodeTable()}
local key = KEYS[1]
local status = redis.call('HGET', key, 'status')
if not status then return CODE.NOT_FOUND end
if string.find(' ' .. ARGV[2] .. ' ', ' ' .. status .. ' ', 1, true) then return CODE.UNCHANGED end
if #ARGV > 2 then redis.call('HSET', key, unpack(ARGV, 3)) end
redis.call('PEXPIRE', key, ARGV[1])
return CODE.OK
`;

/**
 * started_run_pause: notes a pause the run met, once, oldest first.
 * KEYS: [1] the run hash  ARGV: [1] pause id
 * Returns OK | UNCHANGED (already noted) | NOT_FOUND
 */
export const STARTED_RUN_PAUSE_LUA = `${luaCodeTable()}
local key = KEYS[1]
if redis.call('EXISTS', key) == 0 then return CODE.NOT_FOUND end
local pauses = redis.call('HGET', key, 'pauses') or ''
if string.find(' ' .. pauses .. ' ', ' ' .. ARGV[1] .. ' ', 1, true) then return CODE.UNCHANGED end
if pauses == '' then pauses = ARGV[1] else pauses = pauses .. ' ' .. ARGV[1] end
redis.call('HSET', key, 'pauses', pauses)
return CODE.OK
`;

/**
 * compare_and_delete: deletes a string key only while it holds the given value.
 * KEYS: [1] the key  ARGV: [1] the value  Returns 1 (deleted) | 0
 */
export const COMPARE_AND_DELETE_LUA = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`;
