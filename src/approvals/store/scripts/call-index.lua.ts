import { luaCodeTable } from './codes.js';

/**
 * call_index: keeps call-id index entries in step with their pauses (retention TTL, lifted on a
 * retry, or deleted when stale), each only while it names its pause: a newer pause with the same
 * call id owns it otherwise. Several entries in one call on one Redis (a Cluster's keys are in
 * many slots: one call each there).
 * KEYS: call-id keys
 * ARGV: [1] 'expire' | 'persist' | 'delete', [2] ttl ms (for 'expire'), [3..] the pause id each
 *   key must name, in KEYS order
 * Returns OK
 */
export const CALL_INDEX_LUA = `${luaCodeTable()}
for i, key in ipairs(KEYS) do
  if redis.call('GET', key) == ARGV[i + 2] then
    if ARGV[1] == 'expire' then
      redis.call('PEXPIRE', key, ARGV[2])
    elseif ARGV[1] == 'persist' then
      redis.call('PERSIST', key)
    else
      redis.call('DEL', key)
    end
  end
end
return CODE.OK
`;
