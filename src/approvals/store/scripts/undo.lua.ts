import { PAUSE_PRELUDE } from './prelude.lua.js';

/**
 * undo: within a pause's undo window (its resume held until `holdUntil`, not yet claimed), the
 * person who approved a gate, or an admin, takes the approval back: the gate goes back to
 * pending with its votes cleared, and the hold ends; nothing was sent to the agent.
 * KEYS: [1] pause hash, [2] pause audit list, [3..] gate hashes in callIds order
 * ARGV: [1] now, [2] who undoes, [3] '1' for an admin (any approval), else '0' (their own),
 *       [4] the gates' `reopened` as JSON, [5] audit detail
 * Returns UNDONE {call ids...} | TOO_LATE | NOT_DECIDER | NOT_FOUND | CORRUPT | KEYS_MISMATCH
 */
export const UNDO_LUA = `${PAUSE_PRELUDE}
local pause, gates = load()
if not pause then return gates end
local hold_until = tonumber(redis.call('HGET', PAUSE, 'holdUntil') or '')
if pause.resume_state ~= RESUME.idle or not hold_until or NOW_MS >= hold_until then
  return reply(CODE.TOO_LATE)
end
local undone = {}
for _, gate in ipairs(gates) do
  if gate.state == STATE.approved then
    local ok, decision = pcall(cjson.decode, redis.call('HGET', gate.key, 'decision') or '')
    if ARGV[3] == '1' or (ok and type(decision) == 'table' and decision.by == ARGV[2]) then
      send_back(pause, gate, ARGV[4])
      audit(EVENT.undone, ARGV[2], gate, ARGV[5])
      undone[#undone + 1] = gate.call_id
    end
  end
end
if #undone == 0 then return reply(CODE.NOT_DECIDER) end
redis.call('HDEL', PAUSE, 'holdUntil')
bump(PAUSE)
return reply(CODE.UNDONE, undone)
`;
