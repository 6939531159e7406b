import { type GateDecision, type GateState, gateStateSchema } from '../../records.js';
import { StoreError } from '../../store.js';
import { type ArgsOf, arg, PauseScript } from './pause-script.js';

const EXPIRE_GATE_ARGS = {
  now: arg.number,
  /** 1-based, in callIds order. */
  gateIndex: arg.number,
  /** The expiry's decision. */
  decision: arg.json<GateDecision>(),
  /** Applies if the expiry abandons the pause. */
  retentionMs: arg.number,
};
export type ExpireGateArgs = ArgsOf<typeof EXPIRE_GATE_ARGS>;

/** What expire_gate replies beyond NOT_FOUND, and what its memory twin returns. */
export type ExpireGateReply =
  | { code: 'EXPIRED'; state: GateState; pauseDecided: boolean }
  | { code: 'NOT_DUE'; expiresAt: number }
  | { code: 'NOT_PENDING' };

/**
 * expire_gate: applies a gate's expiry outcome if it is still pending and due. Any number of
 * sweepers may call it for the same gate; the state check makes exactly one of them expire it.
 * KEYS: [1] pause hash, [2] pause audit list, [3..] gate hashes in callIds order
 * ARGV: EXPIRE_GATE_ARGS, in that order
 * Returns EXPIRED {state, pauseDecided '1'|'0'} | NOT_DUE {expiresAt} | NOT_PENDING (decided, or
 *   never expires) | NOT_FOUND | CORRUPT | KEYS_MISMATCH
 */
export const EXPIRE_GATE = new PauseScript(
  'expire_gate',
  EXPIRE_GATE_ARGS,
  {
    body: `
local pause, gates = load()
if not pause then return gates end
local gate = gates[args.gateIndex]
if gate.state ~= STATE.pending or gate.expires_at == nil then return reply(CODE.NOT_PENDING) end
if not is_due(gate) then return reply(CODE.NOT_DUE, {tostring(gate.expires_at)}) end
local state = expire(pause, gates, gate, args.decision, args.retentionMs)
return reply(CODE.EXPIRED, {state, pause_decided(pause)})
`,
  },
  ({ code, info }): ExpireGateReply => {
    switch (code) {
      case 'EXPIRED':
        return { code, state: gateStateSchema.parse(info[0]), pauseDecided: info[1] === '1' };
      case 'NOT_DUE':
        return { code, expiresAt: Number(info[0]) };
      case 'NOT_PENDING':
        return { code };
      default:
        throw new StoreError(
          'script',
          `script expire_gate answered ${code}, which it never should`,
        );
    }
  },
);
