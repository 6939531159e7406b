import { Cluster } from 'ioredis';
import type { Log } from '../../log.js';
import { isFinishedResume, type PauseView } from '../records.js';
import { StoreError } from '../store.js';
import type { GateRef } from '../store-roles/pending-queries.js';
import { CoalescedWrites } from './coalesced-writes.js';
import type { StoreKeys } from './keys.js';
import { AuditMirrorBatcher } from './redis-audit-mirror.js';
import { type RedisClient, redisCall, toStoreError } from './redis-connection.js';
import { IndexBatch } from './redis-index-batch.js';
import { indexMember, parseMember, withScores } from './redis-index-members.js';
import { pendingIndexesOf, pendingIndexName } from './rules.js';
import { LuaScript } from './scripts/lua-script.js';
import { parseCodeReply, type ScriptAuditEntry } from './scripts/reply.js';
import { ZSET_CAS_LUA } from './scripts/zset-cas.lua.js';

/**
 * The Redis store's global indexes: expiry and resume sorted sets, pending gates by approver and
 * by requester, and the global audit stream. Each lives in its own Cluster slot, so it is
 * touched only by single-key commands, never inside a per-pause script.
 *
 * Nothing decisive depends on them being in step with the records, and a process that dies
 * between a per-pause script and an index update leaves a state the system recovers from:
 * - a new pause's expiry entries and first resume check are written *before* its records, so
 *   no pending gate exists without an expiry entry; an entry without a record is dropped once
 *   a minute overdue (it may belong to a pause being created right now);
 * - every pause is in the resume set from its creation and re-checked every `recheckMs` while
 *   pending; a vote marks it due *before* its script runs (`beforeVote`; a vote that claims the
 *   resume it decides, when that claim's lease lapses), so a decided pause whose "resume now"
 *   update was lost is found by a sweep;
 * - entries for decided gates or finished pauses are dropped by whoever next reads them, with a
 *   compare-and-set on the score where a newer transition may have moved them;
 * - pending entries (by approver, by requester) are checked against the gate's state when
 *   listed, and filled in again when the pause is recorded again;
 * - the global audit stream gets each sealed line after the fact, from whoever sealed it: the
 *   one place a line is kept (a copy that fails is logged; the pause's chain head and the next
 *   line's `prev` still show the line is missing).
 */
export interface IndexOptions {
  retentionMs: number;
  recheckMs: number;
  log: Pick<Log, 'warn' | 'error'> | undefined;
}

/** A member of the expiry set, or of a pending set, with its score. */
export interface IndexEntry extends GateRef {
  member: string;
  score: number;
}

/** An expiry entry whose pause does not exist may belong to a pause being created right now. */
const ORPHAN_GRACE_MS = 60_000;

const ZSET_CAS = new LuaScript('zset_cas', ZSET_CAS_LUA);

/** One gate a sweep expired, with the pause as the expiry left it. */
export interface ExpiryDone {
  view: PauseView;
  callId: string;
  pauseDecided: boolean;
  audit: readonly ScriptAuditEntry[];
}

export class RedisIndexes {
  private readonly mirrors: AuditMirrorBatcher;
  /** Call-id keys of earlier versions going with their pauses: those that come together, together. */
  private readonly callKeyDrops: CoalescedWrites<string>;
  /**
   * Decisions' index updates: those that come while one is being written go together, one
   * command per key (a burst's decisions share their expiry set, channels and approvers).
   */
  private readonly decisionUpdates: CoalescedWrites<IndexBatch>;

  constructor(
    private readonly redis: RedisClient,
    private readonly keys: StoreKeys,
    private readonly options: IndexOptions,
  ) {
    this.mirrors = new AuditMirrorBatcher(redis, keys, options.log);
    this.callKeyDrops = new CoalescedWrites((callKeys) => this.unlinkCallKeys(callKeys));
    this.decisionUpdates = new CoalescedWrites(async (batches) => {
      const sent = IndexBatch.merged(batches).send(this.redis, (callKeys) =>
        this.callKeyDrops.write(callKeys),
      );
      await Promise.all(sent);
    });
  }

  // --- around transitions --------------------------------------------------------------------

