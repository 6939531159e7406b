import { luaInitiatorOf, luaWriteChainBody } from '../audit-chain.js';
import { CHAIN_HEAD_FIELD, UNSEALED_FIELD } from './fields.js';
import { LUA_HASH_CACHE } from './hash-cache.lua.js';

/**
 * add_note: records a fact about a pause that is not a transition (an outcome the agent
 * reported, a webhook delivery attempt) beside it, with an entry in its trail, atomically.
 * KEYS: [1] pause hash (holds the chain), [2] pause notes hash
 * ARGV: [1] note field, [2] note JSON, [3] audit entry JSON (strings: at, event, actor, detail),
 *       [4] retention ms, [5] call id the note is about ('' for none)
 * Returns {1, chain head, unsealed bodies} (recorded: the entry's body is the last of them, for
 *   Node to seal; audit-chain.ts) | {0} (no such pause) | {-1} (the pause has no gate with that
 *   call id)
 *
 * The notes hash expires `retention` after its last write: notes are written after the
 * decision, so they outlive the pause (which expires `retention` after it finished) by little.
 */
export const ADD_NOTE_LUA = `
${luaInitiatorOf()}
${LUA_HASH_CACHE}
${luaWriteChainBody()}
if redis.call('EXISTS', KEYS[1]) == 0 then return {0} end
if ARGV[5] ~= '' then
  local record = cjson.decode(hget(KEYS[1], 'record'))
  local found = false
  for _, id in ipairs(record.callIds) do
    if id == ARGV[5] then found = true end
  end
  if not found then return {-1} end
end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
redis.call('PEXPIRE', KEYS[2], ARGV[4])
local entry = cjson.decode(ARGV[3])
write_chain_body(KEYS[1], string.match(KEYS[1], '{(.-)}'), tonumber(entry.at),
  entry.event, entry.actor, ARGV[5], entry.detail or '', nil)
flush_hashes()
local chain = hmget(KEYS[1], {'${CHAIN_HEAD_FIELD}', '${UNSEALED_FIELD}'})
return {1, chain[1] or '', chain[2] or ''}
`;
