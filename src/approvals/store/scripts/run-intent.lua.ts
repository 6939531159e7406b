/**
 * run_intent: the lease of an accepted `/agent` run, on its one intent hash (one Cluster slot).
 * The replica running it renews the lease and records progress; once the lease lapses, one
 * other replica claims it to tell the requester what happened. A claim or a finish by anyone
 * but the owner changes nothing.
 * KEYS: [1] the run's intent hash
 * ARGV: [1] op: advance | finish | claim, [2] now, [3] owner, [4] new lease end (ms),
 *       [5..] (advance) field, value pairs of progress
 * Returns advance: 1 renewed | 0 lost (gone, or another owner)
 *         finish:  1 removed | 0 not the owner's
 *         claim:   the hash as field, value pairs (claimed) | {'held', leaseUntil} | {} (gone)
 */
export const RUN_INTENT_LUA = `
local key, op, now, owner, until_ = KEYS[1], ARGV[1], tonumber(ARGV[2]), ARGV[3], ARGV[4]
local current = redis.call('HGET', key, 'owner')
if op == 'advance' then
  if current ~= owner then return 0 end
  redis.call('HSET', key, 'leaseUntil', until_)
  for i = 5, #ARGV, 2 do redis.call('HSET', key, ARGV[i], ARGV[i + 1]) end
  return 1
elseif op == 'finish' then
  if current ~= owner then return 0 end
  redis.call('DEL', key)
  return 1
elseif op == 'claim' then
  if not current then return {} end
  local lease = tonumber(redis.call('HGET', key, 'leaseUntil'))
  if lease and lease > now then return {'held', tostring(lease)} end
  redis.call('HSET', key, 'owner', owner, 'leaseUntil', until_)
  return redis.call('HGETALL', key)
end
return redis.error_reply('run_intent: unknown op ' .. tostring(op))
`;
