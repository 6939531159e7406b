import type { JsonValue } from '../../../json.js';
import {
  type GateDecision,
  type GateRecord,
  type GateState,
  type PauseRecord,
  type PauseView,
  type Reopened,
  type ResumeStatus,
  SYSTEM_ACTOR,
} from '../../records.js';
import type { AuditEntry } from '../../store-roles/audit-log.js';
import { AUDIT_GENESIS, chainLine } from '../audit-chain.js';
import { type AuditEvent, EXPIRY_CANCEL_DETAIL, EXPIRY_OUTCOME, expiredDetail } from '../rules.js';

/**
 * The in-memory twin of scripts/prelude.lua.ts: what a pause's keys hold, and the helpers every
 * script twin shares, with the Lua names and the same order of effects. A twin runs to the end
 * synchronously, which is what makes it atomic.
 */

/** A gate hash. */
export interface MemoryGate {
  record: GateRecord;
  /** The `v:<voter>` fields: who voted already. */
  voters: Set<string>;
  /** Distinct approving voters. */
  approvals: number;
  /** The latest approve vote's payload. */
  lastPayload?: JsonValue;
}

/**
 * A pause hash and its gate hashes in `callIds` order. Its audit lines are kept once, in the
 * store-wide log (MemoryPauseBook's `audit`), as on Redis.
 */
export interface MemoryPause {
  pause: PauseRecord;
  gates: MemoryGate[];
  /** The `audit:<call id>` fields: what each gate is (`''`: the pause), as JSON texts. */
  facts: Record<string, string>;
  /** The `auditSeq` and `auditHead` fields: the chain's length and its last line's hash. */
  auditSeq: number;
  auditHead?: string;
  /** When retention removes it (the twin of PEXPIRE); absent while it is live. */
  removeAt?: number;
}

/** An entry of a pause's trail; its id is its position, as on Redis. */
export type TrailEntry = Omit<AuditEntry, 'id'>;

export function gateOf(entry: MemoryPause, callId: string): MemoryGate | undefined {
  return entry.gates.find((gate) => gate.record.confirmationCallId === callId);
}

/** A snapshot of the pause, never shared with the stored one (the twin of read_pause). */
export function viewOf(entry: MemoryPause): PauseView {
  return structuredClone({ pause: entry.pause, gates: entry.gates.map((gate) => gate.record) });
}

/** One script's run on one pause: the Lua prelude's `NOW` and `audited`, and its helpers. */
export class PauseRun {
  /** What this run appended to the trail; the store mirrors it to its global audit. */
  readonly audited: TrailEntry[] = [];

  constructor(
    readonly entry: MemoryPause,
    readonly now: number,
  ) {}

  /** The gate a call names (the caller's `gate index` in Lua), if the pause holds it. */
  gate(callId: string): MemoryGate | undefined {
    return gateOf(this.entry, callId);
  }

  /** The pause as the run left it (the Lua `reply`'s fields). */
  view(): PauseView {
    return viewOf(this.entry);
  }

  audit(event: AuditEvent, actor: string, callId: string, detail: string): void {
    const entry = this.entry;
    const decision = callId === '' ? undefined : this.gate(callId)?.record.decision;
    const { line, hash } = chainLine({
      pauseId: entry.pause.id,
      seq: entry.auditSeq + 1,
      prev: entry.auditHead ?? AUDIT_GENESIS,
      at: this.now,
      event,
      actor,
      callId,
      detail,
      decision: decision === undefined ? undefined : JSON.stringify(decision),
      what: entry.facts[callId],
    });
    entry.auditSeq += 1;
    entry.auditHead = hash;
    const item: TrailEntry = {
      at: this.now,
      pauseId: this.entry.pause.id,
      event,
      actor,
      ...(callId === '' ? {} : { callId }),
      ...(detail === '' ? {} : { detail }),
      line,
    };
    this.audited.push(item);
  }

  /** The `pending` field. */
  pending(): number {
    return this.entry.gates.filter((gate) => gate.record.state === 'pending').length;
  }

  pauseDecided(): boolean {
    return this.pending() === 0;
  }

  /** Moves a pending gate to its final state. */
  decide(gate: MemoryGate, state: GateState, decision: GateDecision, payload?: JsonValue): void {
    gate.record.state = state;
    gate.record.decision = structuredClone(
      payload === undefined ? decision : { ...decision, payload },
    );
    gate.record.version += 1;
  }

  setResume(state: ResumeStatus['state']): void {
    this.entry.pause.resume = { ...this.entry.pause.resume, state, at: this.now };
    this.entry.pause.version += 1;
  }

  /**
   * Twin of held_until (prelude.lua.ts): the end of the undo window that holds the resume, while
   * it holds (the resume idle, the end not reached); undefined otherwise.
   */
  heldUntil(): number | undefined {
    const { state, holdUntil } = this.entry.pause.resume;
    return state === 'idle' && holdUntil !== undefined && this.now < holdUntil
      ? holdUntil
      : undefined;
  }

  /** An undo window: the resume is not claimed before `until` (the latest of the pause's holds). */
  hold(until: number): void {
    const pause = this.entry.pause;
    if (until <= (pause.resume.holdUntil ?? 0)) return;
    pause.resume = { ...pause.resume, holdUntil: until };
    pause.version += 1;
  }

  /** An approved gate back to pending (the re-check or an undo): votes cleared, why kept. */
  sendBack(gate: MemoryGate, reopened: Reopened): void {
    gate.voters.clear();
    gate.approvals = 0;
    delete gate.lastPayload;
    delete gate.record.decision;
    gate.record.state = 'pending';
    gate.record.votes = [];
    gate.record.reopened = structuredClone(reopened);
    gate.record.version += 1;
  }

  /** A finished pause is kept for the retention period, then removed at once. */
  retain(retentionMs: number): void {
    this.entry.removeAt = this.now + retentionMs;
  }

  /** Cancels every gate still pending; the pause is abandoned and will never be resumed. */
  abandon(actor: string, decision: GateDecision, detail: string, retentionMs: number): string[] {
    const cancelled: string[] = [];
    for (const gate of this.entry.gates) {
      if (gate.record.state !== 'pending') continue;
      this.decide(gate, 'cancelled', decision);
      this.audit('cancelled', actor, gate.record.confirmationCallId, detail);
      cancelled.push(gate.record.confirmationCallId);
    }
    this.setResume('abandoned');
    this.audit('abandoned', actor, '', '');
    this.retain(retentionMs);
    return cancelled;
  }

  /** The outcome the gate's policy names for when its time runs out; a cancel abandons the pause. */
  expire(gate: MemoryGate, decision: GateDecision, retentionMs: number): GateState {
    const state = EXPIRY_OUTCOME[gate.record.policy.onExpiry];
    this.decide(gate, state, decision);
    this.audit('expired', SYSTEM_ACTOR, gate.record.confirmationCallId, expiredDetail(state));
    if (state === 'cancelled') {
      this.abandon(SYSTEM_ACTOR, decision, EXPIRY_CANCEL_DETAIL, retentionMs);
    }
    return state;
  }
}