  /** Before a pause's records exist: its gates' expiry entries and its first resume check. */
  async beforeCreate(
    pauseId: string,
    gates: readonly { callId: string; expiresAt: number | undefined }[],
    now: number,
    cardPosted: boolean,
  ): Promise<void> {
    const { expiry, resume, cardless } = this.keys;
    await redisCall('index the new pause', () =>
      Promise.all([
        // Until its card's ts is saved: a crash before then leaves a pause nobody can see.
        ...(cardPosted ? [] : [this.redis.zadd(cardless, 'NX', now, pauseId)]),
        ...gates.flatMap(({ callId, expiresAt }) =>
          expiresAt === undefined
            ? []
            : [this.redis.zadd(expiry, 'NX', expiresAt, indexMember(pauseId, callId))],
        ),
        this.redis.zadd(resume, 'NX', now + this.options.recheckMs, pauseId),
      ]),
    );
  }

  /**
   * With a vote's script: the pause's resume check becomes due now (LT: never later than it
   * was). The resume set is a key of its own slot, so a script cannot write it with the vote;
   * sent in the same write as the script (not after its answer), a process that dies between a
   * deciding vote and `afterDecision` leaves a resume the next sweep finds, not one found
   * `recheckMs` later. A check that finds gates still pending only puts the entry back to
   * `recheckMs` (see `checkResume`). Resolves to whether the mark was written: when it was not,
   * a deciding vote marks the resume afterwards, as every other decision does.
   *
   * `dueAt` is `now`, or for a vote that claims the resume it decides, when that claim's lease
   * lapses: what `afterClaim` would write, so the claim needs no write of its own. A process
   * that dies after such a vote leaves its resume to the sweep once the lease has lapsed.
   */
  async beforeVote(pauseId: string, dueAt: number): Promise<boolean> {
    try {
      await this.redis.zadd(this.keys.resume, 'LT', dueAt, pauseId);
      return true;
    } catch (error) {
      this.options.log?.warn(
        'marking the resume due before a vote failed (a deciding vote marks it after)',
        {
          pauseId,
          error: toStoreError(error, 'mark the resume due').message,
        },
      );
      return false;
    }
  }

  /** Its pending gates in their pending lists (recording a pause again fills in missing ones). */
  afterCreate(view: PauseView): Promise<unknown>[] {
    const { id } = view.pause;
    return view.gates
      .filter((gate) => gate.state === 'pending')
      .flatMap((gate) =>
        this.pendingKeys(view, gate.confirmationCallId).map((key) =>
          this.redis.zadd(key, gate.createdAt, indexMember(id, gate.confirmationCallId)),
        ),
      );
  }

  /** After gates were decided (`changed`), the pause became decided, or it was abandoned. */
  afterDecision(
    view: PauseView,
    now: number,
    changed: readonly string[],
    pauseDecided: boolean,
    resumeMarked = false,
  ): Promise<unknown>[] {
    const batch = new IndexBatch();
    this.collectDecision(batch, view, now, changed, pauseDecided && !resumeMarked);
    return [this.decisionUpdates.write([batch])];
  }

  /**
   * The index updates of a whole sweep batch: one ZREM per index key and one ZADD of the resume
   * set for all its gates, and one mirror call for all their audit entries, instead of five or
   * six commands per gate. `stale` are expiry entries found decided or gone (dropped as well).
   */
  async afterExpiries(
    done: readonly ExpiryDone[],
    stale: readonly IndexEntry[],
    now: number,
  ): Promise<void> {
    const batch = new IndexBatch();
    for (const entry of stale) batch.remove(this.keys.expiry, entry.member);
    for (const { view, callId, pauseDecided } of done) {
      this.collectDecision(batch, view, now, [callId], pauseDecided);
    }
    const updates = batch.send(this.redis, (callKeys) => this.callKeyDrops.write(callKeys));
    const mirrors = done.map(({ view, audit }) => ({
      pauseId: view.pause.id,
      requester: view.pause.requester,
      audit,
      at: now,
    }));
    await this.settle(done[0]?.view.pause.id, [...updates, this.mirrors.write(mirrors)]);
  }

  private collectDecision(
    batch: IndexBatch,
    view: PauseView,
    now: number,
    changed: readonly string[],
    pauseDecided: boolean,
  ): void {
    const { pause } = view;
    const abandoned = pause.resume.state === 'abandoned';
    for (const gate of view.gates) {
      const callId = gate.confirmationCallId;
      if (gate.state === 'pending' || !(abandoned || changed.includes(callId))) continue;
      const entry = indexMember(pause.id, callId);
      batch.remove(this.keys.expiry, entry);
      for (const key of this.pendingKeys(view, callId)) batch.remove(key, entry);
      // Earlier versions also listed a pending gate by its card's channel (keys.ts).
      batch.remove(this.keys.pendingByChannel(pause.card.channelId), entry);
    }
    if (abandoned) {
      batch.remove(this.keys.resume, pause.id);
      for (const callId of pause.callIds) batch.dropCallKey(this.keys.call(callId));
    } else if (pauseDecided) {
      // An undo window holds the resume: the sweep takes it when the window ends.
      batch.add(this.keys.resume, Math.max(now, pause.resume.holdUntil ?? 0), pause.id);
    }
  }

