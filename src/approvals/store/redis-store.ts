import { z } from 'zod';
import { parseJsonText } from '../../json.js';
import type { Log } from '../../log.js';
import type { PauseNotes, PauseView, Reopened } from '../records.js';
import { viewVersion } from '../records.js';
import {
  type AdvanceRunInput,
  type AuditEntry,
  type AuditPageOptions,
  type CancelInput,
  type CancelResult,
  type ClaimCardlessInput,
  type ClaimDeadRunsInput,
  type ClaimNudgesInput,
  type ClaimResult,
  type ClaimResumeInput,
  type ConfirmationStore,
  type CreatePauseResult,
  type DeliveryInput,
  type DueNudge,
  type ExpiredGate,
  type FinishResult,
  type FinishResumeInput,
  type GateRef,
  type GateRunClaim,
  type GrantEventInput,
  type HandOverRefusal,
  type IdempotencyInput,
  type IdempotencyResult,
  type NewPause,
  type OutcomeInput,
  type OutcomeResult,
  type PendingIndex,
  type RecordRunInput,
  type RenewLeaseInput,
  type RenewLeaseResult,
  type ReopenInput,
  type ReopenResult,
  type ResumeFailedInput,
  type RunIntent,
  StoreError,
  type StoreMarker,
  type UndoInput,
  type UndoResult,
  type VoteAllInput,
  type VoteAllResult,
  type VoteInput,
  type VoteResult,
  type WithdrawInput,
  type WithdrawResult,
} from '../store.js';
import { assertNoHashTag, type StoreKeys, storeKeys } from './keys.js';
import { parseRecentDecisions, readAuditStream, readPauseTrail } from './redis-audit.js';
import { AuditSealer } from './redis-audit-seal.js';
import { RedisCardClaims } from './redis-card-claims.js';
import { type RedisClient, redisCall, toStoreError } from './redis-connection.js';
import { type ExpiryDone, type IndexEntry, RedisIndexes } from './redis-indexes.js';
import { placeRedisMarker, readRedisMarker } from './redis-marker.js';
import { RedisPauseNotes } from './redis-notes.js';
import { RedisNudges } from './redis-nudges.js';
import { decodeCallIds, decodeView, encodeGate, encodePause } from './redis-records.js';
import { RedisRunIntents } from './redis-run-intents.js';
import {
  assertSamePause,
  cancelDetail,
  checkNewPause,
  createdDetail,
  DEFAULT_LIMIT,
  DEFAULT_RETENTION_MS,
  type FinishOutcome,
  newGateNudges,
  newVote,
  pauseFactsOf,
  personDecision,
  recordedGates,
  reopenedDetail,
  resumeFailedDetail,
  systemDecision,
  UNDONE_WHY,
  voteDetail,
  withdrawDetail,
} from './rules.js';
import { CANCEL } from './scripts/cancel.lua.js';
import { CLAIM_RESUME } from './scripts/claim-resume.lua.js';
import { type ScriptCodeName, scriptCodeName } from './scripts/codes.js';
import { CREATE_PAUSE_LUA } from './scripts/create-pause.lua.js';
import { EXPIRE_GATE } from './scripts/expire-gate.lua.js';
import { FINISH_RESUME } from './scripts/finish-resume.lua.js';
import { LuaScript } from './scripts/lua-script.js';
import type { ArgSpec, ArgsOf, PauseScript } from './scripts/pause-script.js';
import { PAUSE_VERSION_LUA } from './scripts/pause-version.lua.js';
import { READ_PAUSE_LUA } from './scripts/read-pause.lua.js';
import { RENEW_LEASE } from './scripts/renew-lease.lua.js';
import { REOPEN } from './scripts/reopen.lua.js';
import {
  type PauseScriptReply,
  parsePauseScriptReply,
  type ScriptAuditEntry,
} from './scripts/reply.js';
import { SET_CARD_TS } from './scripts/set-card-ts.lua.js';
import { UNDO } from './scripts/undo.lua.js';
import { decodeVoteGate, VOTE, VOTE_ALL } from './scripts/vote.lua.js';
import { WITHDRAW } from './scripts/withdraw.lua.js';
import { voteResultOf } from './vote-result.js';

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
  /**
   * Approximate length the global audit stream is capped at (XADD MAXLEN ~). Default none: the
   * sweeper trims it by age (`trimAudit`, AUDIT_RETENTION), so no entry goes before its time.
   */
  auditMaxLen?: number;
  /** How often a pending pause is re-checked for a lost "resume due" update. Default 5 minutes. */
  resumeRecheckMs?: number;
  /** `close()` also closes the client. Default false: the caller owns the client. */
  ownsClient?: boolean;
  /** Told when an index update after a recorded transition failed (the system recovers). */
  log?: Pick<Log, 'warn'>;
}

