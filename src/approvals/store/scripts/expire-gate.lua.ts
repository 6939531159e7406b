import { type GateDecision, type GateState, gateStateSchema, SYSTEM_ACTOR } from '../../records.js';
import { StoreError } from '../../store.js';
import type { GateTally, PlannedEntry } from '../redis-chain-offers.js';
import { EXPIRY_CANCEL_DETAIL, EXPIRY_OUTCOME, expiredDetail } from '../rules.js';
import { type ArgsOf, arg, LUA_OFFER_SEAL, PauseScript, SEAL_OFFER_ARGS } from './pause-script.js';

/**
 * `expire_due(gate_index, decision, retention_ms)`: expire_gate's work on the selected pause (the
 * prelude's keys), its reply as the script's; shared with the batch (expire-gates.lua.ts).
 */
export const LUA_EXPIRE_DUE = `
local function expire_due(gate_index, decision, retention_ms)
  local pause, gates = load()
  if not pause then return gates end
  local gate = gates[gate_index]
  if gate.state ~= STATE.pending or gate.expires_at == nil then return reply(CODE.NOT_PENDING) end
  if not is_due(gate) then return reply(CODE.NOT_DUE, {tostring(gate.expires_at)}) end
  local state = expire(pause, gates, gate, decision, retention_ms)
  return reply(CODE.EXPIRED, {state, pause_decided(pause)})
end
`;

const EXPIRE_GATE_ARGS = {
  now: arg.number,
  /** 1-based, in callIds order. */
  gateIndex: arg.number,
  /** The expiry's decision. */
  decision: arg.json<GateDecision>(),
  /** Applies if the expiry abandons the pause. */
  retentionMs: arg.number,
  ...SEAL_OFFER_ARGS,
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
 * ARGV: EXPIRE_GATE_ARGS, in that order (the last four: lines sealed ahead, redis-chain-offers.ts)
 * Returns EXPIRED {state, pauseDecided '1'|'0'} | NOT_DUE {expiresAt} | NOT_PENDING (decided, or
 *   never expires) | NOT_FOUND | CORRUPT | KEYS_MISMATCH
 */
export const EXPIRE_GATE = new PauseScript(
  'expire_gate',
  EXPIRE_GATE_ARGS,
  {
    functions: LUA_EXPIRE_DUE,
    body: `
${LUA_OFFER_SEAL}
return expire_due(args.gateIndex, args.decision, args.retentionMs)
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

/**
 * The audit entries expire_gate writes for a due pending gate (the twin of the prelude's
 * `expire`), given the pause's pending gates as last seen, in call id order: its `expired`
 * entry, and when its policy cancels, a `cancelled` entry for each other pending gate and the
 * pause's `abandoned`. The lines a replica seals ahead (redis-chain-offers.ts); a wrong guess
 * only costs the separate seal.
 */
export function plannedExpiryEntries(
  expiry: { callId: string; decision: string },
  pending: ReadonlyMap<string, Pick<GateTally, 'onExpiry'>>,
): PlannedEntry[] {
  const { callId, decision } = expiry;
  const gate = pending.get(callId);
  if (gate === undefined) return [];
  const state = EXPIRY_OUTCOME[gate.onExpiry];
  const actor = SYSTEM_ACTOR;
  const entries: PlannedEntry[] = [
    { event: 'expired', actor, callId, detail: expiredDetail(state), decision },
  ];
  if (state !== 'cancelled') return entries;
  for (const other of pending.keys()) {
    if (other === callId) continue;
    entries.push({
      event: 'cancelled',
      actor,
      callId: other,
      detail: EXPIRY_CANCEL_DETAIL,
      decision,
    });
  }
  entries.push({ event: 'abandoned', actor, callId: '', detail: '' });
  return entries;
}
