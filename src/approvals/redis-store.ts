import { z } from 'zod';
import type { Log } from '../log.js';
import { cancelDetail, resumeFailedDetail, voteDetail } from './audit-detail.js';
import { assertNoHashTag, type StoreKeys, storeKeys } from './keys.js';
import { type GateDecision, gateStateSchema, type PauseView, SYSTEM_ACTOR } from './records.js';
import { type RedisClient, toStoreError } from './redis-connection.js';
import { decodeCallIds, decodeView, encodeGate, encodePause } from './redis-records.js';
import { CALL_INDEX_LUA } from './scripts/call-index.lua.js';
import { CANCEL_LUA } from './scripts/cancel.lua.js';
import { CLAIM_RESUME_LUA } from './scripts/claim-resume.lua.js';
import type { ScriptCodeName } from './scripts/codes.js';
import { CREATE_PAUSE_LUA } from './scripts/create-pause.lua.js';
import { EXPIRE_GATE_LUA } from './scripts/expire-gate.lua.js';
import { FINISH_RESUME_LUA } from './scripts/finish-resume.lua.js';
import { LuaScript } from './scripts/lua-script.js';
import { READ_PAUSE_LUA } from './scripts/read-pause.lua.js';
import {
  type PauseScriptReply,
  parseCodeReply,
  parsePauseScriptReply,
  type ScriptAuditEntry,
} from './scripts/reply.js';
import { SET_CARD_TS_LUA } from './scripts/set-card-ts.lua.js';
import { VOTE_LUA } from './scripts/vote.lua.js';
import { ZSET_CAS_LUA } from './scripts/zset-cas.lua.js';
import {
  type AuditEntry,
  type CancelResult,
  type ClaimResult,
  type ConfirmationStore,
  type CreatePauseResult,
  type ExpiredGate,
  type FinishResult,
  type GateRef,
  type NewPause,
  StoreError,
  type VoteInput,
  type VoteResult,
} from './store.js';

/**
 * The confirmation store on Redis (standalone or Cluster).
 *
 * Every decision is one Lua script on the keys of one pause, which share a hash tag and so one
 * Cluster slot (layout in keys.ts): create, vote, expire, cancel, claim and finish are each a
 * compare-and-set on the stored state, so any number of replicas may race on them. The scripts
 * also append the pause's own audit stream, atomically with the transition.
 *
 * The global indexes (expiry and resume sorted sets, call-id entries, pending-by-channel and
 * -by-approver sets, the global audit stream) live in other slots, so they are updated by
 * separate single-key commands around the script. Nothing decisive depends on them being in
 * step, and a process that dies between the script and an index update leaves a state the
 * system recovers from:
 * - the expiry and resume entries of a new pause are written *before* its records, so no
 *   pending gate exists without an expiry entry; an entry without a record is dropped by the
 *   sweeper once it is a minute overdue (`expireDue`) or found missing (`dueResumes`);
 * - every pause is in the resume set from its creation, re-checked every `resumeRecheckMs`
 *   while pending, so a decided pause whose "resume now" update was lost is found again;
 * - entries for decided gates or finished pauses are dropped by whoever next reads them, with a
 *   compare-and-set on the score where a newer transition may have moved them;
 * - the pending-by-channel/approver sets are checked against the gate's state when listed;
 * - the global audit stream mirrors the per-pause streams after the fact (best effort; the
 *   per-pause stream is exact but expires with the pause).
 *
 * Retention: a pause is finished when it is resumed, abandoned (a gate cancelled) or its resume
 * failed. Its keys then expire after `retentionMs` (default 7 days). A failed resume waits for a
 * human Retry (`claimResume` again), which lifts the expiry; it is not retried automatically.
 */
