import type { Reopened } from '../../records.js';
import { type ArgsOf, arg, PauseScript } from './pause-script.js';

const UNDO_ARGS = {
  now: arg.number,
  /** Who undoes. */
  by: arg.text(),
  /** An admin: any approval, not only their own. */
  any: arg.flag,
  /** The gates' `reopened`. */
  reopened: arg.json<Reopened>(),
  /** The audit detail. */
  detail: arg.text(),
};
export type UndoArgs = ArgsOf<typeof UNDO_ARGS>;

/**
 * undo: within a pause's undo window (its resume held until `holdUntil`, not yet claimed), the
 * person who approved a gate, or an admin, takes the approval back: the gate goes back to
 * pending with its votes cleared, and the hold ends; nothing was sent to the agent.
 * KEYS: [1] pause hash, [2] pause audit list, [3..] gate hashes in callIds order
 * ARGV: UNDO_ARGS, in that order
 * Returns UNDONE {call ids...} | TOO_LATE | NOT_DECIDER | NOT_FOUND | CORRUPT | KEYS_MISMATCH
 */
export const UNDO = new PauseScript(
  'undo',
  UNDO_ARGS,
  {
    body: `
local pause, gates = load()
if not pause then return gates end
if not held_until(pause) then return reply(CODE.TOO_LATE) end
local undone = {}
for _, gate in ipairs(gates) do
  if gate.state == STATE.approved then
    local ok, decision = pcall(cjson.decode, hget(gate.key, 'decision') or '')
    if args.any or (ok and type(decision) == 'table' and decision.by == args.by) then
      send_back(pause, gate, args.reopened)
      audit(EVENT.undone, args.by, gate, args.detail)
      undone[#undone + 1] = gate.call_id
    end
  end
end
if #undone == 0 then return reply(CODE.NOT_DECIDER) end
hdel(PAUSE, 'holdUntil')
bump(PAUSE)
return reply(CODE.UNDONE, undone)
`,
  },
  ({ code }) => code,
);