  /**
   * Gates sent back to pending (`reopen`): in their pending and expiry indexes again, and the
   * pause checked again after `recheckMs` like any pending pause.
   */
  afterReopen(view: PauseView, callIds: readonly string[], now: number): Promise<unknown>[] {
    const { id } = view.pause;
    const gates = view.gates.filter((gate) => callIds.includes(gate.confirmationCallId));
    if (gates.length === 0) return [];
    return [
      this.redis.zadd(this.keys.resume, now + this.options.recheckMs, id),
      ...gates.flatMap((gate) => {
        const entry = indexMember(id, gate.confirmationCallId);
        return [
          ...(gate.expiresAt === undefined
            ? []
            : [this.redis.zadd(this.keys.expiry, gate.expiresAt, entry)]),
          ...this.pendingKeys(view, gate.confirmationCallId).map((key) =>
            this.redis.zadd(key, gate.createdAt, entry),
          ),
        ];
      }),
    ];
  }

  /** A claim refused for an undo window: its resume is due when the window ends (GT: never earlier). */
  afterHeld(view: PauseView, until: number): Promise<unknown>[] {
    return [this.redis.zadd(this.keys.resume, 'GT', until, view.pause.id)];
  }

  /** A claim's lease end is when its resume is due again (GT: an older claim never undoes it). */
  afterClaim(view: PauseView, leaseUntil: number): Promise<unknown>[] {
    return [this.redis.zadd(this.keys.resume, 'GT', leaseUntil, view.pause.id)];
  }

  /**
   * The resume entry this lease put there is dropped. After a failed resume, only that entry: a
   * Retry's claim may already have moved it. Once finished for good (resumed, refused), no
   * transition puts it back to any use, so whatever is there goes, with no script. The call-id
   * keys an earlier version wrote for the pause go too (keys.ts).
   */
  afterFinish(view: PauseView, leaseUntil: string): Promise<unknown>[] {
    const { id, callIds, resume } = view.pause;
    const finished = isFinishedResume(resume.state);
    const drops =
      leaseUntil === ''
        ? []
        : [
            finished
              ? this.redis.zrem(this.keys.resume, id)
              : this.zsetCas(this.keys.resume, id, leaseUntil, ''),
          ];
    return [...drops, this.callKeyDrops.write(callIds.map((callId) => this.keys.call(callId)))];
  }

  /**
   * Mirrors a transition's audit entries to the global stream and waits for its index updates.
   * The transition is already recorded, so a failure here is logged, not thrown (see header).
   */
  async apply(
    view: PauseView | undefined,
    audit: readonly ScriptAuditEntry[],
    now: number,
    updates: Promise<unknown>[],
  ): Promise<void> {
    const mirrored =
      view === undefined
        ? []
        : [
            this.mirrors.write([
              { pauseId: view.pause.id, requester: view.pause.requester, audit, at: now },
            ]),
          ];
    await this.settle(view?.pause.id, [...mirrored, ...updates]);
  }

  private async settle(pauseId: string | undefined, updates: Promise<unknown>[]): Promise<void> {
    const results = await Promise.allSettled(updates);
    const failed = results.find((result) => result.status === 'rejected');
    if (failed) {
      this.options.log?.warn('an index update after a recorded transition failed', {
        pauseId,
        error: toStoreError(failed.reason, 'update an index').message,
      });
    }
  }

  /** The card's ts is saved: the pause is visible. */
  afterCardPosted(pauseId: string): Promise<unknown>[] {
    return [this.redis.zrem(this.keys.cardless, pauseId)];
  }

  /** See `PauseSweeps.claimCardless`; entries of gone or carded pauses are dropped. */
  async claimCardless(
    input: { now: number; graceMs: number; owner: string; leaseMs: number },
    limit: number,
  ): Promise<string[]> {
    const key = this.keys.cardless;
    const ids = await redisCall(`read ${key}`, () =>
      this.redis.zrangebyscore(key, '-inf', input.now - input.graceMs, 'LIMIT', 0, limit),
    );
    const claimed: string[] = [];
    for (const pauseId of ids) {
      const pauseKey = this.keys.pause(pauseId);
      const [record, cardTs] = await redisCall(`read ${pauseKey}`, () =>
        this.redis.hmget(pauseKey, 'record', 'cardTs'),
      );
      if (record === null || (cardTs !== null && cardTs !== '')) {
        await redisCall(`drop ${key} entry`, () => this.redis.zrem(key, pauseId));
        continue;
      }
      const won = await redisCall('claim a missing card', () =>
        this.redis.set(this.keys.cardClaim(pauseId), input.owner, 'PX', input.leaseMs, 'NX'),
      );
      if (won === 'OK') claimed.push(pauseId);
    }
    return claimed;
  }