export interface RedisStoreOptions {
  /** Configure it with `connectRedis` / `connectRedisCluster` (fail-fast timeouts), no keyPrefix. */
  redis: RedisClient;
  /** Prefix of every key, e.g. `adk-approvals:`. No braces: they would move the hash tag. */
  keyPrefix: string;
  /** How long a finished pause is kept before Redis removes it. Default 7 days. */
  retentionMs?: number;
  /** Approximate length the global audit stream is trimmed to (XADD MAXLEN ~). Default 100,000. */
  auditMaxLen?: number;
  /** How often a pending pause is re-checked for a lost "resume due" update. Default 5 minutes. */
  resumeRecheckMs?: number;
  /** `close()` also closes the client. Default false: the caller owns the client. */
  ownsClient?: boolean;
  /** Told when an index update after a recorded transition failed (the system recovers later). */
  log?: Pick<Log, 'warn'>;
}

const DEFAULT_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;
const DEFAULT_AUDIT_MAXLEN = 100_000;
const DEFAULT_RECHECK_MS = 5 * 60 * 1000;
/** An expiry entry whose pause does not exist may belong to a pause being created right now. */
const ORPHAN_GRACE_MS = 60_000;
/** Call ids of pauses never change: a replica keeps the latest ones to build script keys. */
const CALL_ID_CACHE_SIZE = 10_000;

const SCRIPTS = {
  createPause: new LuaScript('create_pause', CREATE_PAUSE_LUA),
  readPause: new LuaScript('read_pause', READ_PAUSE_LUA),
  setCardTs: new LuaScript('set_card_ts', SET_CARD_TS_LUA),
  vote: new LuaScript('vote', VOTE_LUA),
  expireGate: new LuaScript('expire_gate', EXPIRE_GATE_LUA),
  cancel: new LuaScript('cancel', CANCEL_LUA),
  claimResume: new LuaScript('claim_resume', CLAIM_RESUME_LUA),
  finishResume: new LuaScript('finish_resume', FINISH_RESUME_LUA),
  zsetCas: new LuaScript('zset_cas', ZSET_CAS_LUA),
  callIndex: new LuaScript('call_index', CALL_INDEX_LUA),
};

/** The outcome of a per-pause script, with the pause as the script left it. */
interface PauseOutcome extends PauseScriptReply {
  callIds: readonly string[];
  view: PauseView | undefined;
}

const gateMemberSchema = z.tuple([z.string(), z.string()]);
const auditFieldsSchema = z.object({
  at: z.string().regex(/^-?\d+(\.\d+)?$/),
  pauseId: z.string().optional(),
  event: z.string(),
  actor: z.string(),
  callId: z.string().optional(),
  detail: z.string().optional(),
});
const streamSchema = z.array(z.tuple([z.string(), z.array(z.string())]));

export class RedisConfirmationStore implements ConfirmationStore {
  private readonly redis: RedisClient;
  private readonly keys: StoreKeys;
  private readonly retentionMs: number;
  private readonly auditMaxLen: number;
  private readonly recheckMs: number;
  private readonly ownsClient: boolean;
  private readonly log: Pick<Log, 'warn'> | undefined;
  private readonly callIdCache = new Map<string, readonly string[]>();

  constructor(options: RedisStoreOptions) {
    if (options.redis.options.keyPrefix) {
      throw new Error('Pass a Redis client without keyPrefix; give the prefix to the store');
    }
    this.redis = options.redis;
    this.keys = storeKeys(options.keyPrefix);
    this.retentionMs = options.retentionMs ?? DEFAULT_RETENTION_MS;
    this.auditMaxLen = options.auditMaxLen ?? DEFAULT_AUDIT_MAXLEN;
    this.recheckMs = options.resumeRecheckMs ?? DEFAULT_RECHECK_MS;
    this.ownsClient = options.ownsClient ?? false;
    this.log = options.log;
  }