/** Pauses read per round trip when counting pending gates. */
const COUNT_BATCH = 1_000;
const recordAppSchema = z.object({ adk: z.object({ appName: z.string() }) });

/** The app of a stored pause record; a record that does not parse is counted as `unknown`. */
function appOfRecord(record: string): string {
  const json = parseJsonText(record);
  const parsed = json.ok ? recordAppSchema.safeParse(json.value) : undefined;
  return parsed?.success ? parsed.data.adk.appName : 'unknown';
}

const DEFAULT_RECHECK_MS = 5 * 60 * 1000;
/** Call ids of a pause never change: a replica keeps the latest ones to build script keys. */
const CALL_ID_CACHE_SIZE = 10_000;

const SCRIPTS = {
  createPause: new LuaScript('create_pause', CREATE_PAUSE_LUA),
  readPause: new LuaScript('read_pause', READ_PAUSE_LUA),
  pauseVersion: new LuaScript('pause_version', PAUSE_VERSION_LUA),
};

/** What a per-pause script answered, with the pause as the script left it. */
interface PauseOutcome extends PauseScriptReply {
  /** The entries this call sealed (redis-audit-seal.ts), for the store-wide audit. */
  audit: ScriptAuditEntry[];
  view: PauseView | undefined;
}

const NOT_FOUND: PauseOutcome = {
  code: 'NOT_FOUND',
  info: [],
  audit: [],
  pauseValues: [],
  gateValues: [],
  chain: undefined,
  view: undefined,
};

export class RedisConfirmationStore implements ConfirmationStore {
  private readonly redis: RedisClient;
  private readonly keys: StoreKeys;
  /** The app of each live pause, as the last `countPendingByApp` found them. */
  private appByPause = new Map<string, string>();
  private readonly indexes: RedisIndexes;
  private readonly nudges: RedisNudges;
  private readonly retentionMs: number;
  private readonly ownsClient: boolean;
  private readonly callIdCache = new Map<string, readonly string[]>();
  private readonly notes: RedisPauseNotes;
  private readonly runIntents: RedisRunIntents;
  private readonly sealer: AuditSealer;
  readonly cardClaims: RedisCardClaims;

  constructor(options: RedisStoreOptions) {
    if (options.redis.options.keyPrefix) {
      throw new Error('Pass a Redis client without keyPrefix; give the prefix to the store');
    }
    this.redis = options.redis;
    this.keys = storeKeys(options.keyPrefix);
    this.retentionMs = options.retentionMs ?? DEFAULT_RETENTION_MS;
    this.ownsClient = options.ownsClient ?? false;
    const auditMaxLen = options.auditMaxLen ?? 0;
    this.sealer = new AuditSealer(this.redis, options.log);
    this.notes = new RedisPauseNotes(
      this.redis,
      this.keys,
      this.retentionMs,
      this.sealer,
      auditMaxLen,
      options.log,
    );
    this.runIntents = new RedisRunIntents(this.redis, this.keys);
    this.cardClaims = new RedisCardClaims(this.redis, this.keys);
    this.nudges = new RedisNudges(this.redis, this.keys);
    this.indexes = new RedisIndexes(this.redis, this.keys, {
      retentionMs: this.retentionMs,
      auditMaxLen,
      recheckMs: options.resumeRecheckMs ?? DEFAULT_RECHECK_MS,
      log: options.log,
    });
  }

