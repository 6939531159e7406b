import { SHORTEST_SEALED_LINE } from '../audit-chain.js';
import { PER_PAUSE_AUDIT_MAX } from '../rules.js';
import { CHAIN_HEAD_FIELD, NO_AUDIT_LIST_FIELD, TRAIL_FIELD, UNSEALED_FIELD } from './fields.js';
import { LUA_HASH_CACHE } from './hash-cache.lua.js';

/**
 * `append_sealed(pause_key, audit_key, new_head, rest, lines, trail)`: moves a pause's chain head
 * to `new_head` and appends `lines` (sealed, oldest first) to its trail, `trail` being the trail
 * as read; `rest` is the bodies left unsealed ('' for none). Writes the pause hash through the
 * script's hash cache (hash-cache.lua.ts). Shared
 * by seal_audit and the transitions that seal their own lines (prelude.lua.ts's offer_seal).
 */
export const LUA_APPEND_SEALED = `
local PER_PAUSE_AUDIT_MAX = ${PER_PAUSE_AUDIT_MAX}
local SHORTEST_SEALED_LINE = ${SHORTEST_SEALED_LINE}
local function append_sealed(pause_key, audit_key, new_head, rest, lines, trail)
  local writes = {'${CHAIN_HEAD_FIELD}', new_head}
  if rest == '' then
    hdel(pause_key, '${UNSEALED_FIELD}')
  else
    writes[3], writes[4] = '${UNSEALED_FIELD}', rest
  end
  -- A pause recorded before the trail moved into its hash keeps it in its list, and so does one
  -- a previous version's replica appended to during a rolling upgrade: its later lines go there.
  if key_type(audit_key) == 'list' then
    hset(pause_key, unpack(writes))
    redis.call('RPUSH', audit_key, unpack(lines))
    redis.call('LTRIM', audit_key, -PER_PAUSE_AUDIT_MAX, -1)
    return
  end
  local text = table.concat(lines, '\\n')
  if trail then trail = trail .. '\\n' .. text else trail = text end
  -- At most PER_PAUSE_AUDIT_MAX lines: the oldest go first. Lines are counted only in a trail
  -- long enough to hold more (each is at least SHORTEST_SEALED_LINE bytes), so that sealing a
  -- line does not cost a pass over the whole trail.
  if #trail > PER_PAUSE_AUDIT_MAX * SHORTEST_SEALED_LINE then
    local _, breaks = string.gsub(trail, '\\n', '')
    while breaks >= PER_PAUSE_AUDIT_MAX do
      trail = string.sub(trail, string.find(trail, '\\n', 1, true) + 1)
      breaks = breaks - 1
    end
  end
  writes[#writes + 1], writes[#writes + 2] = '${TRAIL_FIELD}', trail
  hset(pause_key, unpack(writes))
end
`;

/** `seal_one(pause_key, audit_key, after, new_head, lines)`: seal_audit's compare-and-set on one pause. */
const LUA_SEAL_ONE = `
local function seal_one(PAUSE, AUDIT, after, new_head, lines)
  -- One read: whether the pause is there (every pause holds gateCount), its chain and its trail.
  local f = hmget(PAUSE, {'gateCount', '${CHAIN_HEAD_FIELD}', '${UNSEALED_FIELD}', '${TRAIL_FIELD}',
    '${NO_AUDIT_LIST_FIELD}'})
  if not f[1] and redis.call('EXISTS', PAUSE) == 0 then return {0} end
  if f[5] then key_types[AUDIT] = 'none' end
  local head, unsealed, trail = f[2] or '', f[3] or '', f[4]
  local count = #lines
  -- The bodies sealed are the first count of the unsealed ones: skip past them.
  local rest = unsealed
  for i = 1, count do
    if rest == nil then break end
    local at = string.find(rest, '\\n', 1, true)
    if at then rest = string.sub(rest, at + 1) elseif i == count then rest = '' else rest = nil end
  end
  if head ~= after or rest == nil or count == 0 then return {2, head, unsealed} end
  append_sealed(PAUSE, AUDIT, new_head, rest, lines, trail)
  return {1}
end
`;

/**
 * seal_audit: moves the first `count` of a pause's unsealed chain line bodies into its trail as
 * the sealed lines Node computed for them (audit-chain.ts), if the chain head is still the one
 * Node sealed them after: a compare-and-set, so that two replicas sealing the same bodies at
 * once write them once. Bodies appended since Node read them stay unsealed, in order.
 * KEYS: [1] pause hash, [2] pause audit list (the trail of a pause recorded before the trail
 *   moved into the pause hash, where its later lines go too)
 * ARGV: [1] the chain head the lines were sealed after ('' for none yet), [2] the new head,
 *   [3..] the sealed lines, oldest first
 * Returns {1} (sealed) | {0} (no such pause) | {2, head, unsealed bodies} (the head moved or
 *   the bodies are not the ones sealed: the chain as it stands, to seal again)
 */
export const SEAL_AUDIT_LUA = `
${LUA_HASH_CACHE}
${LUA_APPEND_SEALED}
${LUA_SEAL_ONE}
local sealed = seal_one(KEYS[1], KEYS[2], ARGV[1], ARGV[2], {unpack(ARGV, 3)})
flush_hashes()
return sealed
`;

/**
 * seal_audits: seal_audit on many pauses in one call (a single Redis: all keys on one node),
 * each a compare-and-set of its own.
 * KEYS: each pause's [pause hash, audit list], in turn
 * ARGV: per pause: its line count n, the head the lines follow, the new head, its n lines
 * Returns one seal_audit reply per pause, in order.
 */
export const SEAL_AUDITS_LUA = `
${LUA_HASH_CACHE}
${LUA_APPEND_SEALED}
${LUA_SEAL_ONE}
local replies = {}
local a = 1
for k = 1, #KEYS, 2 do
  local count = tonumber(ARGV[a])
  local lines = {}
  for j = 1, count do lines[j] = ARGV[a + 2 + j] end
  replies[#replies + 1] = seal_one(KEYS[k], KEYS[k + 1], ARGV[a + 1], ARGV[a + 2], lines)
  a = a + 3 + count
end
flush_hashes()
return replies
`;