  async createPause(input: NewPause): Promise<CreatePauseResult> {
    const callIds = checkNewPause(input);
    const { id, now } = input;
    const gates = input.gates.map((gate) => encodeGate(id, gate, now));
    // Before the records: no pending gate may exist without its expiry entry (see header).
    await this.command('index the new pause', () =>
      Promise.all([
        ...gates.flatMap((gate) =>
          gate.expiresAt === undefined
            ? []
            : [this.redis.zadd(this.keys.expiry, 'NX', gate.expiresAt, member(id, gate.callId))],
        ),
        this.redis.zadd(this.keys.resume, 'NX', now + this.recheckMs, id),
      ]),
    );
    const pause = encodePause(input, callIds);
    const args: (string | number)[] = [now, pause.record, pause.cardTs, input.requester];
    for (const gate of gates) {
      args.push(gate.callId, gate.record, gate.policy, gate.expiresAt ?? '');
    }
    const outcome = await this.runScript(SCRIPTS.createPause, id, callIds, args);
    // Existing under another order of the same call ids: that is the same pause.
    const view = outcome.view ?? (await this.getPause(id));
    if (view === undefined || !sameSet(view.pause.callIds, callIds)) {
      throw new Error(`Pause ${id} exists with other call ids`);
    }
    this.remember(id, view.pause.callIds);
    const created = outcome.code === 'CREATED';
    await this.afterwards(view, outcome.audit, now, [
      // Newest pause wins the call-id entry; a repeated create only fills a missing one.
      ...callIds.map((callId) =>
        created
          ? this.redis.set(this.keys.call(callId), id)
          : this.redis.set(this.keys.call(callId), id, 'NX'),
      ),
      ...view.gates
        .filter((gate) => gate.state === 'pending')
        .flatMap((gate) => this.addPending(view, gate.confirmationCallId, gate.createdAt)),
    ]);
    return { kind: created ? 'created' : 'existed', view };
  }

  async getPause(pauseId: string): Promise<PauseView | undefined> {
    const outcome = await this.onPause(SCRIPTS.readPause, pauseId, () => [Date.now()]);
    return outcome.view;
  }

  async findPauseIdByCallId(callId: string): Promise<string | undefined> {
    const key = this.keys.call(callId);
    const pauseId = await this.command(`read ${key}`, () => this.redis.get(key));
    if (pauseId === null) return undefined;
    const exists = await this.command('check the pause', () =>
      this.redis.exists(this.keys.pause(pauseId)),
    );
    if (exists === 1) return pauseId;
    await this.callIndex(callId, pauseId, 'delete');
    return undefined;
  }

  async setCardTs(pauseId: string, ts: string): Promise<PauseView | undefined> {
    const outcome = await this.onPause(SCRIPTS.setCardTs, pauseId, () => [Date.now(), ts]);
    await this.afterwards(outcome.view, outcome.audit, Date.now(), []);
    return outcome.view;
  }

  async vote(input: VoteInput): Promise<VoteResult> {
    const { pauseId, callId, voter, choice, payload, reason, now } = input;
    const vote = JSON.stringify({ voter, choice, at: now, payload, reason });
    const decision: GateDecision = {
      by: voter,
      at: now,
      ...(reason === undefined ? {} : { reason }),
    };
    const outcome = await this.onPause(SCRIPTS.vote, pauseId, (callIds) => {
      const index = callIds.indexOf(callId);
      if (index < 0) return undefined;
      return [
        now,
        index + 1,
        voter,
        choice,
        vote,
        payload === undefined ? '' : JSON.stringify(payload),
        JSON.stringify(decision),
        this.systemDecision(now),
        this.retentionMs,
        voteDetail(input),
      ];
    });
    const view = outcome.view;
    if (view === undefined) return { kind: 'not_found' };
    const [first = '', second = ''] = outcome.info;
    switch (outcome.code) {
      case 'COUNTED':
        await this.afterwards(view, outcome.audit, now, []);
        return { kind: 'counted', view, approvals: Number(first), quorum: Number(second) };
      case 'DECIDED':
      case 'EXPIRED': {
        const pauseDecided = second === '1';
        await this.afterwards(
          view,
          outcome.audit,
          now,
          this.settle(view, now, [callId], pauseDecided),
        );
        const state = gateStateSchema.parse(first);
        return outcome.code === 'DECIDED'
          ? { kind: 'decided', view, state, pauseDecided }
          : { kind: 'expired', view, state, pauseDecided };
      }
      case 'ALREADY_VOTED':
        return { kind: 'already_voted', view };
      case 'ALREADY_DECIDED': {
        const gate = view.gates.find((g) => g.confirmationCallId === callId);
        if (gate?.decision === undefined) {
          throw new StoreError(
            'corrupt_record',
            `gate ${callId} of ${pauseId} is decided without a decision`,
          );
        }
        return { kind: 'already_decided', view, state: gate.state, decision: gate.decision };
      }
      default:
        throw unexpected('vote', outcome.code);
    }
  }

