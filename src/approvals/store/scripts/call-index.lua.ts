import { luaCodeTable } from './codes.js';

/**
 * call_index: keeps a call-id index entry in step with its pause (retention TTL, lifted on a
 * retry, or deleted when stale), only while the entry names that pause: a newer pause with the
 * same call id owns it otherwise.
 * KEYS: [1] call-id key
 * ARGV: [1] pause id, [2] 'expire' | 'persist' | 'delete', [3] ttl ms (for 'expire')
 * Returns OK | UNCHANGED (the entry names another pause, or is gone)
 */
export const CALL_INDEX_LUA = `${luaCodeTable()}
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return CODE.UNCHANGED end
if ARGV[2] == 'expire' then
  redis.call('PEXPIRE', KEYS[1], ARGV[3])
elseif ARGV[2] == 'persist' then
  redis.call('PERSIST', KEYS[1])
else
  redis.call('DEL', KEYS[1])
end
return CODE.OK
`;
