import type { JsonValue } from '../../adk/gate.js';
import {
  type GateDecision,
  type GateRecord,
  type GateState,
  type PauseRecord,
  type PauseView,
  SYSTEM_ACTOR,
} from '../records.js';
import type {
  AuditEntry,
  CancelInput,
  CancelResult,
  ClaimResult,
  ClaimResumeInput,
  ConfirmationStore,
  CreatePauseResult,
  ExpiredGate,
  FinishResult,
  FinishResumeInput,
  GateRef,
  NewPause,
  ResumeFailedInput,
  VoteInput,
  VoteResult,
} from '../store.js';
import { cancelDetail, claimDetail, resumeFailedDetail, voteDetail } from './rules.js';

/**
 * The confirmation store in this process's memory: the same contract as the Redis store (one
 * test suite proves both), for a single instance that may lose everything on restart. Each call
 * runs to completion synchronously, which is what makes its transitions atomic. Finished pauses
 * are dropped `retentionMs` after they finished, checked against the `now` of later calls.
 */
export interface MemoryStoreOptions {
  /** How long a finished pause (resumed, failed, abandoned) is kept. Default 7 days. */
  retentionMs?: number;
  /** How many audit entries are kept in all. Default 100,000. */
  auditMaxLen?: number;
}

interface GateEntry {
  record: GateRecord;
  voters: Set<string>;
  approvals: number;
  lastPayload?: JsonValue;
}

interface PauseEntry {
  pause: PauseRecord;
  /** In `callIds` order. */
  gates: Map<string, GateEntry>;
  audit: AuditEntry[];
  /** When its resume is due: set when it became decided, moved to the lease's end on a claim. */
  resumeDueAt?: number;
}

const DEFAULT_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;
const DEFAULT_AUDIT_MAXLEN = 100_000;
const PER_PAUSE_AUDIT_MAX = 1000;

export class MemoryConfirmationStore implements ConfirmationStore {
  private readonly pauses = new Map<string, PauseEntry>();
  private readonly byCallId = new Map<string, string>();
  private readonly pendingByChannel = new Map<string, Map<string, GateRef>>();
  private readonly pendingByUser = new Map<string, Map<string, GateRef>>();
  /** Finished pauses by when they are dropped; in finishing order, so oldest first. */
  private readonly removals = new Map<string, number>();
  private readonly audit: AuditEntry[] = [];
  private auditSequence = 0;
  private readonly retentionMs: number;
  private readonly auditMaxLen: number;

  constructor(options: MemoryStoreOptions = {}) {
    this.retentionMs = options.retentionMs ?? DEFAULT_RETENTION_MS;
    this.auditMaxLen = options.auditMaxLen ?? DEFAULT_AUDIT_MAXLEN;
  }

  async createPause(input: NewPause): Promise<CreatePauseResult> {
    const { id, now } = input;
    this.purge(now);
    const callIds = input.gates.map((gate) => gate.confirmationCallId);
    if (id === '') throw new Error('A pause id must not be empty');
    if (callIds.length === 0) throw new Error(`Pause ${id} has no gates`);
    if (new Set(callIds).size !== callIds.length) {
      throw new Error(`Pause ${id} has the same confirmation call id twice`);
    }
    const existing = this.pauses.get(id);
    if (existing) {
      if (!sameSet(existing.pause.callIds, callIds)) {
        throw new Error(`pause ${id} exists with other call ids`);
      }
      for (const callId of callIds) if (!this.byCallId.has(callId)) this.byCallId.set(callId, id);
      return { kind: 'existed', view: view(existing) };
    }
    // Every field of the new pause but its gates is kept (fields added to both types carry over).
    const { gates, now: _, ...fields } = input;
    const entry: PauseEntry = {
      pause: structuredClone({
        ...fields,
        callIds,
        resume: { state: 'idle', attempts: 0 },
        createdAt: now,
        version: 1,
      }),
      gates: new Map(),
      audit: [],
    };
    for (const { policy, ...gate } of gates) {
      const record: GateRecord = structuredClone({
        ...gate,
        pauseId: id,
        policy,
        state: 'pending',
        votes: [],
        createdAt: now,
        ...(policy.expiresInMs === undefined ? {} : { expiresAt: now + policy.expiresInMs }),
        version: 1,
      });
      entry.gates.set(record.confirmationCallId, { record, voters: new Set(), approvals: 0 });
      this.indexPending(entry, record, true);
    }
    this.pauses.set(id, entry);
    // The newest pause wins a call id that repeats (adk-rs ids are chosen by the model).
    for (const callId of callIds) this.byCallId.set(callId, id);
    this.record(entry, now, 'created', input.requester, '', `gates=${callIds.length}`);
    return { kind: 'created', view: view(entry) };
  }

