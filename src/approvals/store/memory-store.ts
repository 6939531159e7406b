import { MemoryCardClaims } from '../card-claims.js';
import { type PauseNotes, type PauseView, viewVersion } from '../records.js';
import type {
  AdvanceRunInput,
  AuditEntry,
  AuditPageOptions,
  CancelInput,
  CancelResult,
  ClaimCardlessInput,
  ClaimDeadRunsInput,
  ClaimNudgesInput,
  ClaimResult,
  ClaimResumeInput,
  ConfirmationStore,
  CreatePauseResult,
  DeliveryInput,
  DueNudge,
  ExpiredGate,
  FinishResult,
  FinishResumeInput,
  GateRef,
  GateRunClaim,
  GrantEventInput,
  HandOverRefusal,
  IdempotencyInput,
  IdempotencyResult,
  NewPause,
  OutcomeInput,
  OutcomeResult,
  PendingIndex,
  RecordRunInput,
  RenewLeaseInput,
  RenewLeaseResult,
  ReopenInput,
  ReopenResult,
  ResumeFailedInput,
  RunIntent,
  StoreMarker,
  UndoInput,
  UndoResult,
  VoteAllInput,
  VoteAllResult,
  VoteInput,
  VoteResult,
  WithdrawInput,
  WithdrawResult,
} from '../store.js';
import { addNote } from './memory/add-note.js';
import { cancel } from './memory/cancel.js';
import { claimResume } from './memory/claim-resume.js';
import { createPause } from './memory/create-pause.js';
import { expireGate } from './memory/expire-gate.js';
import { finishResume } from './memory/finish-resume.js';
import { gateOf, type MemoryPause, PauseRun, viewOf } from './memory/prelude.js';
import { refuseHandOver } from './memory/refuse-hand-over.js';
import { renewLease } from './memory/renew-lease.js';
import { reopen } from './memory/reopen.js';
import { MemoryRunIntents } from './memory/run-intents.js';
import { setCardTs } from './memory/set-card-ts.js';
import { undo } from './memory/undo.js';
import { vote, voteAll } from './memory/vote.js';
import { withdraw } from './memory/withdraw.js';
import { MemoryNudges } from './memory-nudges.js';
import {
  assertSamePause,
  cancelDetail,
  checkNewPause,
  createdDetail,
  DEFAULT_AUDIT_MAXLEN,
  DEFAULT_LIMIT,
  DEFAULT_RETENTION_MS,
  deliveryAudit,
  type FinishOutcome,
  grantAudit,
  isDue,
  isLiveResume,
  newGateNudges,
  newVote,
  outcomeAudit,
  pendingIndexesOf,
  pendingIndexName,
  personDecision,
  RECENT_DECISIONS_MAX,
  recentDecisionHolders,
  recentEntries,
  recordedGates,
  reopenedDetail,
  resumeFailedDetail,
  systemDecision,
  UNDONE_WHY,
  voteDetail,
  withdrawDetail,
} from './rules.js';
import { voteResultOf } from './vote-result.js';

/**
 * The confirmation store in this process's memory: the same contract as the Redis store (one
 * test suite proves both), for a single instance that may lose everything on restart.
 *
 * Laid out as the twin of the Redis store: each transition is the twin of one Lua script
 * (memory/, same names, same order of checks), and this class does what redis-store.ts and
 * redis-indexes.ts do around the scripts: the call-id and pending indexes, the store-wide
 * audit, due expiries and resumes. Finished pauses are dropped `retentionMs` after they
 * finished, checked against the `now` of later calls.
 */
export interface MemoryStoreOptions {
  /** How long a finished pause (resumed, failed, abandoned) is kept. Default 7 days. */
  retentionMs?: number;
  /** How many audit entries are kept in all. Default 100,000. */
  auditMaxLen?: number;
}

export class MemoryConfirmationStore implements ConfirmationStore {
  private readonly pauses = new Map<string, MemoryPause>();
  /** The newest pause holding each call id. */
  private readonly byCallId = new Map<string, string>();
  /** Gates pending when recorded, by index name (`pendingIndexName`); stale ones drop when listed. */
  private readonly pending = new Map<string, Map<string, GateRef>>();
  private readonly audit: AuditEntry[] = [];
  /** Each person's recent decisions, newest first (the Redis store's `recent:<user>` lists). */
  private readonly recent = new Map<string, AuditEntry[]>();
  /** Outcomes and delivery status, by pause id; dropped with the pause. */
  private readonly notes = new Map<string, PauseNotes>();
  /** Idempotency keys: the request each was first used for, until `expiresAt`. */
  private readonly idempotency = new Map<
    string,
    { fingerprint: string; pauseId: string; expiresAt: number }
  >();
  private auditSequence = 0;
  private readonly retentionMs: number;
  private readonly auditMaxLen: number;

