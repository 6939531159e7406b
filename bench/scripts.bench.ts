import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { connectRedis } from '../src/approvals/store/redis-connection.js';
import { openRedisStore } from '../src/approvals/store/redis-store.js';
import { PAUSE_PRELUDE } from '../src/approvals/store/scripts/prelude.lua.js';
import type { ApprovalStore } from '../src/approvals/store.js';
import { firstCallId, newPause, policy, T0 } from '../test/approvals/store/fixtures.js';
import { whileScriptsRun } from '../test/approvals/store/script-calls.js';
import { deleteWithPrefix, REDIS_URL, randomPrefix } from '../test/support/redis.js';
import { table } from './support/figures.js';

/**
 * What each of the store's main scripts costs Redis per call, alone on a quiet connection: the
 * store bench's rows add the client's work, the other commands and whatever else the machine
 * runs. Each call is recorded once as the store makes it (its keys, its arguments, and its keys'
 * contents just before it), then replayed ROUNDS × RUNS times by EVALSHA, its keys written back
 * before each run as the scripts write them (HSET, RPUSH: a hash put back by RESTORE made the
 * same vote take about 40 % longer). Redis's own time per call is read from INFO commandstats, so
 * neither the client nor the restores count; the commands a script runs inside are part of it.
 * Prints figures; asserts nothing.
 */

const ROUNDS = 5;
const RUNS = 400;
const BATCH = 50;

interface RecordedCall {
  sha: string;
  keys: string[];
  args: string[];
  /** Each key's content just before the call. */
  before: KeyContent[];
}

type KeyContent =
  | { type: 'none' }
  | { type: 'hash'; fields: Record<string, string> }
  | { type: 'list'; items: string[] }
  | { type: 'other'; dump: Buffer };

async function contentOf(key: string): Promise<KeyContent> {
  const type = await admin.type(key);
  if (type === 'none') return { type };
  if (type === 'hash') return { type, fields: await admin.hgetall(key) };
  if (type === 'list') return { type, items: await admin.lrange(key, 0, -1) };
  const dump = await admin.dumpBuffer(key);
  return dump === null ? { type: 'none' } : { type: 'other', dump };
}

let admin: Redis;
const prefixes: string[] = [];
const rows: string[][] = [];

function print(line: string): void {
  process.stdout.write(`[bench scripts] ${line}\n`);
}

/** The script calls `work` makes, each with its keys' contents just before it. */
async function recordScripts(work: () => Promise<unknown>): Promise<RecordedCall[]> {
  const calls: RecordedCall[] = [];
  await whileScriptsRun(async (sha, _firstKey, { keys, args }) => {
    // In the order the calls start, whatever order their reads answer in.
    const call: RecordedCall = { sha, keys, args, before: [] };
    calls.push(call);
    call.before = await Promise.all(keys.map(contentOf));
  }, work);
  return calls;
}

/** Redis's own microseconds per EVALSHA over `runs` replays of `call`, its keys written back each time. */
async function replay(call: RecordedCall, runs: number): Promise<number> {
  const evalshaStats = async () => {
    const text = await admin.info('commandstats');
    const found = /cmdstat_evalsha:calls=(\d+),usec=(\d+)/.exec(text);
    return { calls: Number(found?.[1] ?? 0), usec: Number(found?.[2] ?? 0) };
  };
  const start = await evalshaStats();
  for (let run = 0; run < runs; run++) {
    const restore = admin.pipeline();
    for (const [i, key] of call.keys.entries()) {
      const content = call.before[i];
      restore.del(key);
      if (content?.type === 'hash') restore.hset(key, content.fields);
      if (content?.type === 'list' && content.items.length > 0)
        restore.rpush(key, ...content.items);
      if (content?.type === 'other') restore.restore(key, 0, content.dump);
    }
    await restore.exec();
    await admin.evalsha(call.sha, call.keys.length, ...call.keys, ...call.args);
  }
  const end = await evalshaStats();
  return (end.usec - start.usec) / (end.calls - start.calls);
}