  async getPause(pauseId: string): Promise<PauseView | undefined> {
    const entry = this.pauses.get(pauseId);
    return entry && view(entry);
  }

  async findPauseIdByCallId(callId: string): Promise<string | undefined> {
    const pauseId = this.byCallId.get(callId);
    return pauseId !== undefined && this.pauses.has(pauseId) ? pauseId : undefined;
  }

  async setCardTs(pauseId: string, ts: string, now: number): Promise<PauseView | undefined> {
    const entry = this.pauses.get(pauseId);
    if (!entry) return undefined;
    entry.pause.card.ts = ts;
    entry.pause.version += 1;
    this.record(entry, now, 'card_posted', SYSTEM_ACTOR, '', '');
    return view(entry);
  }

  async vote(input: VoteInput): Promise<VoteResult> {
    const { pauseId, callId, voter, choice, payload, reason, now } = input;
    this.purge(now);
    const entry = this.pauses.get(pauseId);
    const gate = entry?.gates.get(callId);
    if (!entry || !gate) return { kind: 'not_found' };
    const record = gate.record;
    if (record.state !== 'pending') {
      if (record.decision === undefined) throw new Error(`gate ${callId} decided without decision`);
      return {
        kind: 'already_decided',
        view: view(entry),
        state: record.state,
        decision: structuredClone(record.decision),
      };
    }
    if (isDue(record, now)) {
      const state = this.expire(entry, gate, now);
      return { kind: 'expired', view: view(entry), state, pauseDecided: isDecided(entry) };
    }
    if (gate.voters.has(voter)) return { kind: 'already_voted', view: view(entry) };
    gate.voters.add(voter);
    record.votes.push(
      structuredClone({
        voter,
        choice,
        at: now,
        ...(payload === undefined ? {} : { payload }),
        ...(reason === undefined ? {} : { reason }),
      }),
    );
    record.version += 1;
    this.record(entry, now, 'voted', voter, callId, voteDetail(input));
    const decision: GateDecision = {
      by: voter,
      at: now,
      ...(reason === undefined ? {} : { reason }),
    };
    if (choice === 'reject') {
      this.decide(entry, gate, 'rejected', withPayload(decision, payload), now);
      this.record(entry, now, 'rejected', voter, callId, '');
      return {
        kind: 'decided',
        view: view(entry),
        state: 'rejected',
        pauseDecided: isDecided(entry),
      };
    }
    gate.approvals += 1;
    if (payload !== undefined) gate.lastPayload = structuredClone(payload);
    const quorum = record.policy.quorum;
    if (gate.approvals < quorum) {
      return { kind: 'counted', view: view(entry), approvals: gate.approvals, quorum };
    }
    // This vote's payload if it has one, else the latest earlier approve vote's.
    this.decide(entry, gate, 'approved', withPayload(decision, gate.lastPayload), now);
    this.record(entry, now, 'approved', voter, callId, `approvals=${gate.approvals}/${quorum}`);
    return {
      kind: 'decided',
      view: view(entry),
      state: 'approved',
      pauseDecided: isDecided(entry),
    };
  }

  async cancel(input: CancelInput): Promise<CancelResult> {
    const { pauseId, by, reason, now } = input;
    this.purge(now);
    const entry = this.pauses.get(pauseId);
    if (!entry) return { kind: 'not_found' };
    if (isDecided(entry)) return { kind: 'nothing_pending', view: view(entry) };
    const decision: GateDecision = { by, at: now, ...(reason === undefined ? {} : { reason }) };
    const callIds = this.abandon(entry, by, decision, cancelDetail(reason), now);
    return { kind: 'cancelled', view: view(entry), callIds };
  }

  async expireDue(now: number, limit = 100): Promise<ExpiredGate[]> {
    this.purge(now);
    const due: { entry: PauseEntry; gate: GateEntry; at: number }[] = [];
    for (const entry of this.pauses.values()) {
      for (const gate of entry.gates.values()) {
        const { state, expiresAt } = gate.record;
        if (state === 'pending' && expiresAt !== undefined && expiresAt <= now) {
          due.push({ entry, gate, at: expiresAt });
        }
      }
    }
    due.sort((a, b) => a.at - b.at);
    const expired: ExpiredGate[] = [];
    for (const { entry, gate } of due.slice(0, limit)) {
      // An earlier gate's `cancel` outcome may have cancelled this one already.
      if (gate.record.state !== 'pending') continue;
      const state = this.expire(entry, gate, now);
      expired.push({
        view: view(entry),
        callId: gate.record.confirmationCallId,
        state,
        pauseDecided: isDecided(entry),
      });
    }
    return expired;
  }

