import type { GateDecision } from '../../records.js';
import type { ExpiredGate } from '../../store-roles/pause-sweeps.js';
import { isDue } from '../rules.js';
import type { MemoryGate, PauseRun } from './prelude.js';

/**
 * Twin of scripts/expire-gate.lua.ts: applies a gate's expiry outcome if it is still pending
 * and due; otherwise nothing (NOT_PENDING, NOT_DUE).
 */
export function expireGate(
  run: PauseRun,
  gate: MemoryGate,
  decision: GateDecision,
  retentionMs: number,
): ExpiredGate | undefined {
  const record = gate.record;
  if (record.state !== 'pending' || record.expiresAt === undefined) return undefined;
  if (!isDue(record.expiresAt, run.now)) return undefined;
  const state = run.expire(gate, decision, retentionMs);
  const callId = record.confirmationCallId;
  return { view: run.view(), callId, state, pauseDecided: run.pauseDecided() };
}
