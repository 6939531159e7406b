import { performance } from 'node:perf_hooks';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { connectRedis } from '../src/approvals/store/redis-connection.js';
import { RedisConfirmationStore } from '../src/approvals/store/redis-store.js';
import type { NewPause } from '../src/approvals/store.js';
import { firstCallId, newPause, policy, T0 } from '../test/approvals/store/fixtures.js';
import {
  deleteWithPrefix,
  keysWithPrefix,
  REDIS_URL,
  randomPrefix,
} from '../test/support/redis.js';

/**
 * The Redis confirmation store against the Redis at 127.0.0.1:6379: vote throughput next to a
 * bare SET NX + HSET loop, memory per pending gate, and the time to sweep 10,000 due gates.
 * Prints figures; asserts nothing.
 */

const VOTES_ONE_CLIENT = 2_000;
const VOTES_FIFTY_CLIENTS = 5_000;
const MEMORY_SAMPLE = 1_000;
const SWEEP_GATES = 10_000;

let admin: Redis;
const prefixes: string[] = [];

function prefix(): string {
  const value = randomPrefix();
  prefixes.push(value);
  return value;
}

function print(line: string): void {
  process.stdout.write(`[bench store] ${line}\n`);
}

function rate(count: number, ms: number): number {
  return Math.round((count * 1000) / ms);
}

async function timed(work: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await work();
  return performance.now() - start;
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

async function createAll(store: RedisConfirmationStore, inputs: NewPause[]): Promise<void> {
  await spread(inputs.length, 100, (i) => {
    const input = inputs[i];
    return input ? store.createPause(input) : Promise.resolve();
  });
}

beforeAll(async () => {
  admin = await connectRedis(REDIS_URL);
  const info = await admin.info('server');
  const version = /redis_version:(\S+)/.exec(info)?.[1] ?? 'unknown';
  print(`Redis ${version}, Node ${process.version}`);
});

afterAll(async () => {
  for (const keyPrefix of prefixes) await deleteWithPrefix(admin, keyPrefix);
  admin.disconnect();
});

describe('Redis confirmation store', () => {
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
      const stores = connections.map((redis) => new RedisConfirmationStore({ redis, keyPrefix }));
      const creator = stores[0];
      if (!creator) throw new Error('no store');
      const inputs = Array.from({ length: votes }, () =>
        newPause({ policies: [policy({ expiresInMs: 3_600_000 })] }),
      );
      await createAll(creator, inputs);

      const storeMs = await timed(() =>
        spread(votes, clients, (i, worker) => {
          const input = inputs[i];
          const store = stores[worker];
          if (!input || !store) return Promise.resolve();
          return store.vote({
            pauseId: input.id,
            callId: firstCallId(input),
            voter: 'U1',
            choice: 'approve',
            now: T0 + 1,
          });
        }),
      );
      const bareMs = await timed(() =>
        spread(votes, clients, async (i, worker) => {
          const redis = connections[worker];
          if (!redis) return;
          await redis.set(`${keyPrefix}bare:claim:${i}`, 'U1', 'NX');
          await redis.hset(`${keyPrefix}bare:gate:${i}`, 'state', 'approved', 'by', 'U1');
        }),
      );
      const storeRate = rate(votes, storeMs);
      const bareRate = rate(votes, bareMs);
      print(
        `votes/s, ${clients} client(s): store ${storeRate}, bare SET NX + HSET ${bareRate}, ` +
          `ratio ${(storeRate / bareRate).toFixed(2)} (${votes} deciding votes, quorum 1)`,
      );
      await Promise.all(connections.map((redis) => redis.quit()));
    },
  );

  it.each([
    ['typical args', undefined],
    ['10 kB args', { memo: 'x'.repeat(10_240) }],
  ])('memory per pending gate, %s', async (label, args) => {
    const keyPrefix = prefix();
    const redis = await connectRedis(REDIS_URL);
    const store = new RedisConfirmationStore({ redis, keyPrefix });
    const inputs = Array.from({ length: MEMORY_SAMPLE }, () =>
      newPause({ policies: [policy({ expiresInMs: 3_600_000 })], ...(args ? { args } : {}) }),
    );
    await createAll(store, inputs);
    const byKind = new Map<string, number>();
    let total = 0;
    for (const key of await keysWithPrefix(redis, keyPrefix)) {
      const bytes = (await redis.memory('USAGE', key, 'SAMPLES', 0)) ?? 0;
      const kind = key
        .slice(keyPrefix.length)
        .replace(/^\{[^}]*\}:/, '')
        .replace(/:.*$/, '');
      byKind.set(kind, (byKind.get(kind) ?? 0) + bytes);
      total += bytes;
    }
    const parts = [...byKind].map(
      ([kind, bytes]) => `${kind} ${Math.round(bytes / MEMORY_SAMPLE)}`,
    );
    print(
      `memory per pending gate, ${label}: ${Math.round(total / MEMORY_SAMPLE)} bytes ` +
        `(${parts.join(', ')}; indexes amortised over ${MEMORY_SAMPLE} one-gate pauses)`,
    );
    await redis.quit();
  });

  it('time to sweep 10,000 due gates', async () => {
    const keyPrefix = prefix();
    const redis = await connectRedis(REDIS_URL);
    const creator = new RedisConfirmationStore({ redis, keyPrefix });
    const inputs = Array.from({ length: SWEEP_GATES }, () =>
      newPause({ policies: [policy({ expiresInMs: 1_000 })] }),
    );
    await createAll(creator, inputs);
    // A replica that did not create them: its call-id cache is cold, as after a restart.
    const sweeper = new RedisConfirmationStore({
      redis: await connectRedis(REDIS_URL),
      keyPrefix,
      ownsClient: true,
    });
    let expired = 0;
    const ms = await timed(async () => {
      for (;;) {
        const batch = await sweeper.expireDue(T0 + 1_000, 1_000);
        expired += batch.length;
        if (batch.length === 0) break;
      }
    });
    print(
      `sweep ${expired} due gates: ${Math.round(ms)} ms (${rate(expired, ms)} gates/s, batches of 1,000)`,
    );
    await sweeper.close();
    await redis.quit();
  });
});
