import { luaInitiatorOf, luaWriteChainBody } from '../audit-chain.js';
import { CHAIN_HEAD_FIELD, UNSEALED_FIELD } from './fields.js';
import { LUA_HASH_CACHE } from './hash-cache.lua.js';

/**
 * refuse_hand_over: a decision handed to the agent (poll, webhook: the resume is `resumed` once
 * handed over) that the agent received and did not act on. The resume becomes `refused` with
 * the agent's words, and the pause's trail gets an entry, atomically. Only from `resumed`: a
 * hand-over not yet marked is left to look for the agent's report once it is.
 * KEYS: [1] pause hash (holds the chain)
 * ARGV: [1] error text, [2] audit entry JSON (strings: at, event, actor, detail)
 * Returns {1, chain head, unsealed bodies} (refused: the entry's body is the last of them, for
 *   Node to seal; audit-chain.ts) | {0} (no such pause) | {-1} (the resume is not `resumed`)
 */
export const REFUSE_HAND_OVER_LUA = `
${luaInitiatorOf()}
${LUA_HASH_CACHE}
${luaWriteChainBody()}
local state = hget(KEYS[1], 'resumeState')
if not state then return {0} end
if state ~= 'resumed' then return {-1} end
local entry = cjson.decode(ARGV[2])
hset(KEYS[1], 'resumeState', 'refused', 'resumeAt', entry.at, 'lastError', ARGV[1])
hincrby(KEYS[1], 'version', 1)
write_chain_body(KEYS[1], string.match(KEYS[1], '{(.-)}'), tonumber(entry.at),
  entry.event, entry.actor, '', entry.detail or '', nil)
flush_hashes()
local chain = hmget(KEYS[1], {'${CHAIN_HEAD_FIELD}', '${UNSEALED_FIELD}'})
return {1, chain[1] or '', chain[2] or ''}
`;