  constructor(options: MemoryStoreOptions = {}) {
    this.retentionMs = options.retentionMs ?? DEFAULT_RETENTION_MS;
    this.auditMaxLen = options.auditMaxLen ?? DEFAULT_AUDIT_MAXLEN;
  }

  async createPause(input: NewPause): Promise<CreatePauseResult> {
    const callIds = checkNewPause(input);
    const { id, now } = input;
    this.purge(now);
    this.nudges.add(id, newGateNudges(input.gates, now));
    const { created, run } = createPause(
      this.pauses,
      { ...input, gates: recordedGates(input.gates) },
      callIds,
      createdDetail(callIds.length),
    );
    const view = run.view();
    assertSamePause(id, view, callIds);
    this.afterCreate(view, created);
    this.mirror(run);
    return { kind: created ? 'created' : 'existed', view };
  }

  async getPause(pauseId: string): Promise<PauseView | undefined> {
    const entry = this.pauses.get(pauseId);
    return entry && viewOf(entry);
  }

  async changedSince(view: PauseView): Promise<boolean> {
    const entry = this.pauses.get(view.pause.id);
    if (entry === undefined) return true;
    // Versions only: no copy of the pause (viewOf clones it).
    const current = { pause: entry.pause, gates: entry.gates.map((gate) => gate.record) };
    return viewVersion(current) !== viewVersion(view);
  }

  async findPauseIdByCallId(callId: string): Promise<string | undefined> {
    const pauseId = this.byCallId.get(callId);
    return pauseId !== undefined && this.pauses.has(pauseId) ? pauseId : undefined;
  }

  async setCardTs(pauseId: string, ts: string, now: number): Promise<PauseView | undefined> {
    const run = this.load(pauseId, now);
    if (!run) return undefined;
    setCardTs(run, { now, ts });
    this.mirror(run);
    return run.view();
  }

  async vote(input: VoteInput): Promise<VoteResult> {
    const { pauseId, callId, voter, voterName, choice, payload, reason, now } = input;
    const run = this.load(pauseId, now);
    const gate = run?.gate(callId);
    if (!run || !gate) return { kind: 'not_found' };
    const reply = vote(run, gate, {
      now,
      gateIndex: run.entry.pause.callIds.indexOf(callId) + 1,
      voter,
      choice,
      vote: newVote(input),
      payload,
      decision: personDecision(voter, now, reason, voterName, input.onBehalfOf),
      expiry: systemDecision(now),
      retentionMs: this.retentionMs,
      detail: voteDetail(input),
    });
    this.mirror(run);
    return voteResultOf(reply, run.view(), callId);
  }

  async voteAll(input: VoteAllInput): Promise<VoteAllResult> {
    const { pauseId, voter, voterName, choice, reason, now } = input;
    const run = this.load(pauseId, now);
    const gates = input.callIds.map((callId) => run?.gate(callId));
    if (!run || gates.length === 0) return { kind: 'not_found' };
    const found = gates.filter((gate) => gate !== undefined);
    if (found.length < gates.length) return { kind: 'not_found' };
    const callIds = run.entry.pause.callIds;
    const replies = voteAll(run, found, {
      now,
      voter,
      choice,
      vote: newVote({ ...input, callId: '' }),
      decision: personDecision(voter, now, reason, voterName, input.onBehalfOf),
      expiry: systemDecision(now),
      retentionMs: this.retentionMs,
      detail: voteDetail(input),
      gateIndexes: input.callIds.map((callId) => callIds.indexOf(callId) + 1),
    });
    this.mirror(run);
    // Every outcome carries the pause as the whole step left it, as the script's reply does.
    const view = run.view();
    const results = input.callIds.map((callId, i) => {
      const reply = replies[i];
      if (reply === undefined) throw new Error(`vote_all twin answered no gate ${callId}`);
      return { callId, result: voteResultOf(reply, view, callId) };
    });
    return { kind: 'applied', view, results };
  }

