import { CHAIN_HEAD_FIELD, UNSEALED_FIELD } from './fields.js';
import { LUA_HASH_CACHE } from './hash-cache.lua.js';

/**
 * `move_chain_head(pause_key, new_head, rest)`: moves a pause's chain head to `new_head`, past
 * the bodies Node sealed; `rest` is the bodies left unsealed ('' for none). The sealed lines
 * themselves are not written here: each line is kept once, in the store-wide audit stream,
 * where Node copies it after the call (redis-audit-mirror.ts). Writes the pause hash through the
 * script's hash cache (hash-cache.lua.ts). Shared by seal_audit and the transitions that seal
 * their own lines (prelude.lua.ts's offer_seal).
 */
export const LUA_MOVE_CHAIN_HEAD = `
local function move_chain_head(pause_key, new_head, rest)
  if rest == '' then
    hset(pause_key, '${CHAIN_HEAD_FIELD}', new_head)
    hdel(pause_key, '${UNSEALED_FIELD}')
  else
    hset(pause_key, '${CHAIN_HEAD_FIELD}', new_head, '${UNSEALED_FIELD}', rest)
  end
end
`;

/** `seal_one(pause_key, after, new_head, count)`: seal_audit's compare-and-set on one pause. */
const LUA_SEAL_ONE = `
local function seal_one(PAUSE, after, new_head, count)
  -- One read: whether the pause is there (every pause holds gateCount) and its chain.
  local f = hmget(PAUSE, {'gateCount', '${CHAIN_HEAD_FIELD}', '${UNSEALED_FIELD}'})
  if not f[1] and redis.call('EXISTS', PAUSE) == 0 then return {0} end
  local head, unsealed = f[2] or '', f[3] or ''
  -- The bodies sealed are the first count of the unsealed ones: skip past them.
  local rest = unsealed
  for i = 1, count do
    if rest == nil then break end
    local at = string.find(rest, '\\n', 1, true)
    if at then rest = string.sub(rest, at + 1) elseif i == count then rest = '' else rest = nil end
  end
  if head ~= after or rest == nil or count == 0 then return {2, head, unsealed} end
  move_chain_head(PAUSE, new_head, rest)
  return {1}
end
`;

/**
 * seal_audit: marks the first `count` of a pause's unsealed chain line bodies sealed, Node having
 * computed their lines (audit-chain.ts), if the chain head is still the one Node sealed them
 * after: a compare-and-set, so that of two replicas sealing the same bodies at once one does,
 * and copies the lines to the store-wide audit. Bodies appended since Node read them stay
 * unsealed, in order.
 * KEYS: [1] pause hash
 * ARGV: [1] the chain head the lines were sealed after ('' for none yet), [2] the new head,
 *   [3] how many bodies they seal
 * Returns {1} (sealed) | {0} (no such pause) | {2, head, unsealed bodies} (the head moved or
 *   the bodies are not the ones sealed: the chain as it stands, to seal again)
 */
export const SEAL_AUDIT_LUA = `
${LUA_HASH_CACHE}
${LUA_MOVE_CHAIN_HEAD}
${LUA_SEAL_ONE}
local sealed = seal_one(KEYS[1], ARGV[1], ARGV[2], tonumber(ARGV[3]))
flush_hashes()
return sealed
`;

/**
 * seal_audits: seal_audit on many pauses in one call (a single Redis: all keys on one node),
 * each a compare-and-set of its own.
 * KEYS: each pause's hash, in turn
 * ARGV: per pause: the head its lines follow, the new head, how many bodies they seal
 * Returns one seal_audit reply per pause, in order.
 */
export const SEAL_AUDITS_LUA = `
${LUA_HASH_CACHE}
${LUA_MOVE_CHAIN_HEAD}
${LUA_SEAL_ONE}
local replies = {}
for k = 1, #KEYS do
  local a = 3 * k - 2
  replies[k] = seal_one(KEYS[k], ARGV[a], ARGV[a + 1], tonumber(ARGV[a + 2]))
end
flush_hashes()
return replies
`;
