import type { Log } from '../../log.js';
import { gateStateSchema, type PauseNotes, type PauseView } from '../records.js';
import {
  type AuditEntry,
  type CancelInput,
  type CancelResult,
  type ClaimCardlessInput,
  type ClaimResult,
  type ClaimResumeInput,
  type ConfirmationStore,
  type CreatePauseResult,
  type DeliveryInput,
  type ExpiredGate,
  type FinishResult,
  type FinishResumeInput,
  type GateRef,
  type IdempotencyInput,
  type IdempotencyResult,
  type NewPause,
  type OutcomeInput,
  type OutcomeResult,
  type RenewLeaseInput,
  type RenewLeaseResult,
  type ResumeFailedInput,
  StoreError,
  type VoteAllInput,
  type VoteAllResult,
  type VoteInput,
  type VoteResult,
  type WithdrawInput,
  type WithdrawResult,
} from '../store.js';
import { assertNoHashTag, type StoreKeys, storeKeys } from './keys.js';
import { readAuditStream, readPauseTrail } from './redis-audit.js';
import { type RedisClient, redisCall, toStoreError } from './redis-connection.js';
import { type IndexEntry, RedisIndexes } from './redis-indexes.js';
import { RedisPauseNotes } from './redis-notes.js';
import { decodeCallIds, decodeView, encodeGate, encodePause } from './redis-records.js';
import {
  assertSamePause,
  cancelDetail,
  checkNewPause,
  createdDetail,
  DEFAULT_AUDIT_MAXLEN,
  DEFAULT_LIMIT,
  DEFAULT_RETENTION_MS,
  type FinishOutcome,
  newVote,
  personDecision,
  recordedGates,
  resumeFailedDetail,
  systemDecision,
  voteDetail,
  withdrawDetail,
} from './rules.js';
import { CANCEL_LUA } from './scripts/cancel.lua.js';
import { CLAIM_RESUME_LUA } from './scripts/claim-resume.lua.js';
import { type ScriptCodeName, scriptCodeName } from './scripts/codes.js';
import { CREATE_PAUSE_LUA } from './scripts/create-pause.lua.js';
import { EXPIRE_GATE_LUA } from './scripts/expire-gate.lua.js';
import { FINISH_RESUME_LUA } from './scripts/finish-resume.lua.js';
import { LuaScript } from './scripts/lua-script.js';
import { READ_PAUSE_LUA } from './scripts/read-pause.lua.js';
import { RENEW_LEASE_LUA } from './scripts/renew-lease.lua.js';
import { type PauseScriptReply, parsePauseScriptReply } from './scripts/reply.js';
import { SET_CARD_TS_LUA } from './scripts/set-card-ts.lua.js';
import { VOTE_ALL_LUA, VOTE_LUA } from './scripts/vote.lua.js';
import { WITHDRAW_LUA } from './scripts/withdraw.lua.js';

/**
 * The confirmation store on Redis, standalone or Cluster.
 *
 * Every transition of a pause is one Lua script on the keys of that pause, which share a hash
 * tag and so one Cluster slot (layout in keys.ts): create, vote, expire, cancel, claim and
 * finish are each a compare-and-set on the stored state, so any number of replicas may race on
 * them. The scripts also append the pause's own audit trail, atomically with the transition.
 * The global indexes are kept around the scripts by `RedisIndexes` (see there for how they
 * converge after a crash between a script and an index update).
 *
 * Retention: a pause is finished when it is resumed, abandoned (a gate cancelled) or its resume
 * failed; its keys then expire after `retentionMs` (default 7 days). A failed resume waits for a
 * human Retry (`claimResume` with `retryFailed`), which lifts the expiry; it is never retried
 * automatically and `dueResumes` does not list it.
 *
 * Call ids: adk-rs call ids are chosen by the model and may repeat across sessions. The call-id
 * index answers for the newest pause holding one; clicks carry the pause id, so they never
 * depend on it.
 */