  // --- expiry --------------------------------------------------------------------------------

  /** Up to `limit` expiry entries due at `now`, earliest first: one read of the global set. */
  async dueExpiries(now: number, limit: number): Promise<IndexEntry[]> {
    const key = this.keys.expiry;
    const raw = await redisCall(`read ${key}`, () =>
      this.redis.zrangebyscore(key, '-inf', now, 'WITHSCORES', 'LIMIT', 0, limit),
    );
    return withScores(raw).map(({ member, score }) => ({
      ...parseMember(key, member),
      member,
      score,
    }));
  }

  /** The gate is pending but due later than its entry said: move the entry, if still there. */
  rescheduleExpiry(entry: IndexEntry, expiresAt: number): Promise<unknown> {
    return redisCall('reschedule an expiry', () =>
      this.redis.zadd(this.keys.expiry, 'XX', expiresAt, entry.member),
    );
  }

  /** An expiry entry whose pause does not exist is dropped once it cannot be a pause in the making. */
  isOrphanExpiry(entry: IndexEntry, now: number): boolean {
    return entry.score < now - ORPHAN_GRACE_MS;
  }

  // --- resume --------------------------------------------------------------------------------

  /** Pauses whose resume is due, checked against their records; other entries moved or dropped. */
  async dueResumes(now: number, limit: number): Promise<string[]> {
    const key = this.keys.resume;
    const raw = await redisCall(`read ${key}`, () =>
      this.redis.zrangebyscore(key, '-inf', now, 'WITHSCORES', 'LIMIT', 0, limit),
    );
    const due = await Promise.all(
      withScores(raw).map(({ member, score }) => this.checkResume(member, String(score), now)),
    );
    return due.filter((pauseId) => pauseId !== undefined);
  }

  private async checkResume(
    pauseId: string,
    score: string,
    now: number,
  ): Promise<string | undefined> {
    const key = this.keys.pause(pauseId);
    const resume = this.keys.resume;
    const [pending, state, leaseUntil] = await redisCall(`read ${key}`, () =>
      this.redis.hmget(key, 'pending', 'resumeState', 'leaseUntil'),
    );
    if (state === null || state === undefined) {
      await this.zsetCas(resume, pauseId, score, '');
      return undefined;
    }
    if (Number(pending) > 0) {
      await this.zsetCas(resume, pauseId, score, String(now + this.options.recheckMs));
      return undefined;
    }
    switch (state) {
      case 'idle':
        return pauseId;
      case 'resuming':
        if (Number(leaseUntil) <= now) return pauseId;
        await redisCall('reschedule a resume check', () =>
          this.redis.zadd(resume, 'XX', 'GT', Number(leaseUntil), pauseId),
        );
        return undefined;
      case 'failed':
      case 'resumed':
      case 'refused':
      case 'abandoned':
        // Failed resumes wait for a human Retry; its claim puts the pause back with its lease.
        await this.zsetCas(resume, pauseId, score, '');
        return undefined;
      default:
        throw new StoreError('corrupt_record', `${key} does not hold a valid record: resumeState`);
    }
  }

  private pendingKeys(view: PauseView, callId: string): string[] {
    return pendingIndexesOf(view, callId).map((index) =>
      this.keys.pending(pendingIndexName(index)),
    );
  }

  private async zsetCas(key: string, entry: string, expected: string, next: string) {
    const raw = await redisCall(`update ${key}`, () =>
      ZSET_CAS.run(this.redis, [key], [entry, expected, next]),
    );
    parseCodeReply(ZSET_CAS.name, raw);
  }

  /**
   * Call-id keys of earlier versions, gone: one UNLINK on one Redis; on a Cluster, whose keys are
   * in many slots, one each.
   */
  private async unlinkCallKeys(keys: readonly string[]): Promise<void> {
    const groups = this.redis instanceof Cluster ? keys.map((key) => [key]) : [keys];
    // Named by count: the list of a burst's keys would be built on every call, for errors only.
    await redisCall(`remove ${keys.length} call-id key(s), ${keys[0] ?? ''} first`, () =>
      Promise.all(groups.map((group) => this.redis.unlink(...group))),
    );
  }
}
