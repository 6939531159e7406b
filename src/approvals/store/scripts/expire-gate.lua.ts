import { PAUSE_PRELUDE } from './prelude.lua.js';

/**
 * expire_gate: applies a gate's expiry outcome if it is still pending and due. Any number of
 * sweepers may call it for the same gate; the state check makes exactly one of them expire it.
 * KEYS: [1] pause hash, [2] pause audit list, [3..] gate hashes in callIds order
 * ARGV: [1] now, [2] gate index (1-based), [3] the expiry decision as JSON, [4] retention ms
 * Returns EXPIRED {state, pauseDecided '1'|'0'} | NOT_DUE {expiresAt} | NOT_PENDING (decided, or
 *   never expires) | NOT_FOUND | CORRUPT | KEYS_MISMATCH
 */
export const EXPIRE_GATE_LUA = `${PAUSE_PRELUDE}
local pause, gates = load()
if not pause then return gates end
local gate = gates[tonumber(ARGV[2])]
if gate.state ~= STATE.pending or gate.expires_at == nil then return reply(CODE.NOT_PENDING) end
if not is_due(gate) then return reply(CODE.NOT_DUE, {tostring(gate.expires_at)}) end
local state = expire(pause, gates, gate, ARGV[3], ARGV[4])
return reply(CODE.EXPIRED, {state, pause_decided(pause)})
`;
