import { createHash } from 'node:crypto';
import { parseJsonText } from '../../json.js';
import {
  type BeginRunResult,
  dedupeScopeOf,
  ENDED_RUN_STATUSES,
  runEnded,
  STARTED_RUN_TTL_MS,
  type StartedRunChange,
  type StartedRunRecord,
  type StartedRuns,
  startedRunSchema,
} from '../started-runs.js';
import { StoreError } from '../store.js';
import { assertNoHashTag } from './keys.js';
import { type RedisClient, redisCall } from './redis-connection.js';
import { ScriptCode } from './scripts/codes.js';
import { LuaScript } from './scripts/lua-script.js';
import {
  COMPARE_AND_DELETE_LUA,
  STARTED_RUN_PAUSE_LUA,
  STARTED_RUN_UPDATE_LUA,
} from './scripts/started-run.lua.js';

const UPDATE = new LuaScript('started_run_update', STARTED_RUN_UPDATE_LUA);
const ADD_PAUSE = new LuaScript('started_run_pause', STARTED_RUN_PAUSE_LUA);
const COMPARE_AND_DELETE = new LuaScript('compare_and_delete', COMPARE_AND_DELETE_LUA);

/** The fields `update` writes one by one; the rest of the record is `base`, written once. */
const CHANGING = ['status', 'threadTs', 'sessionId', 'endedAt', 'reason'] as const;
const ENDED = [...ENDED_RUN_STATUSES].join(' ');

const baseSchema = startedRunSchema.omit({
  status: true,
  threadTs: true,
  sessionId: true,
  endedAt: true,
  reason: true,
  pauseIds: true,
});

/**
 * Runs started over the API or by alerts, in Redis. Every key is written by single-key commands
 * or scripts (Cluster-safe); the dedupe key is taken with SET NX, so two racing starts with the
 * same dedupe key make one run.
 *
 * ```
 * <prefix>started-run:<id>                    hash    base (JSON: who, what, where), status,
 *                                                     threadTs, sessionId, endedAt, reason,
 *                                                     pauses (space-separated pause ids)
 * <prefix>started-run-dedupe:<sha256 of scope> string  the open run's id (SET NX; deleted at its end)
 * <prefix>started-run-thread:<channel>:<ts>   string  the run whose thread that is
 * ```
 */
export class RedisStartedRuns implements StartedRuns {
  constructor(
    private readonly redis: RedisClient,
    private readonly prefix: string,
  ) {
    assertNoHashTag('The key prefix', prefix);
  }

  async begin(run: StartedRunRecord): Promise<BeginRunResult> {
    // The record first: a racing start that finds the dedupe key taken reads the holder's record.
    await this.write(run);
    const scope = dedupeScopeOf(run);
    if (scope === undefined) return { kind: 'begun', run };
    const dedupeKey = this.dedupeKey(scope);
    const taken = await redisCall('take a run dedupe key', () =>
      this.redis.set(dedupeKey, run.id, 'PX', STARTED_RUN_TTL_MS, 'NX'),
    );
    if (taken === 'OK') return { kind: 'begun', run };
    const holderId = await redisCall('read a run dedupe key', () => this.redis.get(dedupeKey));
    const holder = holderId === null ? undefined : await this.read(holderId);
    await redisCall('drop a run not begun', () => this.redis.del(this.runKey(run.id)));
    if (holder !== undefined) return { kind: 'held', run: holder };
    // The holder is gone (its record expired): let go of its key and try once more.
    if (holderId !== null) {
      await COMPARE_AND_DELETE.run(this.redis, [dedupeKey], [holderId]);
    }
    return this.begin(run);
  }

  async read(id: string): Promise<StartedRunRecord | undefined> {
    const key = this.runKey(id);
    const fields = await redisCall('read a started run', () => this.redis.hgetall(key));
    if (fields.base === undefined) return undefined;
    const text = parseJsonText(fields.base);
    const base = baseSchema.safeParse(text.ok ? text.value : undefined);
    const parsed = startedRunSchema.safeParse({
      ...(base.success ? base.data : {}),
      status: fields.status,
      ...(fields.threadTs === undefined ? {} : { threadTs: fields.threadTs }),
      ...(fields.sessionId === undefined ? {} : { sessionId: fields.sessionId }),
      ...(fields.endedAt === undefined ? {} : { endedAt: Number(fields.endedAt) }),
      ...(fields.reason === undefined ? {} : { reason: fields.reason }),
      pauseIds: (fields.pauses ?? '').split(' ').filter((pauseId) => pauseId !== ''),
    });
    if (!base.success || !parsed.success) {
      throw new StoreError('corrupt_record', `${key} does not hold a started run`);
    }
    return parsed.data;
  }

  async update(id: string, change: StartedRunChange): Promise<StartedRunRecord | undefined> {
    const pairs: string[] = [];
    for (const field of CHANGING) {
      const value = change[field];
      if (value !== undefined) pairs.push(field, String(value));
    }
    const code = await redisCall('update a started run', () =>
      UPDATE.run(this.redis, [this.runKey(id)], [STARTED_RUN_TTL_MS, ENDED, ...pairs]),
    );
    if (code === ScriptCode.NOT_FOUND) return undefined;
    const run = await this.read(id);
    if (run === undefined) return undefined;
    if (code === ScriptCode.OK && change.threadTs !== undefined) {
      const threadKey = this.threadKey(run.channel, change.threadTs);
      await redisCall('index a started run by thread', () =>
        this.redis.set(threadKey, id, 'PX', STARTED_RUN_TTL_MS),
      );
    }
    if (code === ScriptCode.OK && runEnded(run)) await this.release(run);
    return run;
  }

  async addPause(id: string, pauseId: string): Promise<void> {
    await redisCall('note a started run pause', () =>
      ADD_PAUSE.run(this.redis, [this.runKey(id)], [pauseId]),
    );
  }

  async release(run: StartedRunRecord): Promise<void> {
    const scope = dedupeScopeOf(run);
    if (scope === undefined) return;
    await redisCall('release a run dedupe key', () =>
      COMPARE_AND_DELETE.run(this.redis, [this.dedupeKey(scope)], [run.id]),
    );
  }

  async findByThread(channelId: string, threadTs: string): Promise<string | undefined> {
    const id = await redisCall('find a started run by thread', () =>
      this.redis.get(this.threadKey(channelId, threadTs)),
    );
    return id ?? undefined;
  }

  private async write(run: StartedRunRecord): Promise<void> {
    const { status, threadTs, sessionId, endedAt, reason, pauseIds, ...base } = run;
    const key = this.runKey(run.id);
    const pairs: string[] = ['base', JSON.stringify(base), 'status', status];
    if (threadTs !== undefined) pairs.push('threadTs', threadTs);
    if (sessionId !== undefined) pairs.push('sessionId', sessionId);
    if (pauseIds.length > 0) pairs.push('pauses', pauseIds.join(' '));
    await redisCall('record a started run', () =>
      this.redis
        .multi()
        .hset(key, ...pairs)
        .pexpire(key, STARTED_RUN_TTL_MS)
        .exec(),
    );
  }

  private runKey(id: string): string {
    return `${this.prefix}started-run:${id}`;
  }

  private dedupeKey(scope: string): string {
    return `${this.prefix}started-run-dedupe:${createHash('sha256').update(scope).digest('hex')}`;
  }

  private threadKey(channelId: string, threadTs: string): string {
    return `${this.prefix}started-run-thread:${channelId}:${threadTs}`;
  }
}