export interface RedisStoreOptions {
  /** From `connectRedis` / `connectRedisCluster` (fail-fast timeouts); without a keyPrefix. */
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
  /** Told when an index update after a recorded transition failed (the system recovers). */
  log?: Pick<Log, 'warn'>;
}

const DEFAULT_RECHECK_MS = 5 * 60 * 1000;
/** Call ids of a pause never change: a replica keeps the latest ones to build script keys. */
const CALL_ID_CACHE_SIZE = 10_000;

const SCRIPTS = {
  createPause: new LuaScript('create_pause', CREATE_PAUSE_LUA),
  readPause: new LuaScript('read_pause', READ_PAUSE_LUA),
  setCardTs: new LuaScript('set_card_ts', SET_CARD_TS_LUA),
  vote: new LuaScript('vote', VOTE_LUA),
  voteAll: new LuaScript('vote_all', VOTE_ALL_LUA),
  expireGate: new LuaScript('expire_gate', EXPIRE_GATE_LUA),
  cancel: new LuaScript('cancel', CANCEL_LUA),
  withdraw: new LuaScript('withdraw', WITHDRAW_LUA),
  claimResume: new LuaScript('claim_resume', CLAIM_RESUME_LUA),
  renewLease: new LuaScript('renew_lease', RENEW_LEASE_LUA),
  finishResume: new LuaScript('finish_resume', FINISH_RESUME_LUA),
};

/** What a per-pause script answered, with the pause as the script left it. */
interface PauseOutcome extends PauseScriptReply {
  view: PauseView | undefined;
}

const NOT_FOUND: PauseOutcome = {
  code: 'NOT_FOUND',
  info: [],
  audit: [],
  pauseValues: [],
  gateValues: [],
  view: undefined,
};

export class RedisConfirmationStore implements ConfirmationStore {
  private readonly redis: RedisClient;
  private readonly keys: StoreKeys;
  private readonly indexes: RedisIndexes;
  private readonly retentionMs: number;
  private readonly ownsClient: boolean;
  private readonly callIdCache = new Map<string, readonly string[]>();
  private readonly notes: RedisPauseNotes;

  constructor(options: RedisStoreOptions) {
    if (options.redis.options.keyPrefix) {
      throw new Error('Pass a Redis client without keyPrefix; give the prefix to the store');
    }
    this.redis = options.redis;
    this.keys = storeKeys(options.keyPrefix);
    this.retentionMs = options.retentionMs ?? DEFAULT_RETENTION_MS;
    this.ownsClient = options.ownsClient ?? false;
    this.notes = new RedisPauseNotes(this.redis, this.keys, this.retentionMs);
    this.indexes = new RedisIndexes(this.redis, this.keys, {
      retentionMs: this.retentionMs,
      auditMaxLen: options.auditMaxLen ?? DEFAULT_AUDIT_MAXLEN,
      recheckMs: options.resumeRecheckMs ?? DEFAULT_RECHECK_MS,
      log: options.log,
    });
  }

  async createPause(input: NewPause): Promise<CreatePauseResult> {
    const callIds = checkNewPause(input);
    assertNoHashTag('A pause id', input.id);
    const { id, now } = input;
    const gates = recordedGates(input.gates).map((gate) => encodeGate(id, gate, now));
    await this.indexes.beforeCreate(id, gates, now, input.card.ts !== undefined);
    const pause = encodePause(input, callIds);
    const args: (string | number)[] = [
      now,
      pause.record,
      pause.cardTs,
      input.requester,
      createdDetail(callIds.length),
    ];
    for (const gate of gates) {
      args.push(gate.callId, gate.record, gate.policy, gate.expiresAt ?? '');
    }
    const outcome = await this.runScript(SCRIPTS.createPause, id, callIds, args);
    // Recorded before with the same call ids in another order: that is the same pause.
    const view = outcome.view ?? (await this.getPause(id));
    assertSamePause(id, view, callIds);
    this.remember(id, view.pause.callIds);
    const created = outcome.code === 'CREATED';
    await this.indexes.apply(view, outcome.audit, now, this.indexes.afterCreate(view, created));
    return { kind: created ? 'created' : 'existed', view };
  }