  async claimResume(input: ClaimResumeInput): Promise<ClaimResult> {
    const { pauseId, owner, now, leaseMs } = input;
    this.purge(now);
    const entry = this.pauses.get(pauseId);
    if (!entry) return { kind: 'not_found' };
    const resume = entry.pause.resume;
    if (resume.state === 'resumed' || resume.state === 'abandoned') {
      return { kind: 'finished', view: view(entry) };
    }
    if (!isDecided(entry)) return { kind: 'not_decided', view: view(entry) };
    if (resume.state === 'failed' && !input.retryFailed) {
      return { kind: 'awaiting_retry', view: view(entry) };
    }
    if (resume.state === 'resuming' && resume.leaseUntil !== undefined && resume.leaseUntil > now) {
      return { kind: 'leased', view: view(entry), leaseUntil: resume.leaseUntil };
    }
    const attempt = resume.attempts + 1;
    const tookOverFrom = resume.state === 'resuming' ? resume.leaseOwner : undefined;
    // A retry of a failed resume makes the pause live again.
    if (resume.state === 'failed') this.removals.delete(pauseId);
    entry.pause.resume = {
      ...resume,
      state: 'resuming',
      attempts: attempt,
      leaseOwner: owner,
      leaseUntil: now + leaseMs,
      at: now,
    };
    entry.pause.version += 1;
    entry.resumeDueAt = now + leaseMs;
    this.record(
      entry,
      now,
      'resume_claimed',
      owner,
      '',
      claimDetail({ attempt, leaseMs, tookOverFrom }),
    );
    return { kind: 'claimed', view: view(entry), attempt };
  }

  async dueResumes(now: number, limit = 100): Promise<string[]> {
    this.purge(now);
    const due: { pauseId: string; at: number }[] = [];
    for (const entry of this.pauses.values()) {
      const { state } = entry.pause.resume;
      const at = entry.resumeDueAt;
      if ((state === 'idle' || state === 'resuming') && at !== undefined && at <= now) {
        due.push({ pauseId: entry.pause.id, at });
      }
    }
    return due
      .sort((a, b) => a.at - b.at)
      .slice(0, limit)
      .map((item) => item.pauseId);
  }

  markResumed(input: FinishResumeInput): Promise<FinishResult> {
    return Promise.resolve(this.finish(input, 'resumed', undefined));
  }

  markResumeFailed(input: ResumeFailedInput): Promise<FinishResult> {
    return Promise.resolve(this.finish(input, 'failed', input.error));
  }

  /** Explicit user approvers only: user groups and channel members are known only to Slack. */
  async listPendingByApprover(userId: string, limit = 100): Promise<GateRef[]> {
    return [...(this.pendingByUser.get(userId)?.values() ?? [])].slice(0, limit);
  }

  async listPendingByChannel(channelId: string, limit = 100): Promise<GateRef[]> {
    return [...(this.pendingByChannel.get(channelId)?.values() ?? [])].slice(0, limit);
  }

  async readAudit(options: { pauseId?: string; count?: number } = {}): Promise<AuditEntry[]> {
    const { pauseId, count = 100 } = options;
    const entries = pauseId === undefined ? this.audit : (this.pauses.get(pauseId)?.audit ?? []);
    return structuredClone(entries.slice(0, count));
  }

  async close(): Promise<void> {}

  private finish(
    input: FinishResumeInput,
    outcome: 'resumed' | 'failed',
    error: string | undefined,
  ): FinishResult {
    const { pauseId, owner, now } = input;
    this.purge(now);
    const entry = this.pauses.get(pauseId);
    if (!entry) return { kind: 'not_found' };
    const resume = entry.pause.resume;
    if (resume.leaseOwner !== owner) return { kind: 'lost_lease', view: view(entry) };
    // The same owner repeating its call (a retried request) gets the same answer.
    if (resume.state === outcome) return { kind: 'ok', view: view(entry) };
    if (resume.state !== 'resuming') return { kind: 'lost_lease', view: view(entry) };
    entry.pause.resume = {
      ...resume,
      state: outcome,
      at: now,
      ...(error === undefined ? {} : { lastError: error }),
    };
    entry.pause.version += 1;
    entry.resumeDueAt = undefined;
    const detail = error === undefined ? '' : resumeFailedDetail(error);
    this.record(entry, now, outcome === 'resumed' ? 'resumed' : 'resume_failed', owner, '', detail);
    this.retain(entry, now);
    return { kind: 'ok', view: view(entry) };
  }

  private decide(
    entry: PauseEntry,
    gate: GateEntry,
    state: GateState,
    decision: GateDecision,
    now: number,
  ): void {
    gate.record.state = state;
    gate.record.decision = structuredClone(decision);
    gate.record.version += 1;
    this.indexPending(entry, gate.record, false);
    if (isDecided(entry) && entry.pause.resume.state === 'idle') entry.resumeDueAt = now;
  }