  async cancel(input: CancelInput): Promise<CancelResult> {
    const { pauseId, by, reason, now } = input;
    const run = this.load(pauseId, now);
    if (!run) return { kind: 'not_found' };
    const decision = personDecision(by, now, reason);
    const result = cancel(run, {
      now,
      by,
      decision,
      retentionMs: this.retentionMs,
      detail: cancelDetail(reason),
    });
    this.mirror(run);
    return result;
  }

  async withdraw(input: WithdrawInput): Promise<WithdrawResult> {
    const { pauseId, by, byName, reason, now } = input;
    const run = this.load(pauseId, now);
    if (!run) return { kind: 'not_found' };
    const decision = personDecision(by, now, reason, byName);
    const result = withdraw(run, { now, by, decision, detail: withdrawDetail(reason) });
    this.mirror(run);
    return result;
  }

  /** Pending gates due at `now`, earliest first, each through the twin of expire_gate. */
  async expireDue(now: number, limit = DEFAULT_LIMIT): Promise<ExpiredGate[]> {
    this.purge(now);
    const due: { pauseId: string; callId: string; at: number }[] = [];
    for (const entry of this.pauses.values()) {
      for (const { record } of entry.gates) {
        const { state, expiresAt } = record;
        if (state === 'pending' && expiresAt !== undefined && isDue(expiresAt, now)) {
          due.push({ pauseId: entry.pause.id, callId: record.confirmationCallId, at: expiresAt });
        }
      }
    }
    due.sort((a, b) => a.at - b.at);
    const expired: ExpiredGate[] = [];
    for (const { pauseId, callId } of due.slice(0, limit)) {
      const run = this.load(pauseId, now);
      const gate = run?.gate(callId);
      if (!run || !gate) continue;
      // An earlier gate's `cancel` outcome may have cancelled this one already: NOT_PENDING.
      const reply = expireGate(run, gate, {
        now,
        gateIndex: run.entry.pause.callIds.indexOf(callId) + 1,
        decision: systemDecision(now),
        retentionMs: this.retentionMs,
      });
      this.mirror(run);
      if (reply.code === 'EXPIRED') {
        const { state, pauseDecided } = reply;
        expired.push({ view: run.view(), callId, state, pauseDecided });
      }
    }
    return expired;
  }

  /** Who posts which card, until when (the twin of the card-claim keys). */
  readonly cardClaims = new MemoryCardClaims();

  /** Reminders and escalations by due time (the twin of the `nudges` sorted set). */
  private readonly nudges = new MemoryNudges();

  async claimDueNudges(input: ClaimNudgesInput): Promise<DueNudge[]> {
    const { now, leaseMs, limit = DEFAULT_LIMIT } = input;
    this.purge(now);
    return this.nudges.claimDue(now, leaseMs, limit, (pauseId, callId) => {
      const entry = this.pauses.get(pauseId);
      return entry && gateOf(entry, callId)?.record.state;
    });
  }

  async finishNudge(nudge: DueNudge): Promise<void> {
    this.nudges.finish(nudge);
  }

  async claimCardless(input: ClaimCardlessInput): Promise<string[]> {
    const { now, graceMs, owner, leaseMs, limit = DEFAULT_LIMIT } = input;
    this.purge(now);
    const claimed: string[] = [];
    for (const [pauseId, entry] of this.pauses) {
      if (claimed.length >= limit) break;
      const { pause } = entry;
      if (pause.card.ts !== undefined || pause.createdAt > now - graceMs) continue;
      if (await this.cardClaims.claim({ pauseId, owner, leaseMs, now })) claimed.push(pauseId);
    }
    return claimed;
  }

  private readonly runIntents = new MemoryRunIntents();

  async recordRun(input: RecordRunInput): Promise<void> {
    this.runIntents.record(input);
  }

  async advanceRun(input: AdvanceRunInput): Promise<'renewed' | 'lost'> {
    return this.runIntents.advance(input);
  }

  async finishRun(input: { runId: string; owner: string }): Promise<void> {
    this.runIntents.finish(input);
  }

  async claimDeadRuns(input: ClaimDeadRunsInput): Promise<RunIntent[]> {
    return this.runIntents.claimDead(input, input.limit ?? DEFAULT_LIMIT);
  }