  async placeMarker(now: number): Promise<void> {
    await redisCall('place the store marker', () =>
      this.redis.set(this.keys.marker, String(now), 'NX'),
    );
  }

  async checkMarker(): Promise<'present' | 'missing'> {
    const exists = await redisCall('check the store marker', () =>
      this.redis.exists(this.keys.marker),
    );
    return exists === 1 ? 'present' : 'missing';
  }

  async getPause(pauseId: string): Promise<PauseView | undefined> {
    const outcome = await this.onPause(SCRIPTS.readPause, pauseId, () => ['']);
    return outcome.view;
  }

  findPauseIdByCallId(callId: string): Promise<string | undefined> {
    return this.indexes.pauseIdOfCall(callId);
  }

  async setCardTs(pauseId: string, ts: string, now: number): Promise<PauseView | undefined> {
    const outcome = await this.onPause(SCRIPTS.setCardTs, pauseId, () => [now, ts]);
    const updates = outcome.view === undefined ? [] : this.indexes.afterCardPosted(pauseId);
    await this.indexes.apply(outcome.view, outcome.audit, now, updates);
    return outcome.view;
  }

  async vote(input: VoteInput): Promise<VoteResult> {
    const { pauseId, callId, voter, choice, payload, reason, now } = input;
    const decision = personDecision(voter, now, reason);
    await this.indexes.beforeVote(pauseId, now);
    const outcome = await this.onPause(SCRIPTS.vote, pauseId, (callIds) => {
      const index = callIds.indexOf(callId);
      if (index < 0) return undefined;
      return [
        now,
        index + 1,
        voter,
        choice,
        JSON.stringify(newVote(input)),
        payload === undefined ? '' : JSON.stringify(payload),
        JSON.stringify(decision),
        JSON.stringify(systemDecision(now)),
        this.retentionMs,
        voteDetail(input),
      ];
    });
    const view = outcome.view;
    if (view === undefined) return { kind: 'not_found' };
    const result = this.voteResult(outcome.code, outcome.info, view, callId);
    const decided = result.kind === 'decided' || result.kind === 'expired';
    const updates = decided
      ? this.indexes.afterDecision(view, now, [callId], result.pauseDecided)
      : [];
    await this.indexes.apply(view, outcome.audit, now, updates);
    return result;
  }

  async voteAll(input: VoteAllInput): Promise<VoteAllResult> {
    const { pauseId, voter, choice, reason, now } = input;
    const decision = personDecision(voter, now, reason);
    await this.indexes.beforeVote(pauseId, now);
    const outcome = await this.onPause(SCRIPTS.voteAll, pauseId, (callIds) => {
      const indexes = input.callIds.map((callId) => callIds.indexOf(callId) + 1);
      if (indexes.length === 0 || indexes.includes(0)) return undefined;
      return [
        now,
        voter,
        choice,
        JSON.stringify(newVote({ ...input, callId: '' })),
        JSON.stringify(decision),
        JSON.stringify(systemDecision(now)),
        this.retentionMs,
        voteDetail(input),
        ...indexes,
      ];
    });
    const view = outcome.view;
    if (view === undefined) return { kind: 'not_found' };
    if (outcome.code !== 'OK') throw unexpected(SCRIPTS.voteAll, outcome.code);
    const results = input.callIds.map((callId, i) => {
      const [code = '', first = '', second = ''] = outcome.info.slice(i * 3, i * 3 + 3);
      const name = scriptCodeName(Number(code));
      if (name === undefined) throw unexpected(SCRIPTS.voteAll, 'CORRUPT');
      return { callId, result: this.voteResult(name, [first, second], view, callId) };
    });
    const changed = results.flatMap(({ callId, result }) =>
      result.kind === 'decided' || result.kind === 'expired' ? [callId] : [],
    );
    const pauseDecided = view.gates.every((gate) => gate.state !== 'pending');
    const updates =
      changed.length === 0 ? [] : this.indexes.afterDecision(view, now, changed, pauseDecided);
    await this.indexes.apply(view, outcome.audit, now, updates);
    return { kind: 'applied', view, results };
  }

