import { performance } from 'node:perf_hooks';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { connectRedis } from '../src/approvals/store/redis-connection.js';
import { openRedisStore } from '../src/approvals/store/redis-store.js';
import type { ApprovalStore } from '../src/approvals/store.js';
import type { NewPause } from '../src/approvals/store-roles/pauses.js';
import { firstCallId, newPause, policy, T0 } from '../test/approvals/store/fixtures.js';
import {
  deleteWithPrefix,
  keysWithPrefix,
  REDIS_URL,
  randomPrefix,
} from '../test/support/redis.js';
import { type BudgetRow, budgetTable } from './support/budget.js';
import { ms, spread as percentiles } from './support/figures.js';
import { profiled } from './support/in-process-profile.js';
import { profileLines } from './support/profile-summary.js';

/**
 * The Redis confirmation store against the Redis at 127.0.0.1:6379: vote throughput next to a
 * bare SET NX + HSET loop, memory per pending gate, and the time to sweep 10,000 due gates.
 * Prints figures; asserts nothing.
 */

const VOTES_ONE_CLIENT = 2_000;
const VOTES_FIFTY_CLIENTS = 5_000;
const MEMORY_SAMPLE = 1_000;
/** Pauses taken from creation to resumed for the memory a finished pause keeps. */
const RESUMED_SAMPLE = 300;
const SWEEP_GATES = 10_000;

const LARGE_PENDING = 100_000;
const SMALL_PENDING = 1_000;
const LATENCY_VOTES = 300;

/** BENCH_CPU_PROF=<dir>: the votes and the sweep are profiled and their top frames printed. */
const PROFILE_DIR = process.env.BENCH_CPU_PROF;

let admin: Redis;
const prefixes: string[] = [];
/** The budget's store rows, printed together at the end. */
const budget: BudgetRow[] = [];

function prefix(): string {
  const value = randomPrefix();
  prefixes.push(value);
  return value;
}

function print(line: string): void {
  process.stdout.write(`[bench store] ${line}\n`);
}

async function printProfile(file: string, what: string): Promise<void> {
  print(`CPU profile of ${what} (${file})`);
  for (const line of await profileLines(file, 25)) print(line);
}

/**
 * The bytes a key's content takes written out: a hash's field names and values, a sorted set's
 * members and 8-byte scores, a stream's entry ids, field names and values, a string's value.
 * What any layout of the same data holds, before Redis's own overhead.
 */
async function dataBytes(redis: Redis, key: string): Promise<number> {
  const length = (texts: readonly string[]) =>
    texts.reduce((sum, text) => sum + Buffer.byteLength(text), 0);
  switch (await redis.type(key)) {
    case 'hash':
      return length(Object.entries(await redis.hgetall(key)).flat());
    case 'zset': {
      const members = await redis.zrange(key, 0, -1);
      return length(members) + 8 * members.length;
    }
    case 'stream':
      return length((await redis.xrange(key, '-', '+')).flatMap(([id, fields]) => [id, ...fields]));
    case 'string':
      return Buffer.byteLength((await redis.get(key)) ?? '');
    case 'list':
      return length(await redis.lrange(key, 0, -1));
    default:
      return 0;
  }
}

/**
 * What the keys under `keyPrefix` take, in all and per `count` (pauses, gates) by kind of key
 * (`pause`, `gate`, `expiry`, `audit`, …): Redis's `MEMORY USAGE`, and the data itself.
 */
async function memoryOf(redis: Redis, keyPrefix: string, count: number) {
  const bytesByKind = new Map<string, number>();
  const heldByKind = new Map<string, number>();
  let total = 0;
  let data = 0;
  for (const key of await keysWithPrefix(redis, keyPrefix)) {
    const bytes = (await redis.memory('USAGE', key, 'SAMPLES', 0)) ?? 0;
    const held = await dataBytes(redis, key);
    const kind = key
      .slice(keyPrefix.length)
      .replace(/^\{[^}]*\}:/, '')
      .replace(/:.*$/, '');
    bytesByKind.set(kind, (bytesByKind.get(kind) ?? 0) + bytes);
    heldByKind.set(kind, (heldByKind.get(kind) ?? 0) + held);
    total += bytes;
    data += held;
  }
  const perKind = (bytes: Map<string, number>) =>
    [...bytes].map(([kind, sum]) => `${kind} ${Math.round(sum / count)}`).join(', ');
  return { total, data, byKind: perKind(bytesByKind), dataByKind: perKind(heldByKind) };
}