  async claimResume(input: ClaimResumeInput): Promise<ClaimResult> {
    const { pauseId, owner, now, leaseMs } = input;
    const run = this.load(pauseId, now);
    if (!run) return { kind: 'not_found' };
    const retryFailed = input.retryFailed ?? false;
    const leaseUntil = now + leaseMs;
    const result = claimResume(run, { now, owner, leaseUntil, leaseMs, retryFailed });
    this.mirror(run);
    return result;
  }

  async renewLease(input: RenewLeaseInput): Promise<RenewLeaseResult> {
    const { pauseId, owner, now, leaseMs } = input;
    const run = this.load(pauseId, now);
    if (!run) return { kind: 'not_found' };
    const result = renewLease(run, { now, owner, leaseUntil: now + leaseMs });
    this.mirror(run);
    return result;
  }

  /**
   * Decided pauses never claimed (due since their last decision) and lapsed leases (due at the
   * lease's end), earliest first; failed ones wait for a human Retry.
   */
  async dueResumes(now: number, limit = DEFAULT_LIMIT): Promise<string[]> {
    this.purge(now);
    const due: { pauseId: string; at: number }[] = [];
    for (const entry of this.pauses.values()) {
      const at = resumeDueAt(entry);
      if (at !== undefined && at <= now) due.push({ pauseId: entry.pause.id, at });
    }
    return due
      .sort((a, b) => a.at - b.at)
      .slice(0, limit)
      .map((item) => item.pauseId);
  }

  markResumed(input: FinishResumeInput): Promise<FinishResult> {
    return Promise.resolve(this.finish(input, 'resumed', '', ''));
  }

  markResumeFailed(input: ResumeFailedInput): Promise<FinishResult> {
    const detail = resumeFailedDetail(input.error);
    return Promise.resolve(this.finish(input, 'failed', input.error, detail));
  }

  markResumeRefused(input: ResumeFailedInput): Promise<FinishResult> {
    const detail = resumeFailedDetail(input.error);
    return Promise.resolve(this.finish(input, 'refused', input.error, detail));
  }

  async undo(input: UndoInput): Promise<UndoResult> {
    const { pauseId, by, admin, now } = input;
    const run = this.load(pauseId, now);
    if (!run) return { kind: 'not_found' };
    const reopened = { at: now, voter: by, why: UNDONE_WHY, kind: 'undo' as const };
    const result = undo(run, { now, by, any: admin, reopened, detail: UNDONE_WHY });
    this.mirror(run);
    if (result.kind === 'undone') this.afterCreate(result.view, false);
    return result;
  }

  async reopen(input: ReopenInput): Promise<ReopenResult> {
    const { pauseId, owner, callIds, voter, why, now } = input;
    const run = this.load(pauseId, now);
    if (!run) return { kind: 'not_found' };
    const detail = reopenedDetail(voter, why);
    const gateIndexes = callIds
      .map((callId) => run.entry.pause.callIds.indexOf(callId) + 1)
      .filter((i) => i > 0);
    const reopened = { at: now, voter, why };
    const result = reopen(run, { now, owner, reopened, detail, gateIndexes });
    this.mirror(run);
    if (result.kind === 'reopened') this.afterCreate(result.view, false);
    return result;
  }

  /** Explicit user approvers only: user groups and channel members are known only to Slack. */
  async listPendingByApprover(userId: string, limit = DEFAULT_LIMIT): Promise<GateRef[]> {
    return this.listPending({ kind: 'user', id: userId }, limit);
  }

  async countPendingByApp(): Promise<Map<string, number>> {
    const counts = new Map<string, number>();
    for (const { pause, gates } of this.pauses.values()) {
      const pending = gates.filter((gate) => gate.record.state === 'pending').length;
      if (pending === 0) continue;
      const app = pause.adk.appName;
      counts.set(app, (counts.get(app) ?? 0) + pending);
    }
    return counts;
  }

  async listPendingByChannel(channelId: string, limit = DEFAULT_LIMIT): Promise<GateRef[]> {
    return this.listPending({ kind: 'channel', id: channelId }, limit);
  }

  /** Oldest first; refs of gates no longer pending (or pauses gone) are dropped as they are met. */
  async listPending(index: PendingIndex, limit = DEFAULT_LIMIT): Promise<GateRef[]> {
    const name = pendingIndexName(index);
    const refs = this.pending.get(name);
    if (!refs) return [];
    const found: GateRef[] = [];
    for (const [key, ref] of refs) {
      if (found.length >= limit) break;
      const entry = this.pauses.get(ref.pauseId);
      const gate = entry && gateOf(entry, ref.callId);
      if (gate?.record.state === 'pending') found.push({ ...ref });
      else refs.delete(key);
    }
    if (refs.size === 0) this.pending.delete(name);
    return found;
  }