  async cancel(input: {
    pauseId: string;
    by: string;
    reason?: string;
    now: number;
  }): Promise<CancelResult> {
    const { pauseId, by, reason, now } = input;
    const decision: GateDecision = { by, at: now, ...(reason === undefined ? {} : { reason }) };
    const outcome = await this.onPause(SCRIPTS.cancel, pauseId, () => [
      now,
      by,
      JSON.stringify(decision),
      this.retentionMs,
      cancelDetail(reason),
    ]);
    const view = outcome.view;
    if (view === undefined) return { kind: 'not_found' };
    if (outcome.code === 'NOTHING_PENDING') return { kind: 'nothing_pending', view };
    if (outcome.code !== 'CANCELLED') throw unexpected('cancel', outcome.code);
    await this.afterwards(view, outcome.audit, now, this.settle(view, now, outcome.info, false));
    return { kind: 'cancelled', view, callIds: outcome.info };
  }

  async expireDue(now: number, limit = 100): Promise<ExpiredGate[]> {
    // One read of the global set, then one per-pause script per entry (Cluster-safe).
    const raw = await this.command('read the expiry index', () =>
      this.redis.zrangebyscore(this.keys.expiry, '-inf', now, 'WITHSCORES', 'LIMIT', 0, limit),
    );
    const entries = pairs(raw).map(([text, score]) => ({
      ...parseMember(this.keys.expiry, text),
      text,
      score: Number(score),
    }));
    const results = await Promise.allSettled(entries.map((entry) => this.expireEntry(entry, now)));
    const expired: ExpiredGate[] = [];
    const failures: unknown[] = [];
    for (const result of results) {
      if (result.status === 'rejected') failures.push(result.reason);
      else if (result.value !== undefined) expired.push(result.value);
    }
    // Every entry was tried; the expiries applied are durable and their resumes come due.
    if (failures.length > 0) throw toStoreError(failures[0], 'expire due gates');
    return expired;
  }

  async claimResume(input: {
    pauseId: string;
    owner: string;
    now: number;
    leaseMs: number;
  }): Promise<ClaimResult> {
    const { pauseId, owner, now, leaseMs } = input;
    const leaseUntil = now + leaseMs;
    const outcome = await this.onPause(SCRIPTS.claimResume, pauseId, () => [
      now,
      owner,
      leaseUntil,
      leaseMs,
    ]);
    const view = outcome.view;
    if (view === undefined) return { kind: 'not_found' };
    switch (outcome.code) {
      case 'CLAIMED': {
        const [attempt = '', before = ''] = outcome.info;
        await this.afterwards(view, outcome.audit, now, [
          this.redis.zadd(this.keys.resume, 'GT', leaseUntil, pauseId),
          ...(before === 'failed'
            ? view.pause.callIds.map((callId) => this.callIndex(callId, pauseId, 'persist'))
            : []),
        ]);
        return { kind: 'claimed', view, attempt: Number(attempt) };
      }
      case 'NOT_DECIDED':
        return { kind: 'not_decided', view };
      case 'LEASED':
        return { kind: 'leased', view, leaseUntil: Number(outcome.info[0]) };
      case 'FINISHED':
        return { kind: 'finished', view };
      default:
        throw unexpected('claim_resume', outcome.code);
    }
  }

  async dueResumes(now: number, limit = 100): Promise<string[]> {
    const raw = await this.command('read the resume index', () =>
      this.redis.zrangebyscore(this.keys.resume, '-inf', now, 'WITHSCORES', 'LIMIT', 0, limit),
    );
    const due = await Promise.all(
      pairs(raw).map(([pauseId, score]) => this.checkResume(pauseId, score, now)),
    );
    return due.filter((pauseId) => pauseId !== undefined);
  }

  markResumed(input: { pauseId: string; owner: string; now: number }): Promise<FinishResult> {
    return this.finish(input, 'resumed', '', '');
  }

