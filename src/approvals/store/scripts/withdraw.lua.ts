import type { GateDecision } from '../../records.js';
import { type ArgsOf, arg, PauseScript } from './pause-script.js';

const WITHDRAW_ARGS = {
  now: arg.number,
  /** Who withdraws. */
  by: arg.text(),
  decision: arg.json<GateDecision>(),
  /** The audit detail. */
  detail: arg.text(),
};
export type WithdrawArgs = ArgsOf<typeof WITHDRAW_ARGS>;

/**
 * withdraw: the requester calls a pause off. Every pending gate becomes `withdrawn` (decided
 * gates keep their decision), so the pause is decided and its resume comes due: the agent is
 * told, unlike a cancel, which abandons the pause.
 * KEYS: [1] pause hash, [2] pause audit list, [3..] gate hashes in callIds order
 * ARGV: WITHDRAW_ARGS, in that order
 * Returns WITHDRAWN {call ids withdrawn...} | NOTHING_PENDING | NOT_FOUND | CORRUPT | KEYS_MISMATCH
 */
export const WITHDRAW = new PauseScript(
  'withdraw',
  WITHDRAW_ARGS,
  {
    body: `
local pause, gates = load()
if not pause then return gates end
if pause.pending == 0 then return reply(CODE.NOTHING_PENDING) end
local withdrawn = {}
for _, gate in ipairs(gates) do
  if gate.state == STATE.pending then
    decide(pause, gate, STATE.withdrawn, args.decision, false)
    audit(EVENT.withdrawn, args.by, gate, args.detail)
    withdrawn[#withdrawn + 1] = gate.call_id
  end
end
return reply(CODE.WITHDRAWN, withdrawn)
`,
  },
  ({ code }) => code,
);
