import { z } from 'zod';
import { parseJsonText } from '../../json.js';
import {
  type RunRecord,
  type RunRoot,
  type RunStatus,
  type RunThreadRef,
  runRootSchema,
  runStatusSchema,
} from '../run-status.js';
import type { RunThreadRecords } from '../run-threads.js';
import { StoreError } from '../store.js';
import {
  THREAD_SESSION_TTL_MS,
  type ThreadSession,
  threadSessionSchema,
} from '../thread-sessions.js';
import { assertNoHashTag } from './keys.js';
import { type RedisClient, redisCall } from './redis-connection.js';
import { RedisLegacyThreadSessions } from './redis-legacy-thread-sessions.js';
import { ScriptCode } from './scripts/codes.js';
import { LuaScript } from './scripts/lua-script.js';
import { RUN_THREAD_LUA } from './scripts/run-thread.lua.js';

const RUN_THREAD = new LuaScript('run_thread', RUN_THREAD_LUA);

/** The record's fields. `root` and `status` are where versions before it kept them (below). */
const FIELD = {
  root: 'root',
  status: 'status',
  appName: 'appName',
  userId: 'userId',
  sessionId: 'sessionId',
  requester: 'requester',
  teamId: 'teamId',
  lastPauseId: 'lastPauseId',
} as const;

/** A thread's session as its record holds it: the thread itself is the record's key. */
const storedSessionSchema = threadSessionSchema.omit({ channelId: true, threadTs: true });

const scriptReplySchema = z.tuple([
  z.union([z.literal(ScriptCode.OK), z.literal(ScriptCode.UNCHANGED)]),
  z.string(),
]);

/**
 * Run threads in Redis: one hash per thread, each write one single-key script (Cluster-safe),
 * the whole record kept for 30 days after its last write (a thread stays continuable that long).
 *
 * ```
 * <prefix>run:<channelId>:<threadTs>  hash    root, status (JSON); appName, userId, sessionId,
 *                                             requester, teamId, lastPauseId (the ADK session)
 * <prefix>event:<eventId>             string  an Events API event already taken (SET NX PX)
 * ```
 *
 * Before this record, a thread's session was a string of its own (`RedisLegacyThreadSessions`);
 * the root and status already lived in this hash under these names. A thread with no session
 * here is looked up there, so that threads started by older replicas still continue.
 */
export class RedisRunThreadRecords implements RunThreadRecords {
  private readonly legacy: RedisLegacyThreadSessions;

  constructor(
    private readonly redis: RedisClient,
    private readonly prefix: string,
  ) {
    assertNoHashTag('The key prefix', prefix);
    this.legacy = new RedisLegacyThreadSessions(redis, prefix);
  }

  async saveRoot(thread: RunThreadRef, root: RunRoot): Promise<void> {
    const status: RunStatus = { kind: 'running' };
    await this.write('save a run root', thread, '', [
      FIELD.root,
      JSON.stringify(root),
      FIELD.status,
      JSON.stringify(status),
    ]);
  }

  async setStatus(thread: RunThreadRef, status: RunStatus): Promise<RunRecord | undefined> {
    const root = await this.write('set a run status', thread, FIELD.root, [
      FIELD.status,
      JSON.stringify(status),
    ]);
    if (root === undefined) return undefined;
    const parsed = runRootSchema.safeParse(json(root));
    if (!parsed.success) {
      throw new StoreError('corrupt_record', `${this.key(thread)} does not hold a run root`);
    }
    return { root: parsed.data, status };
  }

  async read(thread: RunThreadRef): Promise<RunRecord | undefined> {
    const key = this.key(thread);
    const [root, status] = await redisCall('read a run status', () =>
      this.redis.hmget(key, FIELD.root, FIELD.status),
    );
    if (root == null || status == null) return undefined;
    const parsedRoot = runRootSchema.safeParse(json(root));
    const parsedStatus = runStatusSchema.safeParse(json(status));
    if (!parsedRoot.success || !parsedStatus.success) {
      throw new StoreError('corrupt_record', `${key} does not hold a run record`);
    }
    return { root: parsedRoot.data, status: parsedStatus.data };
  }

  async save(session: ThreadSession): Promise<void> {
    const { channelId, threadTs, ...fields } = session;
    const pairs: string[] = [];
    for (const [name, value] of Object.entries(fields)) {
      if (value !== undefined) pairs.push(name, value);
    }
    await this.write('save a thread session', { channelId, threadTs }, '', pairs);
  }

  async find(channelId: string, threadTs: string): Promise<ThreadSession | undefined> {
    const key = this.key({ channelId, threadTs });
    const fields = await redisCall('read a thread session', () => this.redis.hgetall(key));
    if (fields[FIELD.sessionId] === undefined) return this.legacy.find(channelId, threadTs);
    const parsed = storedSessionSchema.safeParse(fields);
    if (!parsed.success) {
      throw new StoreError('corrupt_record', `${key} does not hold a thread session`);
    }
    const { teamId, lastPauseId, ...session } = parsed.data;
    return {
      channelId,
      threadTs,
      ...session,
      ...(teamId === undefined ? {} : { teamId }),
      ...(lastPauseId === undefined ? {} : { lastPauseId }),
    };
  }

  async notePause(channelId: string, threadTs: string, pauseId: string): Promise<void> {
    const thread = { channelId, threadTs };
    const noted = await this.write('note a pause', thread, FIELD.sessionId, [
      FIELD.lastPauseId,
      pauseId,
    ]);
    if (noted === undefined) await this.legacy.notePause(channelId, threadTs, pauseId);
  }

  async claimEvent(eventId: string, ttlMs: number): Promise<boolean> {
    const set = await redisCall('claim an event', () =>
      this.redis.set(`${this.prefix}event:${eventId}`, '1', 'PX', ttlMs, 'NX'),
    );
    return set === 'OK';
  }

  /**
   * When written, the value of the `guard` field ('' without one); undefined when `guard` names
   * a field the record does not have.
   */
  private async write(
    what: string,
    thread: RunThreadRef,
    guard: string,
    pairs: readonly string[],
  ): Promise<string | undefined> {
    const reply = await redisCall(what, () =>
      RUN_THREAD.run(this.redis, [this.key(thread)], [guard, THREAD_SESSION_TTL_MS, ...pairs]),
    );
    const [code, guarded] = scriptReplySchema.parse(reply);
    return code === ScriptCode.OK ? guarded : undefined;
  }

  private key(thread: RunThreadRef): string {
    return `${this.prefix}run:${thread.channelId}:${thread.threadTs}`;
  }
}

function json(text: string): unknown {
  const parsed = parseJsonText(text);
  return parsed.ok ? parsed.value : undefined;
}