  /**
   * With a pause id: that pause's trail (ids are positions in it), kept as long as the pause.
   * Without: the store-wide audit, capped at `auditMaxLen`.
   */
  async readAudit(options: { pauseId?: string; count?: number } = {}): Promise<AuditEntry[]> {
    const { pauseId, count = DEFAULT_LIMIT } = options;
    if (pauseId === undefined) return structuredClone(this.audit.slice(0, count));
    const trail = this.pauses.get(pauseId)?.trail ?? [];
    return structuredClone(
      trail.slice(0, count).map((item, i) => ({ id: String(i + 1), ...item })),
    );
  }

  async readAuditPage(options: AuditPageOptions): Promise<AuditEntry[]> {
    const { since, until, after, limit } = options;
    const from = after === undefined ? 0 : this.audit.findIndex((entry) => entry.id === after) + 1;
    const page = this.audit
      .slice(from)
      .filter(
        (entry) =>
          (after !== undefined || since === undefined || entry.at >= since) &&
          (until === undefined || entry.at <= until),
      )
      .slice(0, limit);
    return structuredClone(page);
  }

  async readRecentDecisions(userId: string, limit: number): Promise<AuditEntry[]> {
    const list = this.recent.get(userId) ?? [];
    return structuredClone(
      list.slice(0, limit).map((entry, i) => ({ ...entry, id: String(i + 1) })),
    );
  }

  async trimAudit(before: number): Promise<void> {
    const kept = this.audit.findIndex((entry) => entry.at >= before);
    this.audit.splice(0, kept < 0 ? this.audit.length : kept);
  }

  /** Memory loses its data only with the process, and the marker with it. */
  private marker: StoreMarker = { kind: 'missing' };

  async placeMarker(input: { now: number; lossFoundAt?: number }): Promise<void> {
    if (this.marker.kind === 'present') return;
    const { now, lossFoundAt } = input;
    this.marker = {
      kind: 'present',
      placedAt: now,
      ...(lossFoundAt === undefined ? {} : { lossFoundAt }),
    };
  }

  async readMarker(): Promise<StoreMarker> {
    return { ...this.marker };
  }

  async close(): Promise<void> {}

  private finish(
    input: FinishResumeInput,
    outcome: FinishOutcome,
    error: string,
    detail: string,
  ): FinishResult {
    const { pauseId, owner, now } = input;
    const run = this.load(pauseId, now);
    if (!run) return { kind: 'not_found' };
    const retentionMs = this.retentionMs;
    const result = finishResume(run, { now, owner, outcome, retentionMs, error, detail });
    this.mirror(run);
    return result;
  }

  /** The pause to run a script twin on, once pauses whose retention ended by `now` are gone. */
  async recordOutcome(input: OutcomeInput): Promise<OutcomeResult> {
    const { pauseId, callId, outcome, actor } = input;
    const run = this.load(pauseId, outcome.at);
    if (!run) return 'not_found';
    const notes = this.notesOf(pauseId);
    const result = addNote(
      run,
      notes,
      (into) => {
        into.outcomes[callId] = structuredClone(outcome);
        this.notes.set(pauseId, into);
      },
      outcomeAudit(outcome, actor, callId),
      callId,
    );
    this.mirror(run);
    return result;
  }

  async refuseHandOver(input: HandOverRefusal) {
    const run = this.load(input.pauseId, input.at);
    if (!run) return 'not_found';
    const result = refuseHandOver(run, input);
    this.mirror(run);
    return result;
  }

  async claimGateRun(input: GateRunClaim): Promise<'claimed' | 'taken'> {
    const notes = this.notesOf(input.pauseId);
    if (notes.claims?.[input.callId] !== undefined) return 'taken';
    const claims = { ...notes.claims, [input.callId]: { by: input.by, at: input.at } };
    this.notes.set(input.pauseId, { ...notes, claims });
    return 'claimed';
  }

  async recordDelivery(input: DeliveryInput): Promise<'recorded' | 'not_found'> {
    const { pauseId, delivery, actor } = input;
    const run = this.load(pauseId, delivery.at);
    if (!run) return 'not_found';
    addNote(
      run,
      this.notesOf(pauseId),
      (into) => {
        into.delivery = structuredClone(delivery);
        this.notes.set(pauseId, into);
      },
      deliveryAudit(delivery, actor),
      undefined,
    );
    this.mirror(run);
    return 'recorded';
  }

