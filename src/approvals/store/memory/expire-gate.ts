import { isDue } from '../rules.js';
import type { ExpireGateArgs, ExpireGateReply } from '../scripts/expire-gate.lua.js';
import type { MemoryGate, PauseRun } from './prelude.js';

/**
 * Twin of scripts/expire-gate.lua.ts: applies a gate's expiry outcome if it is still pending
 * and due. Takes the script's own arguments (the clock and the gate index come in as `run` and
 * `gate`).
 */
export function expireGate(run: PauseRun, gate: MemoryGate, args: ExpireGateArgs): ExpireGateReply {
  const record = gate.record;
  if (record.state !== 'pending' || record.expiresAt === undefined) return { code: 'NOT_PENDING' };
  if (!isDue(record.expiresAt, run.now)) return { code: 'NOT_DUE', expiresAt: record.expiresAt };
  const state = run.expire(gate, args.decision, args.retentionMs);
  return { code: 'EXPIRED', state, pauseDecided: run.pauseDecided() };
}
