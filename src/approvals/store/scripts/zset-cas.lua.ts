import { luaCodeTable } from './codes.js';

/**
 * zset_cas: moves or removes a sorted-set member only while its score is still the one the
 * caller read, so that an index clean-up never undoes a newer transition's update.
 * KEYS: [1] sorted set
 * ARGV: [1] member, [2] expected score, [3] new score, or '' to remove the member
 * Returns OK (changed) | UNCHANGED (the member moved or is gone)
 */
export const ZSET_CAS_LUA = `${luaCodeTable()}
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not score or tonumber(score) ~= tonumber(ARGV[2]) then return CODE.UNCHANGED end
if ARGV[3] == '' then
  redis.call('ZREM', KEYS[1], ARGV[1])
else
  redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
end
return CODE.OK
`;