  /** The gate's policy outcome for when its time runs out (the sweeper's and a late vote's). */
  private expire(entry: PauseEntry, gate: GateEntry, now: number): GateState {
    const decision: GateDecision = { by: SYSTEM_ACTOR, at: now };
    const callId = gate.record.confirmationCallId;
    if (gate.record.policy.onExpiry === 'cancel') {
      this.decide(entry, gate, 'cancelled', decision, now);
      this.record(entry, now, 'expired', SYSTEM_ACTOR, callId, 'outcome=cancelled');
      this.abandon(entry, SYSTEM_ACTOR, decision, 'cause=expiry', now);
      return 'cancelled';
    }
    this.decide(entry, gate, 'expired', decision, now);
    this.record(entry, now, 'expired', SYSTEM_ACTOR, callId, 'outcome=expired');
    return 'expired';
  }

  /** Cancels every pending gate; the pause will never be resumed. Returns the gates cancelled. */
  private abandon(
    entry: PauseEntry,
    actor: string,
    decision: GateDecision,
    detail: string,
    now: number,
  ): string[] {
    const cancelled: string[] = [];
    for (const gate of entry.gates.values()) {
      if (gate.record.state !== 'pending') continue;
      this.decide(entry, gate, 'cancelled', decision, now);
      this.record(entry, now, 'cancelled', actor, gate.record.confirmationCallId, detail);
      cancelled.push(gate.record.confirmationCallId);
    }
    entry.pause.resume = { ...entry.pause.resume, state: 'abandoned', at: now };
    entry.pause.version += 1;
    entry.resumeDueAt = undefined;
    this.record(entry, now, 'abandoned', actor, '', '');
    this.retain(entry, now);
    return cancelled;
  }

  private indexPending(entry: PauseEntry, gate: GateRecord, pending: boolean): void {
    const ref: GateRef = { pauseId: entry.pause.id, callId: gate.confirmationCallId };
    const key = JSON.stringify([ref.pauseId, ref.callId]);
    const update = (index: Map<string, Map<string, GateRef>>, id: string) => {
      const refs = index.get(id) ?? new Map<string, GateRef>();
      if (pending) refs.set(key, ref);
      else refs.delete(key);
      if (refs.size === 0) index.delete(id);
      else index.set(id, refs);
    };
    update(this.pendingByChannel, entry.pause.card.channelId);
    for (const approver of gate.policy.approvers) {
      if (approver.kind === 'user') update(this.pendingByUser, approver.id);
    }
  }

  private retain(entry: PauseEntry, now: number): void {
    this.removals.delete(entry.pause.id);
    this.removals.set(entry.pause.id, now + this.retentionMs);
  }

  /** Drops pauses whose retention ended by `now`. */
  private purge(now: number): void {
    for (const [pauseId, removeAt] of this.removals) {
      if (removeAt > now) break;
      this.removals.delete(pauseId);
      const entry = this.pauses.get(pauseId);
      this.pauses.delete(pauseId);
      for (const callId of entry?.pause.callIds ?? []) {
        if (this.byCallId.get(callId) === pauseId) this.byCallId.delete(callId);
      }
    }
  }

  private record(
    entry: PauseEntry,
    at: number,
    event: string,
    actor: string,
    callId: string,
    detail: string,
  ): void {
    this.auditSequence += 1;
    const item: AuditEntry = {
      id: `${this.auditSequence}-0`,
      at,
      pauseId: entry.pause.id,
      event,
      actor,
      ...(callId === '' ? {} : { callId }),
      ...(detail === '' ? {} : { detail }),
    };
    entry.audit.push(item);
    if (entry.audit.length > PER_PAUSE_AUDIT_MAX) entry.audit.shift();
    this.audit.push(item);
    if (this.audit.length > this.auditMaxLen)
      this.audit.splice(0, this.audit.length - this.auditMaxLen);
  }
}

function view(entry: PauseEntry): PauseView {
  const gates = entry.pause.callIds.flatMap((callId) => {
    const gate = entry.gates.get(callId);
    return gate ? [gate.record] : [];
  });
  return structuredClone({ pause: entry.pause, gates });
}

function isDecided(entry: PauseEntry): boolean {
  for (const gate of entry.gates.values()) if (gate.record.state === 'pending') return false;
  return true;
}

function isDue(gate: GateRecord, now: number): boolean {
  return gate.expiresAt !== undefined && now >= gate.expiresAt;
}

function withPayload(decision: GateDecision, payload: JsonValue | undefined): GateDecision {
  return payload === undefined ? decision : { ...decision, payload: structuredClone(payload) };
}

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((item) => b.includes(item));
}