function rate(count: number, ms: number): number {
  return Math.round((count * 1000) / ms);
}

async function timed(work: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await work();
  return performance.now() - start;
}

/**
 * The wall time of `work`, and the CPU time it cost this process and the Redis server. On a
 * shared, loaded machine the wall time mostly measures the load; CPU time much less so (the
 * server's figure includes whatever else it served meanwhile).
 */
async function cpuTimed(work: () => Promise<unknown>) {
  const redisCpuMs = async () => {
    const text = await admin.info('cpu');
    const field = (name: string) => Number(new RegExp(`${name}:([\\d.]+)`).exec(text)?.[1]);
    return (field('used_cpu_user') + field('used_cpu_sys')) * 1_000;
  };
  const redisBefore = await redisCpuMs();
  const cpuBefore = process.cpuUsage();
  const ms = await timed(work);
  const cpu = process.cpuUsage(cpuBefore);
  const redisMs = (await redisCpuMs()) - redisBefore;
  return { ms, nodeMs: (cpu.user + cpu.system) / 1_000, redisMs };
}

/** `Node 275 + Redis 110 µs` per operation. */
function cpuPer(count: number, cost: { nodeMs: number; redisMs: number }): string {
  const us = (ms: number) => Math.round((ms * 1_000) / count);
  return `Node ${us(cost.nodeMs)} + Redis ${us(cost.redisMs)} µs`;
}

/** Runs `total` jobs over `workers` concurrent loops, job i by worker i % workers. */
async function spread(
  total: number,
  workers: number,
  job: (i: number, worker: number) => Promise<unknown>,
) {
  await Promise.all(
    Array.from({ length: workers }, async (_, worker) => {
      for (let i = worker; i < total; i += workers) await job(i, worker);
    }),
  );
}

/** U1's deciding approval of the pause's first gate. */
function approveFirstGate(store: ApprovalStore, input: NewPause): Promise<unknown> {
  return store.pauses.vote({
    pauseId: input.id,
    callId: firstCallId(input),
    voter: 'U1',
    choice: 'approve',
    now: T0 + 1,
  });
}

/**
 * A store on a fresh key prefix holding `count` one-gate pauses, each expiring `expiresInMs` after
 * T0 (with `args` merged into their tool's arguments).
 */
async function storeWithPauses(
  count: number,
  expiresInMs: number,
  args?: Record<string, string>,
): Promise<{ keyPrefix: string; redis: Redis; store: ApprovalStore; inputs: NewPause[] }> {
  const keyPrefix = prefix();
  const redis = await connectRedis(REDIS_URL);
  const store = openRedisStore({ redis, keyPrefix });
  const inputs = Array.from({ length: count }, () =>
    newPause({ policies: [policy({ expiresInMs })], ...(args ? { args } : {}) }),
  );
  await createAll(store, inputs);
  return { keyPrefix, redis, store, inputs };
}

async function createAll(store: ApprovalStore, inputs: NewPause[]): Promise<void> {
  await spread(inputs.length, 100, (i) => {
    const input = inputs[i];
    return input ? store.pauses.createPause(input) : Promise.resolve();
  });
}

beforeAll(async () => {
  admin = await connectRedis(REDIS_URL);
  const info = await admin.info('server');
  const version = /redis_version:(\S+)/.exec(info)?.[1] ?? 'unknown';
  print(`Redis ${version}, Node ${process.version}`);
});

afterAll(async () => {
  print('');
  print('Budget (issues 14 and 35), this run:');
  for (const line of budgetTable(budget)) print(line);
  for (const keyPrefix of prefixes) await deleteWithPrefix(admin, keyPrefix);
  admin.disconnect();
});