  async createPause(input: NewPause): Promise<CreatePauseResult> {
    const callIds = checkNewPause(input);
    assertNoHashTag('A pause id', input.id);
    const { id, now } = input;
    const gates = recordedGates(input.gates).map((gate) =>
      encodeGate(gate, now, input.adk.appName),
    );
    await Promise.all([
      this.indexes.beforeCreate(id, gates, now, input.card.ts !== undefined),
      this.nudges.beforeCreate(id, newGateNudges(input.gates, now)),
    ]);
    const pause = encodePause(input, callIds);
    const args: (string | number)[] = [
      now,
      pause.record,
      pause.cardTs,
      input.requester,
      createdDetail(callIds.length),
      pauseFactsOf(input),
    ];
    for (const gate of gates) {
      args.push(gate.callId, gate.record, gate.policy, gate.expiresAt ?? '', gate.auditFacts);
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

  placeMarker(input: { now: number; lossFoundAt?: number }): Promise<void> {
    return placeRedisMarker(this.redis, this.keys.marker, input);
  }

  readMarker(): Promise<StoreMarker> {
    return readRedisMarker(this.redis, this.keys.marker);
  }

  async getPause(pauseId: string): Promise<PauseView | undefined> {
    const outcome = await this.onPause(SCRIPTS.readPause, pauseId, () => ['']);
    return outcome.view;
  }

  async changedSince(view: PauseView): Promise<boolean> {
    const { id, callIds } = view.pause;
    const keys = [this.keys.pause(id), ...callIds.map((callId) => this.keys.gate(id, callId))];
    const version = await redisCall(`read the versions of ${keys[0]}`, () =>
      SCRIPTS.pauseVersion.run(this.redis, keys, []),
    );
    return version !== viewVersion(view);
  }

  findPauseIdByCallId(callId: string): Promise<string | undefined> {
    return this.indexes.pauseIdOfCall(callId);
  }

  async setCardTs(pauseId: string, ts: string, now: number): Promise<PauseView | undefined> {
    const outcome = await this.onTypedPause(SET_CARD_TS, pauseId, () => ({ now, ts }));
    const updates = outcome.view === undefined ? [] : this.indexes.afterCardPosted(pauseId);
    await this.indexes.apply(outcome.view, outcome.audit, now, updates);
    return outcome.view;
  }

  async vote(input: VoteInput): Promise<VoteResult> {
    const { pauseId, callId, voter, voterName, choice, payload, reason, now } = input;
    const decision = personDecision(voter, now, reason, voterName, input.onBehalfOf);
    const marking = this.indexes.beforeVote(pauseId, now);
    const outcome = await this.onTypedPause(
      VOTE,
      pauseId,
      (callIds) => {
        const index = callIds.indexOf(callId);
        if (index < 0) return undefined;
        return {
          now,
          gateIndex: index + 1,
          voter,
          choice,
          vote: newVote(input),
          payload,
          decision,
          expiry: systemDecision(now),
          retentionMs: this.retentionMs,
          detail: voteDetail(input),
        };
      },
      callId,
    );
    const view = outcome.view;
    if (view === undefined) return { kind: 'not_found' };
    const result = voteResultOf(VOTE.decode(outcome), view, callId);
    const decided = result.kind === 'decided' || result.kind === 'expired';
    const marked = await marking;
    const updates = decided
      ? this.indexes.afterDecision(view, now, [callId], result.pauseDecided, marked)
      : [];
    await this.indexes.apply(view, outcome.audit, now, updates);
    return result;
  }

  async voteAll(input: VoteAllInput): Promise<VoteAllResult> {
    const { pauseId, voter, voterName, choice, reason, now } = input;
    const decision = personDecision(voter, now, reason, voterName, input.onBehalfOf);
    const marking = this.indexes.beforeVote(pauseId, now);
    const outcome = await this.onTypedPause(VOTE_ALL, pauseId, (callIds) => {
      const gateIndexes = input.callIds.map((callId) => callIds.indexOf(callId) + 1);
      if (gateIndexes.length === 0 || gateIndexes.includes(0)) return undefined;
      return {
        now,
        voter,
        choice,
        vote: newVote({ ...input, callId: '' }),
        decision,
        expiry: systemDecision(now),
        retentionMs: this.retentionMs,
        detail: voteDetail(input),
        gateIndexes,
      };
    });
    const view = outcome.view;
    if (view === undefined) return { kind: 'not_found' };
    const info = VOTE_ALL.decode(outcome);
    const results = input.callIds.map((callId, i) => {
      const [code = '', first = '', second = ''] = info.slice(i * 3, i * 3 + 3);
      const name = scriptCodeName(Number(code));
      if (name === undefined) throw unexpected(VOTE_ALL.lua, 'CORRUPT');
      const reply = decodeVoteGate(VOTE_ALL.name, { code: name, info: [first, second] });
      return { callId, result: voteResultOf(reply, view, callId) };
    });
    const changed = results.flatMap(({ callId, result }) =>
      result.kind === 'decided' || result.kind === 'expired' ? [callId] : [],
    );
    const pauseDecided = view.gates.every((gate) => gate.state !== 'pending');
    const marked = await marking;
    const updates =
      changed.length === 0
        ? []
        : this.indexes.afterDecision(view, now, changed, pauseDecided, marked);
    await this.indexes.apply(view, outcome.audit, now, updates);
    return { kind: 'applied', view, results };
  }

  async cancel(input: CancelInput): Promise<CancelResult> {
    const { pauseId, by, reason, now } = input;
    const decision = personDecision(by, now, reason);
    const outcome = await this.onTypedPause(CANCEL, pauseId, () => ({
      now,
      by,
      decision,
      retentionMs: this.retentionMs,
      detail: cancelDetail(reason),
    }));
    const view = outcome.view;
    if (view === undefined) return { kind: 'not_found' };
    if (outcome.code === 'NOTHING_PENDING') return { kind: 'nothing_pending', view };
    if (outcome.code !== 'CANCELLED') throw unexpected(CANCEL.lua, outcome.code);
    const updates = this.indexes.afterDecision(view, now, outcome.info, false);
    await this.indexes.apply(view, outcome.audit, now, updates);
    return { kind: 'cancelled', view, callIds: outcome.info };
  }

  async withdraw(input: WithdrawInput): Promise<WithdrawResult> {
    const { pauseId, by, byName, reason, now } = input;
    // As a vote does: the resume is marked due first, so a crash after the script is swept up.
    await this.indexes.beforeVote(pauseId, now);
    const outcome = await this.onTypedPause(WITHDRAW, pauseId, () => ({
      now,
      by,
      decision: personDecision(by, now, reason, byName),
      detail: withdrawDetail(reason),
    }));
    const view = outcome.view;
    if (view === undefined) return { kind: 'not_found' };
    if (outcome.code === 'NOTHING_PENDING') return { kind: 'nothing_pending', view };
    if (outcome.code !== 'WITHDRAWN') throw unexpected(WITHDRAW.lua, outcome.code);
    const updates = this.indexes.afterDecision(view, now, outcome.info, true);
    await this.indexes.apply(view, outcome.audit, now, updates);
    return { kind: 'withdrawn', view, callIds: outcome.info };
  }

  /**
   * One read of the global expiry set, then one per-pause script per entry (Cluster-safe): the
   * script's state check makes each gate expire once, whichever replica gets there first. The
   * index updates of the whole batch go out together, one command per index key.
   */
  async expireDue(now: number, limit = DEFAULT_LIMIT): Promise<ExpiredGate[]> {
    const entries = await this.indexes.dueExpiries(now, limit);
    const results = await Promise.allSettled(entries.map((entry) => this.expireEntry(entry, now)));
    const expired: ExpiredGate[] = [];
    const done: ExpiryDone[] = [];
    const stale: IndexEntry[] = [];
    let failure: unknown;
    for (const [i, result] of results.entries()) {
      const entry = entries[i];
      if (result.status === 'rejected') failure ??= result.reason;
      else if (result.value === 'stale' && entry) stale.push(entry);
      else if (typeof result.value === 'object') {
        const { gate, audit } = result.value;
        expired.push(gate);
        done.push({ view: gate.view, callId: gate.callId, pauseDecided: gate.pauseDecided, audit });
      }
    }
    await this.indexes.afterExpiries(done, stale, now);
    // Every entry was tried; the expiries applied are durable and their resumes come due.
    if (failure !== undefined) throw toStoreError(failure, 'expire due gates');
    return expired;
  }

  claimDueNudges(input: ClaimNudgesInput): Promise<DueNudge[]> {
    return this.nudges.claimDue(input.now, input.leaseMs, input.limit ?? DEFAULT_LIMIT);
  }

  finishNudge(nudge: DueNudge): Promise<void> {
    return this.nudges.finish(nudge);
  }

  claimCardless(input: ClaimCardlessInput): Promise<string[]> {
    return this.indexes.claimCardless(input, input.limit ?? DEFAULT_LIMIT);
  }

  recordRun(input: RecordRunInput): Promise<void> {
    return this.runIntents.record(input);
  }

  advanceRun(input: AdvanceRunInput): Promise<'renewed' | 'lost'> {
    return this.runIntents.advance(input);
  }

  finishRun(input: { runId: string; owner: string }): Promise<void> {
    return this.runIntents.finish(input);
  }

  claimDeadRuns(input: ClaimDeadRunsInput): Promise<RunIntent[]> {
    return this.runIntents.claimDead(input, input.limit ?? DEFAULT_LIMIT);
  }

  async claimResume(input: ClaimResumeInput): Promise<ClaimResult> {
    const { pauseId, owner, now, leaseMs } = input;
    const leaseUntil = now + leaseMs;
    const outcome = await this.onTypedPause(CLAIM_RESUME, pauseId, () => ({
      now,
      owner,
      leaseUntil,
      leaseMs,
      retryFailed: input.retryFailed ?? false,
    }));
    const view = outcome.view;
    if (view === undefined) return { kind: 'not_found' };
    switch (outcome.code) {
      case 'CLAIMED': {
        const [attempt = '', stateBefore = ''] = outcome.info;
        const updates = this.indexes.afterClaim(view, leaseUntil, stateBefore);
        await this.indexes.apply(view, outcome.audit, now, updates);
        return {
          kind: 'claimed',
          view,
          attempt: Number(attempt),
          retried: stateBefore === 'failed',
        };
      }
      case 'NOT_DECIDED':
        return { kind: 'not_decided', view };
      case 'LEASED':
        return { kind: 'leased', view, leaseUntil: Number(outcome.info[0]) };
      case 'FINISHED':
        return { kind: 'finished', view };
      case 'AWAITING_RETRY':
        return { kind: 'awaiting_retry', view };
      case 'NOT_DUE': {
        const until = Number(outcome.info[0]);
        await this.indexes.apply(view, outcome.audit, now, this.indexes.afterHeld(view, until));
        return { kind: 'held', view, until };
      }
      default:
        throw unexpected(CLAIM_RESUME.lua, outcome.code);
    }
  }

  async renewLease(input: RenewLeaseInput): Promise<RenewLeaseResult> {
    const { pauseId, owner, now, leaseMs } = input;
    const leaseUntil = now + leaseMs;
    const outcome = await this.onTypedPause(RENEW_LEASE, pauseId, () => ({
      now,
      owner,
      leaseUntil,
    }));
    const view = outcome.view;
    if (view === undefined) return { kind: 'not_found' };
    if (outcome.code === 'LOST_LEASE') return { kind: 'lost_lease' };
    if (outcome.code !== 'OK') throw unexpected(RENEW_LEASE.lua, outcome.code);
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

  markResumeRefused(input: ResumeFailedInput): Promise<FinishResult> {
    return this.finish(input, 'refused', input.error, resumeFailedDetail(input.error));
  }

  async undo(input: UndoInput): Promise<UndoResult> {
    const { pauseId, by, admin, now } = input;
    const reopened: Reopened = { at: now, voter: by, why: UNDONE_WHY, kind: 'undo' };
    const outcome = await this.onTypedPause(UNDO, pauseId, () => ({
      now,
      by,
      any: admin,
      reopened,
      detail: UNDONE_WHY,
    }));
    const view = outcome.view;
    if (view === undefined) return { kind: 'not_found' };
    if (outcome.code === 'TOO_LATE') return { kind: 'too_late', view };
    if (outcome.code === 'NOT_DECIDER') return { kind: 'not_decider', view };
    if (outcome.code !== 'UNDONE') throw unexpected(UNDO.lua, outcome.code);
    const updates = this.indexes.afterReopen(view, outcome.info, now);
    await this.indexes.apply(view, outcome.audit, now, updates);
    return { kind: 'undone', view, callIds: outcome.info };
  }

  async reopen(input: ReopenInput): Promise<ReopenResult> {
    const { pauseId, owner, voter, why, now } = input;
    const outcome = await this.onTypedPause(REOPEN, pauseId, (callIds) => ({
      now,
      owner,
      reopened: { at: now, voter, why },
      detail: reopenedDetail(voter, why),
      gateIndexes: input.callIds.map((callId) => callIds.indexOf(callId) + 1).filter((i) => i > 0),
    }));
    const view = outcome.view;
    if (view === undefined) return { kind: 'not_found' };
    if (outcome.code === 'LOST_LEASE') return { kind: 'lost_lease', view };
    if (outcome.code !== 'REOPENED') throw unexpected(REOPEN.lua, outcome.code);
    const updates = this.indexes.afterReopen(view, outcome.info, now);
    await this.indexes.apply(view, outcome.audit, now, updates);
    return { kind: 'reopened', view, callIds: outcome.info };
  }

  /** Explicit user approvers only: user groups and channel members are known only to Slack. */
  listPendingByApprover(userId: string, limit = DEFAULT_LIMIT): Promise<GateRef[]> {
    return this.indexes.pendingForUser(userId, limit);
  }

  listPendingByChannel(channelId: string, limit = DEFAULT_LIMIT): Promise<GateRef[]> {
    return this.indexes.pendingInChannel(channelId, limit);
  }

  /**
   * Every pause with a gate pending is in the resume set from its creation (see redis-indexes.ts),
   * and its hash's `pending` field is kept by its own scripts: the set is scanned (ZSCAN: a
   * pause present throughout is seen, maybe twice, hence the set of ids) and each pause's count
   * read, in batches. Single-key reads only, so it works on Redis Cluster too. A pause's app never
   * changes: it is read (from the record) once and kept for as long as the pause is live, so a
   * later count reads one small field per pause.
   */
  async countPendingByApp(): Promise<Map<string, number>> {
    const counts = new Map<string, number>();
    const apps = new Map<string, string>();
    let cursor = '0';
    do {
      const [next, entries] = await redisCall('scan the resume set', () =>
        this.redis.zscan(this.keys.resume, cursor, 'COUNT', COUNT_BATCH),
      );
      cursor = next;
      // ZSCAN answers member, score, member, score, …
      const ids = entries.filter((id, i) => i % 2 === 0 && !apps.has(id));
      const rows = await redisCall('read pending counts', () =>
        Promise.all(
          ids.map(async (id) => {
            const known = this.appByPause.get(id);
            if (known !== undefined) {
              return {
                id,
                app: known,
                pending: await this.redis.hget(this.keys.pause(id), 'pending'),
              };
            }
            const [pending, record] = await this.redis.hmget(
              this.keys.pause(id),
              'pending',
              'record',
            );
            return {
              id,
              app: typeof record === 'string' ? appOfRecord(record) : undefined,
              pending,
            };
          }),
        ),
      );
      for (const { id, app, pending } of rows) {
        if (app === undefined) continue;
        apps.set(id, app);
        const count = Number(pending);
        if (count > 0) counts.set(app, (counts.get(app) ?? 0) + count);
      }
    } while (cursor !== '0');
    // Only the pauses live now: finished ones leave the resume set, and this map with them.
    this.appByPause = apps;
    return counts;
  }

  listPending(index: PendingIndex, limit = DEFAULT_LIMIT): Promise<GateRef[]> {
    return this.indexes.pendingIn(index, limit);
  }

  claimGateRun(input: GateRunClaim): Promise<'claimed' | 'taken'> {
    return this.notes.claimGateRun(input);
  }

  recordOutcome(input: OutcomeInput): Promise<OutcomeResult> {
    return this.notes.recordOutcome(input);
  }

  refuseHandOver(input: HandOverRefusal) {
    return this.notes.refuseHandOver(input);
  }

  recordDelivery(input: DeliveryInput): Promise<'recorded' | 'not_found'> {
    return this.notes.recordDelivery(input);
  }

  recordGrantEvent(input: GrantEventInput): Promise<OutcomeResult> {
    return this.notes.recordGrantEvent(input);
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
  readAuditPage(options: AuditPageOptions): Promise<AuditEntry[]> {
    const start = options.after !== undefined ? `(${options.after}` : String(options.since ?? '-');
    const end = options.until === undefined ? '+' : String(options.until);
    return readAuditStream(this.redis, this.keys.audit, options.limit, start, end);
  }

  async readRecentDecisions(userId: string, limit: number): Promise<AuditEntry[]> {
    const key = this.keys.recentDecisions(userId);
    const items = await redisCall(`read ${key}`, () => this.redis.lrange(key, 0, limit - 1));
    return parseRecentDecisions(key, items);
  }

  async trimAudit(before: number): Promise<void> {
    const key = this.keys.audit;
    await redisCall(`trim ${key}`, () => this.redis.xtrim(key, 'MINID', '~', before));
  }

  readAudit(options: { pauseId?: string; count?: number } = {}): Promise<AuditEntry[]> {
    const { pauseId, count = DEFAULT_LIMIT } = options;
    return pauseId === undefined
      ? readAuditStream(this.redis, this.keys.audit, count)
      : readPauseTrail(
          this.redis,
          { pause: this.keys.pause(pauseId), list: this.keys.pauseAudit(pauseId) },
          pauseId,
          count,
        );
  }

  async close(): Promise<void> {
    if (!this.ownsClient) return;
    try {
      await this.redis.quit();
    } catch {
      this.redis.disconnect();
    }
  }

  /** Expires one entry's gate; `stale`: its entry is to be dropped; `kept`: left (or moved). */
  private async expireEntry(
    entry: IndexEntry,
    now: number,
  ): Promise<{ gate: ExpiredGate; audit: ScriptAuditEntry[] } | 'stale' | 'kept'> {
    const { pauseId, callId } = entry;
    const outcome = await this.onTypedPause(
      EXPIRE_GATE,
      pauseId,
      (callIds) => {
        const index = callIds.indexOf(callId);
        if (index < 0) return undefined;
        const decision = systemDecision(now);
        return { now, gateIndex: index + 1, decision, retentionMs: this.retentionMs };
      },
      callId,
    );
    const { code, view } = outcome;
    if (code === 'NOT_FOUND') {
      // An entry without a pause may belong to a pause being created right now.
      return this.indexes.isOrphanExpiry(entry, now) ? 'stale' : 'kept';
    }
    const reply = EXPIRE_GATE.decode(outcome);
    if (reply.code === 'NOT_PENDING') return 'stale';
    if (reply.code === 'NOT_DUE') {
      await this.indexes.rescheduleExpiry(entry, reply.expiresAt);
      return 'kept';
    }
    if (view === undefined) throw unexpected(EXPIRE_GATE.lua, code);
    const { state, pauseDecided } = reply;
    return { gate: { view, callId, state, pauseDecided }, audit: outcome.audit };
  }

  private async finish(
    input: FinishResumeInput,
    outcome: FinishOutcome,
    error: string,
    detail: string,
  ): Promise<FinishResult> {
    const { pauseId, owner, now } = input;
    const result = await this.onTypedPause(FINISH_RESUME, pauseId, () => ({
      now,
      owner,
      outcome,
      retentionMs: this.retentionMs,
      error,
      detail,
    }));
    const view = result.view;
    if (view === undefined) return { kind: 'not_found' };
    if (result.code === 'LOST_LEASE') return { kind: 'lost_lease', view };
    if (result.code !== 'OK') throw unexpected(FINISH_RESUME.lua, result.code);
    const updates = this.indexes.afterFinish(view, result.info[0] ?? '');
    await this.indexes.apply(view, result.audit, now, updates);
    return { kind: 'ok', view };
  }

  /**
   * Runs a per-pause script on the pause's keys. `args` gets the pause's call ids and returns
   * the script's ARGV, or undefined when the call names no gate of the pause (not found). Stale
   * cached call ids are reloaded once.
   *
   * `guess`: the call id the caller names (a click, an expiry entry). With no call ids cached,
   * the script first runs as if the pause held that one gate, as most pauses do: right, it saves
   * reading and parsing the pause record first (a round trip); wrong, the script answers
   * KEYS_MISMATCH having written nothing, and the real call ids are read.
   */
  /** `onPause` for a script defined with typed arguments (scripts/pause-script.ts). */
  private onTypedPause<S extends ArgSpec>(
    script: PauseScript<S, unknown>,
    pauseId: string,
    args: (callIds: readonly string[]) => ArgsOf<S> | undefined,
    guess?: string,
  ): Promise<PauseOutcome> {
    return this.onPause(
      script.lua,
      pauseId,
      (callIds) => {
        const values = args(callIds);
        return values && script.encode(values);
      },
      guess,
    );
  }

  private async onPause(
    script: LuaScript,
    pauseId: string,
    args: (callIds: readonly string[]) => (string | number)[] | undefined,
    guess?: string,
  ): Promise<PauseOutcome> {
    for (let attempt = 0; attempt < 2; attempt++) {
      const guessed =
        attempt === 0 && guess !== undefined && !this.callIdCache.has(pauseId)
          ? [guess]
          : undefined;
      const callIds = guessed ?? (await this.callIdsOf(pauseId));
      const argv = callIds && args(callIds);
      if (callIds === undefined || argv === undefined) return NOT_FOUND;
      const outcome = await this.runScript(script, pauseId, callIds, argv);
      if (outcome.code === 'NOT_FOUND') {
        this.callIdCache.delete(pauseId);
        return outcome;
      }
      if (outcome.view !== undefined) {
        if (guessed) this.remember(pauseId, outcome.view.pause.callIds);
        return outcome;
      }
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
    // The lines this call sealed are the ones it mirrors (redis-audit-seal.ts).
    const audit =
      reply.chain === undefined
        ? []
        : await this.sealer.seal({ pause: keys[0] ?? '', list: keys[1] ?? '' }, reply.chain);
    return { ...reply, audit, view };
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
