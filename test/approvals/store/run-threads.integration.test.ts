import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunRoot, RunStatus } from '../../../src/approvals/run-status.js';
import {
  MemoryRunThreadRecords,
  type RunThreadRecords,
} from '../../../src/approvals/run-threads.js';
import { storeKeys } from '../../../src/approvals/store/keys.js';
import type { RedisClient } from '../../../src/approvals/store/redis-connection.js';
import { RedisRunThreadRecords } from '../../../src/approvals/store/redis-run-threads.js';
import { openRedisStore } from '../../../src/approvals/store/redis-store.js';
import type { ThreadSession } from '../../../src/approvals/thread-sessions.js';
import {
  connectTestRedis,
  deleteWithPrefix,
  keysWithPrefix,
  randomPrefix,
  usingCluster,
} from '../../support/redis.js';

const where = usingCluster ? 'Redis Cluster' : 'Redis';
const THREAD = { channelId: 'C0OPS', threadTs: '1700000000.000100' };
const ROOT: RunRoot = { userId: 'U0ALICE', appName: 'ops', prompt: 'restart payments-api' };
const SESSION: ThreadSession = {
  ...THREAD,
  appName: 'ops',
  userId: 'U0ALICE',
  sessionId: 'session-1',
  requester: 'U0ALICE',
  teamId: 'T0TEAM',
};
const WAITING: RunStatus = {
  kind: 'waiting',
  card: { channelId: 'C0OPS', ts: '1700000001.000200' },
};

let redis: RedisClient;
let prefix: string;

beforeEach(async () => {
  redis = await connectTestRedis();
  prefix = randomPrefix();
});
afterEach(async () => {
  await deleteWithPrefix(redis, prefix);
  redis.disconnect();
});

describe.each([
  { name: 'memory', open: (): RunThreadRecords => new MemoryRunThreadRecords() },
  { name: where, open: (): RunThreadRecords => new RedisRunThreadRecords(redis, prefix) },
])('a run thread’s record ($name)', ({ open }) => {
  it('holds the root, the status and the session of the thread together', async () => {
    const runs = open();
    await runs.saveRoot(THREAD, ROOT);
    await runs.save(SESSION);
    // The write answers the record as it now stands: the root it needed, and the status.
    expect(await runs.setStatus(THREAD, WAITING)).toEqual({ root: ROOT, status: WAITING });
    await runs.notePause(THREAD.channelId, THREAD.threadTs, 'pause-1');
    expect(await runs.read(THREAD)).toEqual({ root: ROOT, status: WAITING });
    expect(await runs.find(THREAD.channelId, THREAD.threadTs)).toEqual({
      ...SESSION,
      lastPauseId: 'pause-1',
    });
  });

  it('takes no status before the root, nor a pause before the session', async () => {
    const runs = open();
    expect(await runs.setStatus(THREAD, WAITING)).toBeUndefined();
    await runs.notePause(THREAD.channelId, THREAD.threadTs, 'pause-1');
    expect(await runs.read(THREAD)).toBeUndefined();
    expect(await runs.find(THREAD.channelId, THREAD.threadTs)).toBeUndefined();
    await runs.saveRoot(THREAD, ROOT);
    expect(await runs.read(THREAD)).toEqual({ root: ROOT, status: { kind: 'running' } });
    expect(await runs.find(THREAD.channelId, THREAD.threadTs)).toBeUndefined();
  });

  it('passes each Slack event once', async () => {
    const runs = open();
    expect(await runs.claimEvent('Ev1', 60_000)).toBe(true);
    expect(await runs.claimEvent('Ev1', 60_000)).toBe(false);
    expect(await runs.claimEvent('Ev2', 60_000)).toBe(true);
  });
});