  /** One gate's vote outcome, from the code and info the vote rule answered. */
  private voteResult(
    code: ScriptCodeName,
    info: readonly string[],
    view: PauseView,
    callId: string,
  ): VoteResult {
    const [first = '', second = ''] = info;
    switch (code) {
      case 'COUNTED':
        return { kind: 'counted', view, approvals: Number(first), quorum: Number(second) };
      case 'DECIDED':
      case 'EXPIRED': {
        const pauseDecided = second === '1';
        const state = gateStateSchema.parse(first);
        return code === 'DECIDED'
          ? { kind: 'decided', view, state, pauseDecided }
          : { kind: 'expired', view, state, pauseDecided };
      }
      case 'ALREADY_VOTED':
        return { kind: 'already_voted', view };
      case 'ALREADY_DECIDED': {
        const gate = view.gates.find((g) => g.confirmationCallId === callId);
        if (gate?.decision === undefined) {
          const key = this.keys.gate(view.pause.id, callId);
          throw new StoreError('corrupt_record', `${key} is decided without a decision`);
        }
        return { kind: 'already_decided', view, state: gate.state, decision: gate.decision };
      }
      default:
        throw unexpected(SCRIPTS.vote, code);
    }
  }

  async cancel(input: CancelInput): Promise<CancelResult> {
    const { pauseId, by, reason, now } = input;
    const decision = personDecision(by, now, reason);
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
    if (outcome.code !== 'CANCELLED') throw unexpected(SCRIPTS.cancel, outcome.code);
    const updates = this.indexes.afterDecision(view, now, outcome.info, false);
    await this.indexes.apply(view, outcome.audit, now, updates);
    return { kind: 'cancelled', view, callIds: outcome.info };
  }

  async withdraw(input: WithdrawInput): Promise<WithdrawResult> {
    const { pauseId, by, reason, now } = input;
    // As a vote does: the resume is marked due first, so a crash after the script is swept up.
    await this.indexes.beforeVote(pauseId, now);
    const outcome = await this.onPause(SCRIPTS.withdraw, pauseId, () => [
      now,
      by,
      JSON.stringify(personDecision(by, now, reason)),
      withdrawDetail(reason),
    ]);
    const view = outcome.view;
    if (view === undefined) return { kind: 'not_found' };
    if (outcome.code === 'NOTHING_PENDING') return { kind: 'nothing_pending', view };
    if (outcome.code !== 'WITHDRAWN') throw unexpected(SCRIPTS.withdraw, outcome.code);
    const updates = this.indexes.afterDecision(view, now, outcome.info, true);
    await this.indexes.apply(view, outcome.audit, now, updates);
    return { kind: 'withdrawn', view, callIds: outcome.info };
  }

  /**
   * One read of the global expiry set, then one per-pause script per entry (Cluster-safe): the
   * script's state check makes each gate expire once, whichever replica gets there first.
   */
  async expireDue(now: number, limit = DEFAULT_LIMIT): Promise<ExpiredGate[]> {
    const entries = await this.indexes.dueExpiries(now, limit);
    const results = await Promise.allSettled(entries.map((entry) => this.expireEntry(entry, now)));
    const expired: ExpiredGate[] = [];
    let failure: unknown;
    for (const result of results) {
      if (result.status === 'rejected') failure ??= result.reason;
      else if (result.value !== undefined) expired.push(result.value);
    }
    // Every entry was tried; the expiries applied are durable and their resumes come due.
    if (failure !== undefined) throw toStoreError(failure, 'expire due gates');
    return expired;
  }

  claimCardless(input: ClaimCardlessInput): Promise<string[]> {
    return this.indexes.claimCardless(input, input.limit ?? DEFAULT_LIMIT);
  }