  markResumeFailed(input: {
    pauseId: string;
    owner: string;
    now: number;
    error: string;
  }): Promise<FinishResult> {
    return this.finish(input, 'failed', input.error, resumeFailedDetail(input.error));
  }

  /** Explicit user approvers only: user groups and channel members are known only to Slack. */
  listPendingByApprover(userId: string, limit = 100): Promise<GateRef[]> {
    return this.listPending(this.keys.pendingByUser(userId), limit);
  }

  listPendingByChannel(channelId: string, limit = 100): Promise<GateRef[]> {
    return this.listPending(this.keys.pendingByChannel(channelId), limit);
  }

  async readAudit(options: { pauseId?: string; count?: number } = {}): Promise<AuditEntry[]> {
    const { pauseId, count = 100 } = options;
    const key = pauseId === undefined ? this.keys.audit : this.keys.pauseAudit(pauseId);
    const raw = await this.command(`read ${key}`, () =>
      this.redis.xrange(key, '-', '+', 'COUNT', count),
    );
    const parsed = streamSchema.safeParse(raw);
    if (!parsed.success) throw new StoreError('corrupt_record', `${key} is not an audit stream`);
    return parsed.data.map(([id, flat]) => {
      const fields = auditFieldsSchema.safeParse(Object.fromEntries(pairs(flat)));
      if (!fields.success) {
        throw new StoreError(
          'corrupt_record',
          `${key} entry ${id}: ${z.prettifyError(fields.error)}`,
        );
      }
      const { at, event, actor, callId, detail } = fields.data;
      return {
        id,
        at: Number(at),
        pauseId: fields.data.pauseId ?? pauseId ?? '',
        event,
        actor,
        ...(callId === undefined ? {} : { callId }),
        ...(detail === undefined ? {} : { detail }),
      };
    });
  }

  async close(): Promise<void> {
    if (!this.ownsClient) return;
    try {
      await this.redis.quit();
    } catch {
      this.redis.disconnect();
    }
  }

  // --- per-pause scripts -------------------------------------------------------------------

  /**
   * Runs a per-pause script with the pause's keys. `args` receives the pause's call ids and
   * returns the script's ARGV, or undefined when the call names no gate of the pause.
   */
  private async onPause(
    script: LuaScript,
    pauseId: string,
    args: (callIds: readonly string[]) => (string | number)[] | undefined,
  ): Promise<PauseOutcome> {
    for (let attempt = 0; attempt < 2; attempt++) {
      const callIds = await this.callIdsOf(pauseId);
      const argv = callIds && args(callIds);
      if (callIds === undefined || argv === undefined) return notFound(callIds ?? []);
      const outcome = await this.runScript(script, pauseId, callIds, argv);
      if (outcome.code === 'NOT_FOUND') this.callIdCache.delete(pauseId);
      if (outcome.code !== 'KEYS_MISMATCH' && (outcome.view || outcome.code === 'NOT_FOUND')) {
        return outcome;
      }
      this.callIdCache.delete(pauseId);
    }
    throw new StoreError(
      'corrupt_record',
      `${this.keys.pause(pauseId)}: its gates do not match its call ids`,
    );
  }

  private async runScript(
    script: LuaScript,
    pauseId: string,
    callIds: readonly string[],
    args: (string | number)[],
  ): Promise<PauseOutcome> {
    const keys = this.keys.scriptKeys(pauseId, callIds);
    const raw = await this.command(`${script.name} on ${keys[0]}`, () =>
      script.run(this.redis, keys, args),
    );
    const reply = parsePauseScriptReply(script.name, raw);
    if (reply.code === 'CORRUPT') {
      const [index = '0', problem = ''] = reply.info;
      const key = keys[Number(index) - 1] ?? `a key of pause ${pauseId}`;
      throw new StoreError('corrupt_record', `${key} does not hold a valid record: ${problem}`);
    }
    const view =
      reply.pauseValues.length === 0
        ? undefined
        : decodeView(keys, callIds, reply.pauseValues, reply.gateValues);
    return { ...reply, callIds, view };
  }