describe(`${where}: run threads`, () => {
  it('keep one key per run thread, living 30 days after its last write', async () => {
    const runs = new RedisRunThreadRecords(redis, prefix);
    await runs.saveRoot(THREAD, ROOT);
    await runs.save(SESSION);
    await runs.notePause(THREAD.channelId, THREAD.threadTs, 'pause-1');
    await runs.setStatus(THREAD, { kind: 'done' });
    const key = `${prefix}run:${THREAD.channelId}:${THREAD.threadTs}`;
    expect(await keysWithPrefix(redis, prefix)).toEqual([key]);
    const ttl = await redis.pttl(key);
    expect(ttl).toBeGreaterThan(29 * 24 * 3_600_000);
  });

  /**
   * Until issue 22 a run thread had three records, each written on its own; replicas of that
   * version keep writing them during a rolling upgrade. `writeThreeRecords` writes them exactly
   * as that version did: the intent hash (with the session as progress) and its lease entry,
   * the thread session as a JSON string for 30 days, and the root and status hash for 7 days.
   */
  async function writeThreeRecords(runId: string, leaseUntil: number) {
    const keys = storeKeys(prefix);
    const intentKey = keys.runIntent(runId);
    await Promise.all([
      redis.zadd(keys.runs, leaseUntil, runId),
      redis.hset(
        intentKey,
        ...['id', runId, 'requester', 'U0ALICE', 'teamId', 'T0TEAM', 'channelId', THREAD.channelId],
        ...['text', 'ops restart payments-api', 'acceptedAt', String(leaseUntil - 10_000)],
        ...['owner', 'old-replica', 'leaseUntil', String(leaseUntil)],
      ),
      redis.pexpire(intentKey, 24 * 3_600_000),
    ]);
    await redis.hset(
      intentKey,
      ...['leaseUntil', String(leaseUntil), 'threadTs', THREAD.threadTs],
      ...['appName', 'ops', 'sessionId', SESSION.sessionId],
    );
    const runKey = `${prefix}run:${THREAD.channelId}:${THREAD.threadTs}`;
    await redis
      .multi()
      .hset(runKey, 'root', JSON.stringify(ROOT), 'status', JSON.stringify({ kind: 'running' }))
      .pexpire(runKey, 7 * 24 * 3_600_000)
      .exec();
    await redis.set(
      `${prefix}thread:${THREAD.channelId}:${THREAD.threadTs}`,
      JSON.stringify({
        channelId: THREAD.channelId,
        threadTs: THREAD.threadTs,
        appName: 'ops',
        userId: 'U0ALICE',
        sessionId: SESSION.sessionId,
        requester: 'U0ALICE',
        teamId: 'T0TEAM',
      }),
      'PX',
      30 * 24 * 3_600_000,
    );
    await redis.eval(
      `if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
       redis.call('HSET', KEYS[1], 'status', ARGV[1])
       redis.call('PEXPIRE', KEYS[1], ARGV[2])
       return 1`,
      1,
      runKey,
      JSON.stringify(WAITING),
      7 * 24 * 3_600_000,
    );
  }

  it('still read a thread recorded in the old layout of three records', async () => {
    const leaseUntil = Date.now() - 60_000;
    await writeThreeRecords('old-run', leaseUntil);
    const runs = new RedisRunThreadRecords(redis, prefix);

    expect(await runs.find(THREAD.channelId, THREAD.threadTs)).toEqual(SESSION);
    expect(await runs.read(THREAD)).toEqual({ root: ROOT, status: WAITING });

    // A reply in that thread, run by a new replica, pauses: the old session learns the pause,
    // and its record still ends when the old version set it to.
    const legacyKey = `${prefix}thread:${THREAD.channelId}:${THREAD.threadTs}`;
    const ttlBefore = await redis.pttl(legacyKey);
    await runs.notePause(THREAD.channelId, THREAD.threadTs, 'pause-2');
    expect(await runs.find(THREAD.channelId, THREAD.threadTs)).toEqual({
      ...SESSION,
      lastPauseId: 'pause-2',
    });
    expect(await redis.pttl(legacyKey)).toBeLessThanOrEqual(ttlBefore);
    await runs.setStatus(THREAD, { kind: 'done' });
    expect(await runs.read(THREAD)).toEqual({ root: ROOT, status: { kind: 'done' } });

    // The old replica died mid-run: its intent, with the session in it, is claimed and read.
    const store = openRedisStore({ redis, keyPrefix: prefix });
    expect(
      await store.runs.claimDeadRuns({ now: Date.now(), owner: 'new-replica', leaseMs: 1_000 }),
    ).toEqual([
      {
        id: 'old-run',
        requester: 'U0ALICE',
        teamId: 'T0TEAM',
        channelId: THREAD.channelId,
        text: 'ops restart payments-api',
        acceptedAt: leaseUntil - 10_000,
        threadTs: THREAD.threadTs,
        appName: 'ops',
        sessionId: SESSION.sessionId,
      },
    ]);
  });

  it('prefer the new record where a thread has both', async () => {
    await writeThreeRecords('old-run', Date.now());
    const runs = new RedisRunThreadRecords(redis, prefix);
    await runs.save({ ...SESSION, sessionId: 'session-2' });
    expect((await runs.find(THREAD.channelId, THREAD.threadTs))?.sessionId).toBe('session-2');
  });
});