  async claimResume(input: ClaimResumeInput): Promise<ClaimResult> {
    const { pauseId, owner, now, leaseMs } = input;
    const leaseUntil = now + leaseMs;
    const outcome = await this.onPause(SCRIPTS.claimResume, pauseId, () => [
      now,
      owner,
      leaseUntil,
      leaseMs,
      input.retryFailed ? '1' : '0',
    ]);
    const view = outcome.view;
    if (view === undefined) return { kind: 'not_found' };
    switch (outcome.code) {
      case 'CLAIMED': {
        const [attempt = '', stateBefore = ''] = outcome.info;
        const updates = this.indexes.afterClaim(view, leaseUntil, stateBefore);
        await this.indexes.apply(view, outcome.audit, now, updates);
        return { kind: 'claimed', view, attempt: Number(attempt) };
      }
      case 'NOT_DECIDED':
        return { kind: 'not_decided', view };
      case 'LEASED':
        return { kind: 'leased', view, leaseUntil: Number(outcome.info[0]) };
      case 'FINISHED':
        return { kind: 'finished', view };
      case 'AWAITING_RETRY':
        return { kind: 'awaiting_retry', view };
      default:
        throw unexpected(SCRIPTS.claimResume, outcome.code);
    }
  }

  async renewLease(input: RenewLeaseInput): Promise<RenewLeaseResult> {
    const { pauseId, owner, now, leaseMs } = input;
    const leaseUntil = now + leaseMs;
    const outcome = await this.onPause(SCRIPTS.renewLease, pauseId, () => [now, owner, leaseUntil]);
    const view = outcome.view;
    if (view === undefined) return { kind: 'not_found' };
    if (outcome.code === 'LOST_LEASE') return { kind: 'lost_lease' };
    if (outcome.code !== 'OK') throw unexpected(SCRIPTS.renewLease, outcome.code);
    await this.indexes.apply(view, [], now, this.indexes.afterClaim(view, leaseUntil, 'resuming'));
    return { kind: 'renewed', leaseUntil };
  }

  /** Decided pauses never claimed, or whose lease lapsed; failed ones wait for a human Retry. */
  dueResumes(now: number, limit = DEFAULT_LIMIT): Promise<string[]> {
    return this.indexes.dueResumes(now, limit);
  }

  markResumed(input: FinishResumeInput): Promise<FinishResult> {
    return this.finish(input, 'resumed', '', '');
  }

  markResumeFailed(input: ResumeFailedInput): Promise<FinishResult> {
    return this.finish(input, 'failed', input.error, resumeFailedDetail(input.error));
  }

  /** Explicit user approvers only: user groups and channel members are known only to Slack. */
  listPendingByApprover(userId: string, limit = DEFAULT_LIMIT): Promise<GateRef[]> {
    return this.indexes.pendingForUser(userId, limit);
  }

  listPendingByChannel(channelId: string, limit = DEFAULT_LIMIT): Promise<GateRef[]> {
    return this.indexes.pendingInChannel(channelId, limit);
  }

  recordOutcome(input: OutcomeInput): Promise<OutcomeResult> {
    return this.notes.recordOutcome(input);
  }

  recordDelivery(input: DeliveryInput): Promise<'recorded' | 'not_found'> {
    return this.notes.recordDelivery(input);
  }

  readNotes(pauseId: string): Promise<PauseNotes> {
    return this.notes.readNotes(pauseId);
  }

  claimIdempotencyKey(input: IdempotencyInput): Promise<IdempotencyResult> {
    return this.notes.claimIdempotencyKey(input);
  }

  /**
   * With a pause id: that pause's exact trail (ids are positions in it), kept as long as the
   * pause. Without: the global stream (ids are stream ids), capped at about `auditMaxLen`.
   */
  readAudit(options: { pauseId?: string; count?: number } = {}): Promise<AuditEntry[]> {
    const { pauseId, count = DEFAULT_LIMIT } = options;
    return pauseId === undefined
      ? readAuditStream(this.redis, this.keys.audit, count)
      : readPauseTrail(this.redis, this.keys.pauseAudit(pauseId), pauseId, count);
  }