interface Traffic {
  /** Commands the client sent (an EVALSHA counts once). */
  sent: number;
  /** Socket writes: commands sent together (one tick, one connection) are one round trip. */
  writes: number;
  /** Commands Redis ran, those inside scripts included. */
  processed: number;
  bytesIn: number;
  bytesOut: number;
}

/** Counts what a client sends, by wrapping its `sendCommand` (every command goes through it). */
function countTraffic(redis: Redis) {
  const counts = { sent: 0, streams: new Set<unknown>(), direct: 0 };
  const send = redis.sendCommand.bind(redis);
  redis.sendCommand = (command, stream) => {
    counts.sent += 1;
    if (stream === undefined) counts.direct += 1;
    else counts.streams.add(stream);
    return send(command, stream);
  };
  return counts;
}

/** `work` alone on an otherwise idle server: what it cost, per operation. */
async function traffic(admin: Redis, client: Redis, operations: number, work: () => Promise<void>) {
  const stats = async () => {
    const text = await admin.info('stats');
    const field = (name: string) => Number(new RegExp(`${name}:(\\d+)`).exec(text)?.[1] ?? NaN);
    return {
      processed: field('total_commands_processed'),
      bytesIn: field('total_net_input_bytes'),
      bytesOut: field('total_net_output_bytes'),
    };
  };
  const counts = countTraffic(client);
  const before = await stats();
  await work();
  const after = await stats();
  const per = (value: number) => value / operations;
  // The admin's own INFO is one processed command; its bytes are left in (a few hundred).
  return {
    sent: per(counts.sent),
    writes: per(counts.streams.size + counts.direct),
    processed: per(after.processed - before.processed - 1 - counts.sent) + per(counts.sent),
    bytesIn: per(after.bytesIn - before.bytesIn),
    bytesOut: per(after.bytesOut - before.bytesOut),
  } satisfies Traffic;
}

function describeTraffic(what: string, t: Traffic): string {
  const one = (value: number) => (Number.isInteger(value) ? String(value) : value.toFixed(2));
  return (
    `${what}: ${one(t.sent)} commands sent in ${one(t.writes)} round trips, ` +
    `${one(t.processed)} run by Redis (scripts' included), ` +
    `${Math.round(t.bytesIn)} B in / ${Math.round(t.bytesOut)} B out`
  );
}