/** Replays `call` and adds its row: the median and range over the rounds. */
async function measure(what: string, call: RecordedCall | undefined, per = 1): Promise<void> {
  if (call === undefined) {
    rows.push([what, '-', '-', 'not recorded']);
    return;
  }
  await replay(call, 50); // warm-up
  const rounds: number[] = [];
  for (let round = 0; round < ROUNDS; round++) rounds.push(await replay(call, RUNS));
  rounds.sort((a, b) => a - b);
  const perUnit = (value: number) => (value / per).toFixed(1);
  const median = rounds[Math.floor(ROUNDS / 2)] ?? NaN;
  const range = `${perUnit(rounds[0] ?? NaN)}–${perUnit(rounds.at(-1) ?? NaN)}`;
  const sent = [...call.keys, ...call.args].reduce((sum, text) => sum + Buffer.byteLength(text), 0);
  const shape = `${call.keys.length} keys, ${call.args.length} args, ${sent.toLocaleString('en')} B`;
  rows.push([what, perUnit(median), range, shape]);
}

/** `call` with another script in its place (loaded now), the same keys and arguments. */
async function standIn(
  source: string,
  call: RecordedCall | undefined,
): Promise<RecordedCall | undefined> {
  if (call === undefined) return undefined;
  const sha = String(await admin.script('LOAD', source));
  return { ...call, sha };
}

async function openStores(count: number): Promise<{ stores: ApprovalStore[]; clients: Redis[] }> {
  const keyPrefix = randomPrefix();
  prefixes.push(keyPrefix);
  const clients = await Promise.all(Array.from({ length: count }, () => connectRedis(REDIS_URL)));
  return { stores: clients.map((redis) => openRedisStore({ redis, keyPrefix })), clients };
}

beforeAll(async () => {
  admin = await connectRedis(REDIS_URL);
});

afterAll(async () => {
  print(`Redis's own µs per script call, ${ROUNDS} rounds of ${RUNS} replays, median (range)`);
  for (const line of table(['script call', 'µs', 'range', 'call (its keys and arguments)'], rows))
    print(line);
  for (const prefix of prefixes) await deleteWithPrefix(admin, prefix);
  await admin.quit();
});

describe("the store's scripts, each alone", () => {
  it('a pause created, voted on by its replica and by another, resumed, and expired in a batch', async () => {
    const {
      stores: [recorder, other],
      clients: [recorderClient, otherClient],
    } = await openStores(2);
    if (!recorder || !other || !recorderClient || !otherClient) throw new Error('no stores');
    const input = () => newPause({ policies: [policy({ expiresInMs: 3_600_000 })] });

    const created = input();
    const [create] = await recordScripts(() => recorder.pauses.createPause(created));
    await measure('create_pause, one gate', create);

    // The replica that recorded the pause knows its chain: the vote seals its own lines, and
    // claims the resume in the same call, as a click does in the app.
    const vote = { voter: 'U1', choice: 'approve' as const, now: T0 + 1 };
    const resumeClaim = { owner: 'r1', leaseMs: 30_000 };
    const [warmVote] = await recordScripts(() =>
      recorder.pauses.vote({
        pauseId: created.id,
        callId: firstCallId(created),
        ...vote,
        resumeClaim,
      }),
    );
    await measure(
      'vote, deciding, claiming the resume (its replica: lines sealed in the vote)',
      warmVote,
    );
    const [finish] = await recordScripts(() =>
      recorder.leases.markResumed({ pauseId: created.id, owner: 'r1', now: T0 + 2 }),
    );
    await measure('finish_resume (resumed)', finish);

    // Another replica knows nothing of it: its vote, then a seal of the vote's lines.
    const cold = input();
    await recorder.pauses.createPause(cold);
    const [coldVote, seal] = await recordScripts(() =>
      other.pauses.vote({ pauseId: cold.id, callId: firstCallId(cold), ...vote }),
    );
    await measure('vote, deciding (another replica)', coldVote);
    await measure('seal_audit of its two lines', seal);
    // What any call costs before its work: a script that does nothing (the floor), and the
    // per-pause scripts' prelude alone (its tables and helpers, defined anew at every call).
    await measure(
      'floor: EVALSHA of `return 0`, the same keys and args',
      await standIn('return 0', coldVote),
    );
    await measure(
      'the prelude alone, the same keys and args',
      await standIn(`${PAUSE_PRELUDE}\nreturn 0`, coldVote),
    );

    const due = Array.from({ length: BATCH }, () =>
      newPause({ policies: [policy({ expiresInMs: 1_000 })] }),
    );
    for (const pause of due) await recorder.pauses.createPause(pause);
    const [expire, seals] = await recordScripts(() => other.sweeps.expireDue(T0 + 1_000, BATCH));
    await measure(`expire_gates, a batch of ${BATCH} pauses, per gate`, expire, BATCH);
    await measure(`seal_audits of the batch's lines, per gate`, seals, BATCH);
    await Promise.all([recorderClient.quit(), otherClient.quit()]);
  });
});