  private async callIdsOf(pauseId: string): Promise<readonly string[] | undefined> {
    const cached = this.callIdCache.get(pauseId);
    if (cached) return cached;
    const key = this.keys.pause(pauseId);
    const record = await this.command(`read ${key}`, () => this.redis.hget(key, 'record'));
    if (record === null) return undefined;
    const callIds = decodeCallIds(key, record);
    this.remember(pauseId, callIds);
    return callIds;
  }

  private remember(pauseId: string, callIds: readonly string[]): void {
    this.callIdCache.delete(pauseId);
    this.callIdCache.set(pauseId, callIds);
    if (this.callIdCache.size > CALL_ID_CACHE_SIZE) {
      const oldest = this.callIdCache.keys().next();
      if (!oldest.done) this.callIdCache.delete(oldest.value);
    }
  }

  private systemDecision(now: number): string {
    const decision: GateDecision = { by: SYSTEM_ACTOR, at: now };
    return JSON.stringify(decision);
  }

  private async expireEntry(
    entry: { pauseId: string; callId: string; text: string; score: number },
    now: number,
  ): Promise<ExpiredGate | undefined> {
    const { pauseId, callId, text, score } = entry;
    const outcome = await this.onPause(SCRIPTS.expireGate, pauseId, (callIds) => {
      const index = callIds.indexOf(callId);
      return index < 0 ? undefined : [now, index + 1, this.systemDecision(now), this.retentionMs];
    });
    const view = outcome.view;
    const expiry = this.keys.expiry;
    switch (outcome.code) {
      case 'EXPIRED': {
        if (view === undefined) throw unexpected('expire_gate', outcome.code);
        const pauseDecided = outcome.info[1] === '1';
        await this.afterwards(
          view,
          outcome.audit,
          now,
          this.settle(view, now, [callId], pauseDecided),
        );
        const state = gateStateSchema.parse(outcome.info[0]);
        return { view, callId, state, pauseDecided };
      }
      case 'NOT_DUE':
        await this.command('reschedule an expiry', () =>
          this.redis.zadd(expiry, 'XX', Number(outcome.info[0]), text),
        );
        return undefined;
      case 'NOT_PENDING':
        await this.command('drop a stale expiry', () => this.redis.zrem(expiry, text));
        return undefined;
      case 'NOT_FOUND':
        if (score < now - ORPHAN_GRACE_MS) {
          await this.command('drop an orphan expiry', () => this.redis.zrem(expiry, text));
        }
        return undefined;
      default:
        throw unexpected('expire_gate', outcome.code);
    }
  }

  private async finish(
    input: { pauseId: string; owner: string; now: number },
    outcome: 'resumed' | 'failed',
    error: string,
    detail: string,
  ): Promise<FinishResult> {
    const { pauseId, owner, now } = input;
    const result = await this.onPause(SCRIPTS.finishResume, pauseId, () => [
      now,
      owner,
      outcome,
      this.retentionMs,
      error,
      detail,
    ]);
    const view = result.view;
    if (view === undefined) return { kind: 'not_found' };
    if (result.code === 'LOST_LEASE') return { kind: 'lost_lease', view };
    if (result.code !== 'OK') throw unexpected('finish_resume', result.code);
    const leaseUntil = result.info[0] ?? '';
    await this.afterwards(view, result.audit, now, [
      // Only the entry this lease put there: a Retry's claim may already have moved it.
      ...(leaseUntil === '' ? [] : [this.zsetCas(this.keys.resume, pauseId, leaseUntil, '')]),
      ...view.pause.callIds.map((callId) => this.callIndex(callId, pauseId, 'expire')),
    ]);
    return { kind: 'ok', view };
  }

  // --- indexes -------------------------------------------------------------------------------

