import { PAUSE_PRELUDE } from './prelude.lua.js';

/**
 * withdraw: the requester calls a pause off. Every pending gate becomes `withdrawn` (decided
 * gates keep their decision), so the pause is decided and its resume comes due: the agent is
 * told, unlike a cancel, which abandons the pause.
 * KEYS: [1] pause hash, [2] pause audit list, [3..] gate hashes in callIds order
 * ARGV: [1] now, [2] who withdraws, [3] the decision as JSON {by, at, reason?}, [4] audit detail
 * Returns WITHDRAWN {call ids withdrawn...} | NOTHING_PENDING | NOT_FOUND | CORRUPT | KEYS_MISMATCH
 */
export const WITHDRAW_LUA = `${PAUSE_PRELUDE}
local pause, gates = load()
if not pause then return gates end
if pause.pending == 0 then return reply(CODE.NOTHING_PENDING) end
local withdrawn = {}
for _, gate in ipairs(gates) do
  if gate.state == STATE.pending then
    decide(pause, gate, STATE.withdrawn, ARGV[3], false)
    audit(EVENT.withdrawn, ARGV[2], gate, ARGV[4])
    withdrawn[#withdrawn + 1] = gate.call_id
  end
end
return reply(CODE.WITHDRAWN, withdrawn)
`;