describe('Redis confirmation store', () => {
  it('what one create, one vote and one expiry cost in commands, round trips and bytes', async () => {
    // Counted, not timed: these figures do not depend on the machine's load.
    const keyPrefix = prefix();
    const creator = await connectRedis(REDIS_URL);
    const clicker = await connectRedis(REDIS_URL);
    const creating = openRedisStore({ redis: creator, keyPrefix });
    // Another replica: its call-id cache is cold, as for a click that lands elsewhere.
    const voting = openRedisStore({ redis: clicker, keyPrefix });
    const count = 200;
    const inputs = Array.from({ length: count }, () =>
      newPause({ policies: [policy({ expiresInMs: 3_600_000 })] }),
    );
    const created = await traffic(admin, creator, count, async () => {
      for (const input of inputs) await creating.pauses.createPause(input);
    });
    print(describeTraffic('one create (one gate)', created));
    const voted = await traffic(admin, clicker, count, async () => {
      for (const input of inputs) {
        await voting.pauses.vote({
          pauseId: input.id,
          callId: firstCallId(input),
          voter: 'U1',
          choice: 'approve',
          now: T0 + 1,
        });
      }
    });
    print(describeTraffic('one deciding vote, another replica', voted));
    const expiring = Array.from({ length: count }, () =>
      newPause({ policies: [policy({ expiresInMs: 1_000 })] }),
    );
    for (const input of expiring) await creating.pauses.createPause(input);
    // The voting replica never saw these pauses either.
    const swept = await traffic(admin, clicker, count, async () => {
      await voting.sweeps.expireDue(T0 + 1_000, count);
    });
    print(describeTraffic(`one expired gate, in a sweep batch of ${count}`, swept));
    await creator.quit();
    await clicker.quit();
  });

  it.each([
    [1, VOTES_ONE_CLIENT],
    [50, VOTES_FIFTY_CLIENTS],
  ])(
    'votes per second with %i concurrent clients, next to bare SET NX + HSET',
    async (clients, votes) => {
      const keyPrefix = prefix();
      const connections = await Promise.all(
        Array.from({ length: clients }, () => connectRedis(REDIS_URL)),
      );
      const stores = connections.map((redis) => openRedisStore({ redis, keyPrefix }));
      const creator = stores[0];
      if (!creator) throw new Error('no store');
      const inputs = Array.from({ length: votes }, () =>
        newPause({ policies: [policy({ expiresInMs: 3_600_000 })] }),
      );
      await createAll(creator, inputs);

      let profile: string | undefined;
      const vote = () =>
        spread(votes, clients, (i, worker) => {
          const input = inputs[i];
          const store = stores[worker];
          return input && store ? approveFirstGate(store, input) : Promise.resolve();
        });
      const storeCost = await cpuTimed(async () => {
        profile = await profiled(PROFILE_DIR, `store-votes-${clients}-clients`, vote);
      });
      if (profile !== undefined) await printProfile(profile, `the votes of ${clients} clients`);
      const bareCost = await cpuTimed(() =>
        spread(votes, clients, async (i, worker) => {
          const redis = connections[worker];
          if (!redis) return;
          await redis.set(`${keyPrefix}bare:claim:${i}`, 'U1', 'NX');
          await redis.hset(`${keyPrefix}bare:gate:${i}`, 'state', 'approved', 'by', 'U1');
        }),
      );
      const storeRate = rate(votes, storeCost.ms);
      const bareRate = rate(votes, bareCost.ms);
      print(
        `votes/s, ${clients} client(s): store ${storeRate}, bare SET NX + HSET ${bareRate}, ` +
          `ratio ${(storeRate / bareRate).toFixed(2)} (${votes} deciding votes, quorum 1); ` +
          `CPU per vote ${cpuPer(votes, storeCost)}, bare ${cpuPer(votes, bareCost)}`,
      );
      if (clients === 50) {
        // Not a budget row: the row's 50 clients are 50 replicas (a store each, cold caches), so
        // nothing one replica batches across its clicks (seals, mirrors, index writes) applies.
        // The same votes sent at once through one store, as one replica's clicks are.
        const shared = stores[0];
        const more = Array.from({ length: votes }, () =>
          newPause({ policies: [policy({ expiresInMs: 3_600_000 })] }),
        );
        if (shared) await createAll(shared, more);
        const sharedCost = await cpuTimed(() =>
          spread(votes, clients, (i) => {
            const input = more[i];
            return input && shared ? approveFirstGate(shared, input) : Promise.resolve();
          }),
        );
        const sharedRate = rate(votes, sharedCost.ms);
        print(
          `votes/s, ${clients} at once through one store (one replica, the one that recorded them): ` +
            `${sharedRate}, ratio ${(sharedRate / bareRate).toFixed(2)} to the bare loop above; ` +
            `CPU per vote ${cpuPer(votes, sharedCost)}`,
        );
        budget.push({
          figure: 'store votes/s ÷ bare SET NX + HSET, 50 clients',
          measured: `${(storeRate / bareRate).toFixed(2)} (${storeRate}/s)`,
          floor: `${bareRate}/s (bare)`,
          budget: '≥ 0.4',
          met: storeRate / bareRate >= 0.4,
        });
      }
      await Promise.all(connections.map((redis) => redis.quit()));
    },
  );

  it.each([
    ['typical args', undefined],
    ['10 kB args', { memo: 'x'.repeat(10_240) }],
  ])('memory per pending gate, %s', async (label, args) => {
    const { keyPrefix, redis, inputs } = await storeWithPauses(MEMORY_SAMPLE, 3_600_000, args);
    const { total, data, byKind, dataByKind } = await memoryOf(redis, keyPrefix, MEMORY_SAMPLE);
    print(
      `memory per pending gate, ${label}: ${Math.round(total / MEMORY_SAMPLE)} bytes ` +
        `(${byKind}; indexes amortised over ${MEMORY_SAMPLE} one-gate pauses)`,
    );
    print(
      `  of which the data itself (names, values, members, scores; no Redis overhead): ` +
        `${Math.round(data / MEMORY_SAMPLE)} bytes (${dataByKind})`,
    );
    if (args === undefined) {
      // The floor: each pause's input as one JSON string under one key, nothing indexed.
      let floor = 0;
      for (const [i, input] of inputs.entries()) {
        const key = `${keyPrefix}floor:${i}`;
        await redis.set(key, JSON.stringify(input));
        floor += (await redis.memory('USAGE', key, 'SAMPLES', 0)) ?? 0;
      }
      const perGate = Math.round(total / MEMORY_SAMPLE);
      const dataPerGate = Math.round(data / MEMORY_SAMPLE);
      const inputBytes = Math.round(
        inputs.reduce((sum, input) => sum + Buffer.byteLength(JSON.stringify(input)), 0) /
          MEMORY_SAMPLE,
      );
      budget.push(
        {
          figure: 'Redis bytes per pending gate, typical arguments',
          measured: `${perGate} B`,
          floor: `${Math.round(floor / MEMORY_SAMPLE)} B (the input as one JSON string)`,
          budget: '≤ 2,500 B',
          met: perGate <= 2_500,
        },
        {
          figure: 'of which data (names, values, members, scores), typical arguments',
          measured: `${dataPerGate} B`,
          floor: `${inputBytes} B (the input's JSON)`,
          budget: '≤ 1,500 B',
          met: dataPerGate <= 1_500,
        },
      );
    }
    await redis.quit();
  });

  it('memory per resumed pause, kept for its retention', async () => {
    const { keyPrefix, redis, store, inputs } = await storeWithPauses(RESUMED_SAMPLE, 3_600_000);
    // Each as the app takes it: its card posted, approved, its resume claimed and marked done.
    await spread(inputs.length, 50, async (i) => {
      const input = inputs[i];
      if (input === undefined) return;
      await store.pauses.setCardTs(input.id, '1795326457.000200', T0 + 1);
      await approveFirstGate(store, input);
      const claim = { pauseId: input.id, owner: 'bench', now: T0 + 2, leaseMs: 30_000 };
      await store.leases.claimResume(claim);
      await store.leases.markResumed({ ...claim, now: T0 + 3 });
    });
    const { total, data, byKind } = await memoryOf(redis, keyPrefix, RESUMED_SAMPLE);
    print(
      `memory per resumed pause, kept for its retention: ${Math.round(total / RESUMED_SAMPLE)} ` +
        `bytes (${byKind}; ${Math.round(data / RESUMED_SAMPLE)} bytes of data; ` +
        `${RESUMED_SAMPLE} one-gate pauses, each line of their audit included)`,
    );
    await redis.quit();
  });

  it('time to sweep 10,000 due gates', async () => {
    const { keyPrefix, redis } = await storeWithPauses(SWEEP_GATES, 1_000);
    // A replica that did not create them: its call-id cache is cold, as after a restart.
    const sweeper = openRedisStore({
      redis: await connectRedis(REDIS_URL),
      keyPrefix,
      ownsClient: true,
    });
    let expired = 0;
    const sweep = async () => {
      for (;;) {
        const batch = await sweeper.sweeps.expireDue(T0 + 1_000, 1_000);
        expired += batch.length;
        if (batch.length === 0) break;
      }
    };
    let profile: string | undefined;
    const cost = await cpuTimed(async () => {
      profile = await profiled(PROFILE_DIR, 'store-sweep', sweep);
    });
    const ms = cost.ms;
    print(
      `sweep ${expired} due gates: ${Math.round(ms)} ms (${rate(expired, ms)} gates/s, batches of 1,000); ` +
        `CPU ${Math.round(cost.nodeMs)} ms Node + ${Math.round(cost.redisMs)} ms Redis, ` +
        `${cpuPer(expired, cost)} per gate`,
    );
    if (profile !== undefined) await printProfile(profile, 'the sweep');
    // The floor: the same number of due members in one sorted set, taken off in batches of 1,000.
    const due = `${keyPrefix}floor:due`;
    for (let i = 0; i < SWEEP_GATES; i += 1_000) {
      const members = Array.from({ length: 1_000 }, (_, j) => [T0, `m${i + j}`]).flat();
      await redis.zadd(due, ...members);
    }
    const floorMs = await timed(async () => {
      for (;;) {
        const batch = await redis.zrangebyscore(due, '-inf', T0 + 1_000, 'LIMIT', 0, 1_000);
        if (batch.length === 0) break;
        await redis.zrem(due, ...batch);
      }
    });
    budget.push({
      figure: `sweep ${SWEEP_GATES.toLocaleString('en')} due gates`,
      measured: `${(ms / 1_000).toFixed(2)} s`,
      floor: `${(floorMs / 1_000).toFixed(2)} s (ZRANGEBYSCORE + ZREM)`,
      budget: '< 1 s',
      met: ms < 1_000,
    });
    await sweeper.lifecycle.close();
    await redis.quit();
  });

  it('click latency and memory with 100,000 pending gates, next to 1,000', {
    timeout: 600_000,
  }, async () => {
    const keyPrefix = prefix();
    const redis = await connectRedis(REDIS_URL);
    const store = openRedisStore({ redis, keyPrefix });
    const usedMemory = async () =>
      Number(/used_memory:(\d+)/.exec(await admin.info('memory'))?.[1] ?? Number.NaN);
    const pending = () => newPause({ policies: [policy({ expiresInMs: 3_600_000 })] });

    /** Grows the pending set to `size`, then times LATENCY_VOTES deciding votes one by one. */
    const at = async (size: number, already: number) => {
      const before = await usedMemory();
      await createAll(
        store,
        Array.from({ length: size - already }, () => pending()),
      );
      const bytesPerGate = ((await usedMemory()) - before) / (size - already);
      const voters = Array.from({ length: LATENCY_VOTES }, () => pending());
      await createAll(store, voters);
      const latencies: number[] = [];
      for (const input of voters) {
        latencies.push(
          await timed(() =>
            store.pauses.vote({
              pauseId: input.id,
              callId: firstCallId(input),
              voter: 'U1',
              choice: 'approve',
              now: T0 + 1,
            }),
          ),
        );
      }
      return { bytesPerGate, latency: percentiles(latencies) };
    };

    const small = await at(SMALL_PENDING, 0);
    const large = await at(LARGE_PENDING, SMALL_PENDING);
    print(
      `with ${SMALL_PENDING} / ${LARGE_PENDING} pending gates: vote p50 ${ms(small.latency.p50)} / ${ms(large.latency.p50)} ms, ` +
        `p99 ${ms(small.latency.p99)} / ${ms(large.latency.p99)} ms; memory per gate ${Math.round(small.bytesPerGate)} / ${Math.round(large.bytesPerGate)} B`,
    );
    // Flat: the median within 25% (the p99 of 300 one-by-one votes is one slow reply, noise);
    // linear: the bytes per gate within 25% of each other.
    const flat = large.latency.p50 <= 1.25 * small.latency.p50;
    const linear = Math.abs(large.bytesPerGate - small.bytesPerGate) <= 0.25 * small.bytesPerGate;
    budget.push({
      figure: `${LARGE_PENDING.toLocaleString('en')} pending gates: vote latency p50 / p99, memory per gate`,
      measured: `${ms(large.latency.p50)} / ${ms(large.latency.p99)} ms, ${Math.round(large.bytesPerGate)} B`,
      floor: `${ms(small.latency.p50)} / ${ms(small.latency.p99)} ms, ${Math.round(small.bytesPerGate)} B (${SMALL_PENDING.toLocaleString('en')} pending)`,
      budget: 'flat latency, linear memory',
      met: flat && linear,
    });
    // Hundreds of thousands of keys: deleted here in batches (one UNLINK each) rather than one
    // command per key at the end, which would outlast the command timeout.
    const keys = await keysWithPrefix(redis, keyPrefix);
    for (let i = 0; i < keys.length; i += 1_000) await redis.unlink(...keys.slice(i, i + 1_000));
    await redis.quit();
  });
});