  /** Index updates after a transition decided gates (`changed`) or finished the pause. */
  private settle(
    view: PauseView,
    now: number,
    changed: readonly string[],
    pauseDecided: boolean,
  ): Promise<unknown>[] {
    const { pause } = view;
    const updates: Promise<unknown>[] = [];
    for (const gate of view.gates) {
      if (gate.state === 'pending') continue;
      if (!changed.includes(gate.confirmationCallId) && pause.resume.state !== 'abandoned')
        continue;
      updates.push(this.redis.zrem(this.keys.expiry, member(pause.id, gate.confirmationCallId)));
      updates.push(...this.removePending(view, gate.confirmationCallId));
    }
    if (pause.resume.state === 'abandoned') {
      updates.push(this.redis.zrem(this.keys.resume, pause.id));
      for (const callId of pause.callIds) updates.push(this.callIndex(callId, pause.id, 'expire'));
    } else if (pauseDecided) {
      updates.push(this.redis.zadd(this.keys.resume, now, pause.id));
    }
    return updates;
  }

  private pendingKeys(view: PauseView, callId: string): string[] {
    const gate = view.gates.find((g) => g.confirmationCallId === callId);
    const users = (gate?.policy.approvers ?? []).flatMap((approver) =>
      approver.kind === 'user' ? [this.keys.pendingByUser(approver.id)] : [],
    );
    return [this.keys.pendingByChannel(view.pause.card.channelId), ...users];
  }

  private addPending(view: PauseView, callId: string, createdAt: number): Promise<unknown>[] {
    const entry = member(view.pause.id, callId);
    return this.pendingKeys(view, callId).map((key) => this.redis.zadd(key, createdAt, entry));
  }

  private removePending(view: PauseView, callId: string): Promise<unknown>[] {
    const entry = member(view.pause.id, callId);
    return this.pendingKeys(view, callId).map((key) => this.redis.zrem(key, entry));
  }

  /**
   * Mirrors the audit entries to the global stream and applies the index updates. The
   * transition is already recorded, so a failure here is logged, not thrown (see header).
   */
  private async afterwards(
    view: PauseView | undefined,
    audit: readonly ScriptAuditEntry[],
    now: number,
    updates: Promise<unknown>[],
  ): Promise<void> {
    const mirrored =
      view === undefined ? [] : audit.map((entry) => this.mirror(view.pause.id, now, entry));
    const results = await Promise.allSettled([...mirrored, ...updates]);
    const failed = results.find((result) => result.status === 'rejected');
    if (failed) {
      this.log?.warn('index update after a recorded transition failed; it will be repaired', {
        pauseId: view?.pause.id,
        error: toStoreError(failed.reason, 'update an index').message,
      });
    }
  }

  private mirror(pauseId: string, now: number, entry: ScriptAuditEntry): Promise<unknown> {
    const fields = [
      'at',
      String(now),
      'pauseId',
      pauseId,
      'event',
      entry.event,
      'actor',
      entry.actor,
    ];
    if (entry.callId !== '') fields.push('callId', entry.callId);
    if (entry.detail !== '') fields.push('detail', entry.detail);
    return this.redis.xadd(this.keys.audit, 'MAXLEN', '~', this.auditMaxLen, '*', ...fields);
  }

  /** Whether a resume-index entry is due; moves or drops it when it is not (see header). */
  private async checkResume(
    pauseId: string,
    score: string,
    now: number,
  ): Promise<string | undefined> {
    const key = this.keys.pause(pauseId);
    const [pending, state, leaseUntil] = await this.command(`read ${key}`, () =>
      this.redis.hmget(key, 'pending', 'resumeState', 'leaseUntil'),
    );
    const resume = this.keys.resume;
    if (state === null || state === undefined) {
      await this.zsetCas(resume, pauseId, score, '');
      return undefined;
    }
    if (Number(pending) > 0) {
      await this.zsetCas(resume, pauseId, score, String(now + this.recheckMs));
      return undefined;
    }
    switch (state) {
      case 'idle':
        return pauseId;
      case 'resuming':
        if (Number(leaseUntil) <= now) return pauseId;
        await this.command('reschedule a resume check', () =>
          this.redis.zadd(resume, 'XX', 'GT', Number(leaseUntil), pauseId),
        );
        return undefined;
      case 'failed':
      case 'resumed':
      case 'abandoned':
        // Failed resumes wait for a human Retry; a claim puts them back with its lease.
        await this.zsetCas(resume, pauseId, score, '');
        return undefined;
      default:
        throw new StoreError('corrupt_record', `${key} does not hold a valid record: resumeState`);
    }
  }