  async recordGrantEvent(input: GrantEventInput): Promise<OutcomeResult> {
    const run = this.load(input.pauseId, input.at);
    if (!run) return 'not_found';
    // The trail entry is the record: the grant itself lives in the grant store.
    const result = addNote(
      run,
      this.notesOf(input.pauseId),
      () => {},
      grantAudit(input),
      input.callId,
    );
    this.mirror(run);
    return result;
  }

  async readNotes(pauseId: string): Promise<PauseNotes> {
    return structuredClone(this.notesOf(pauseId));
  }

  async claimIdempotencyKey(input: IdempotencyInput): Promise<IdempotencyResult> {
    const now = Date.now();
    const seen = this.idempotency.get(input.key);
    if (seen !== undefined && seen.expiresAt > now) {
      return { kind: 'seen', fingerprint: seen.fingerprint, pauseId: seen.pauseId };
    }
    const { fingerprint, pauseId } = input;
    this.idempotency.set(input.key, { fingerprint, pauseId, expiresAt: now + input.ttlMs });
    return { kind: 'claimed' };
  }

  private notesOf(pauseId: string): PauseNotes {
    return this.notes.get(pauseId) ?? { outcomes: {} };
  }

  private load(pauseId: string, now: number): PauseRun | undefined {
    this.purge(now);
    const entry = this.pauses.get(pauseId);
    return entry && new PauseRun(entry, now);
  }

  /** As on Redis: the newest pause wins a call id; recording again fills only missing ones. */
  private afterCreate(view: PauseView, created: boolean): void {
    const { id, callIds, resume } = view.pause;
    if (isLiveResume(resume.state)) {
      for (const callId of callIds) {
        if (created || !this.byCallId.has(callId)) this.byCallId.set(callId, id);
      }
    }
    for (const gate of view.gates) {
      if (gate.state !== 'pending') continue;
      const ref: GateRef = { pauseId: id, callId: gate.confirmationCallId };
      for (const index of pendingIndexesOf(view, ref.callId)) {
        addRef(this.pending, pendingIndexName(index), ref);
      }
    }
  }

  /** Copies a run's trail entries to the store-wide audit, and its decisions to people's lists. */
  private mirror(run: PauseRun): void {
    for (const item of run.audited) {
      this.auditSequence += 1;
      this.audit.push({ id: `${this.auditSequence}-0`, ...item });
    }
    for (const item of recentEntries(run.audited)) {
      const { line: _, ...fields } = item;
      for (const user of recentDecisionHolders(item.actor, run.entry.pause.requester)) {
        const list = this.recent.get(user) ?? [];
        list.unshift({ id: '', ...fields });
        list.splice(RECENT_DECISIONS_MAX);
        this.recent.set(user, list);
      }
    }
    if (this.audit.length > this.auditMaxLen) {
      this.audit.splice(0, this.audit.length - this.auditMaxLen);
    }
  }

  /** The twin of Redis expiring a finished pause's keys: drops pauses whose retention ended. */
  private purge(now: number): void {
    for (const [pauseId, entry] of this.pauses) {
      if (entry.removeAt === undefined || entry.removeAt > now) continue;
      this.pauses.delete(pauseId);
      this.notes.delete(pauseId);
      for (const callId of entry.pause.callIds) {
        if (this.byCallId.get(callId) === pauseId) this.byCallId.delete(callId);
      }
    }
  }
}

/** When a pause's resume is due, if it may be resumed without a person. */
function resumeDueAt(entry: MemoryPause): number | undefined {
  const { resume } = entry.pause;
  if (resume.state === 'resuming') return resume.leaseUntil;
  if (resume.state !== 'idle') return undefined;
  let decidedAt = resume.holdUntil ?? 0;
  for (const { record } of entry.gates) {
    if (record.decision === undefined) return undefined;
    decidedAt = Math.max(decidedAt, record.decision.at);
  }
  return decidedAt;
}

function addRef(index: Map<string, Map<string, GateRef>>, id: string, ref: GateRef): void {
  const refs = index.get(id) ?? new Map<string, GateRef>();
  refs.set(JSON.stringify([ref.pauseId, ref.callId]), ref);
  index.set(id, refs);
}