  async close(): Promise<void> {
    if (!this.ownsClient) return;
    try {
      await this.redis.quit();
    } catch {
      this.redis.disconnect();
    }
  }

  private async expireEntry(entry: IndexEntry, now: number): Promise<ExpiredGate | undefined> {
    const { pauseId, callId } = entry;
    const outcome = await this.onPause(SCRIPTS.expireGate, pauseId, (callIds) => {
      const index = callIds.indexOf(callId);
      if (index < 0) return undefined;
      return [now, index + 1, JSON.stringify(systemDecision(now)), this.retentionMs];
    });
    const { code, info, view } = outcome;
    if (code === 'NOT_FOUND') {
      await this.indexes.dropOrphanExpiry(entry, now);
      return undefined;
    }
    if (code === 'NOT_PENDING') {
      await this.indexes.dropExpiry(entry);
      return undefined;
    }
    if (code === 'NOT_DUE') {
      await this.indexes.rescheduleExpiry(entry, Number(info[0]));
      return undefined;
    }
    if (code !== 'EXPIRED' || view === undefined) throw unexpected(SCRIPTS.expireGate, code);
    const pauseDecided = info[1] === '1';
    const updates = this.indexes.afterDecision(view, now, [callId], pauseDecided);
    await this.indexes.apply(view, outcome.audit, now, updates);
    return { view, callId, state: gateStateSchema.parse(info[0]), pauseDecided };
  }

  private async finish(
    input: FinishResumeInput,
    outcome: FinishOutcome,
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
    if (result.code !== 'OK') throw unexpected(SCRIPTS.finishResume, result.code);
    const updates = this.indexes.afterFinish(view, result.info[0] ?? '');
    await this.indexes.apply(view, result.audit, now, updates);
    return { kind: 'ok', view };
  }

  /**
   * Runs a per-pause script on the pause's keys. `args` gets the pause's call ids and returns
   * the script's ARGV, or undefined when the call names no gate of the pause (not found). Stale
   * cached call ids are reloaded once.
   */
  private async onPause(
    script: LuaScript,
    pauseId: string,
    args: (callIds: readonly string[]) => (string | number)[] | undefined,
  ): Promise<PauseOutcome> {
    for (let attempt = 0; attempt < 2; attempt++) {
      const callIds = await this.callIdsOf(pauseId);
      const argv = callIds && args(callIds);
      if (callIds === undefined || argv === undefined) return NOT_FOUND;
      const outcome = await this.runScript(script, pauseId, callIds, argv);
      if (outcome.code === 'NOT_FOUND') {
        this.callIdCache.delete(pauseId);
        return outcome;
      }
      if (outcome.view !== undefined) return outcome;
      this.callIdCache.delete(pauseId);
    }
    const key = this.keys.pause(pauseId);
    throw new StoreError('corrupt_record', `${key}: its gates do not match its call ids`);
  }

  /** `view` is undefined when the pause's call ids are not `callIds` (KEYS_MISMATCH). */
  private async runScript(
    script: LuaScript,
    pauseId: string,
    callIds: readonly string[],
    args: (string | number)[],
  ): Promise<PauseOutcome> {
    const keys = this.keys.scriptKeys(pauseId, callIds);
    const raw = await redisCall(`${script.name} on ${keys[0]}`, () =>
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
    return { ...reply, view };
  }

  private async callIdsOf(pauseId: string): Promise<readonly string[] | undefined> {
    const cached = this.callIdCache.get(pauseId);
    if (cached) return cached;
    const key = this.keys.pause(pauseId);
    const record = await redisCall(`read ${key}`, () => this.redis.hget(key, 'record'));
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
}

function unexpected(script: LuaScript, code: ScriptCodeName): StoreError {
  return new StoreError('script', `script ${script.name} answered ${code}, which it never should`);
}