  private async listPending(key: string, limit: number): Promise<GateRef[]> {
    const found: GateRef[] = [];
    let start = 0;
    // Stale entries (decided or removed gates) are dropped as they are met; bounded rounds.
    for (let round = 0; round < 10 && found.length < limit; round++) {
      const texts = await this.command(`read ${key}`, () =>
        this.redis.zrange(key, start, start + limit - 1),
      );
      if (texts.length === 0) break;
      const refs = texts.map((text) => ({ ...parseMember(key, text), text }));
      const states = await Promise.all(
        refs.map((ref) => {
          const gateKey = this.keys.gate(ref.pauseId, ref.callId);
          return this.command(`read ${gateKey}`, () => this.redis.hget(gateKey, 'state'));
        }),
      );
      const stale: string[] = [];
      refs.forEach((ref, i) => {
        if (states[i] === 'pending') found.push({ pauseId: ref.pauseId, callId: ref.callId });
        else stale.push(ref.text);
      });
      if (stale.length > 0)
        await this.command(`clean ${key}`, () => this.redis.zrem(key, ...stale));
      start += texts.length - stale.length;
      if (texts.length < limit) break;
    }
    return found.slice(0, limit);
  }

  private async zsetCas(key: string, entry: string, expected: string, next: string): Promise<void> {
    const raw = await this.command(`update ${key}`, () =>
      SCRIPTS.zsetCas.run(this.redis, [key], [entry, expected, next]),
    );
    parseCodeReply(SCRIPTS.zsetCas.name, raw);
  }

  private async callIndex(
    callId: string,
    pauseId: string,
    action: 'expire' | 'persist' | 'delete',
  ): Promise<void> {
    const key = this.keys.call(callId);
    const raw = await this.command(`update ${key}`, () =>
      SCRIPTS.callIndex.run(this.redis, [key], [pauseId, action, this.retentionMs]),
    );
    parseCodeReply(SCRIPTS.callIndex.name, raw);
  }

  /** Runs one Redis call, turning whatever it throws into a `StoreError`. */
  private async command<T>(doing: string, call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      throw toStoreError(error, doing);
    }
  }
}

/** Checks what the store relies on and returns the call ids, in the order ADK raised them. */
function checkNewPause(input: NewPause): string[] {
  assertNoHashTag('A pause id', input.id);
  if (input.id === '') throw new Error('A pause id must not be empty');
  const callIds = input.gates.map((gate) => gate.confirmationCallId);
  if (callIds.length === 0) throw new Error(`Pause ${input.id} has no gates`);
  if (new Set(callIds).size !== callIds.length) {
    throw new Error(`Pause ${input.id} has the same confirmation call id twice`);
  }
  return callIds;
}

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((item) => b.includes(item));
}

function member(pauseId: string, callId: string): string {
  return JSON.stringify([pauseId, callId]);
}

function parseMember(key: string, text: string): GateRef {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    value = undefined;
  }
  const parsed = gateMemberSchema.safeParse(value);
  if (!parsed.success)
    throw new StoreError(
      'corrupt_record',
      `${key} holds a member that is not [pauseId, callId]: ${text}`,
    );
  const [pauseId, callId] = parsed.data;
  return { pauseId, callId };
}

/** `[a, 1, b, 2]` (WITHSCORES, or a stream entry's fields) → `[[a, 1], [b, 2]]`. */
function pairs(flat: readonly string[]): [string, string][] {
  const out: [string, string][] = [];
  for (let i = 0; i + 1 < flat.length; i += 2) out.push([flat[i] ?? '', flat[i + 1] ?? '']);
  return out;
}

function notFound(callIds: readonly string[]): PauseOutcome {
  return {
    code: 'NOT_FOUND',
    info: [],
    audit: [],
    pauseValues: [],
    gateValues: [],
    callIds,
    view: undefined,
  };
}

function unexpected(script: string, code: ScriptCodeName): StoreError {
  return new StoreError('script', `script ${script} answered ${code}, which it never should`);
}
