import { availableParallelism } from 'node:os';
import { performance } from 'node:perf_hooks';
import { CHANNELS, PEOPLE, type SandboxMessage } from '@adk-slack-approvals/slack-sandbox';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { openRedisStore } from '../src/approvals/store/redis-store.js';
import type { ApprovalStore } from '../src/approvals/store.js';
import { newPause, policy } from '../test/approvals/store/fixtures.js';
import { waitForPauseCard } from '../test/support/pause-card.js';
import { keysWithPrefix } from '../test/support/redis.js';
import { type ApiApp, startApiApp } from './support/api-app.js';
import { type BudgetRow, budgetTable } from './support/budget.js';
import { ms, type Spread, spread } from './support/figures.js';
import { postApproveClick } from './support/signed-approve.js';

/**
 * Signed click → ack latency of the app (a child process, as a replica runs it) and Redis memory
 * per pending gate, with 1,000 and then 100,000 pending gates in its Redis. The pending gates are
 * recorded through the store's own API (what the app writes, cards' ts included, so the app's
 * sweeper leaves them be); the clicked ones are posted through the approvals API, so that they
 * have real cards, and clicked one at a time in random order. `BENCH_SKIP_LARGE=1` skips it.
 * Prints figures; asserts nothing.
 */

const SMALL = 1_000;
const LARGE = 100_000;
const CLICKS = 200;
const FILL_CONCURRENCY = 200;
const OPS = CHANNELS.ops.id;
const skip = process.env.BENCH_SKIP_LARGE === '1';

let stack: ApiApp;
const budget: BudgetRow[] = [];

function print(line: string): void {
  process.stdout.write(`[bench pending-scale] ${line}\n`);
}

beforeAll(async () => {
  if (skip) return;
  stack = await startApiApp();
  print(
    `note: wall-clock figures from a shared ${availableParallelism()}-core machine; used_memory is Redis-wide, and other work on this Redis moves it too`,
  );
}, 120_000);

afterAll(async () => {
  if (skip) return;
  print('');
  print('Budget (issues 14 and 35), this run:');
  for (const line of budgetTable(budget)) print(line);
  if (stack === undefined) return;
  // Hundreds of thousands of keys: unlinked in batches, not one command each.
  const keys = await keysWithPrefix(stack.redis, stack.keyPrefix);
  for (let i = 0; i < keys.length; i += 1_000)
    await stack.redis.unlink(...keys.slice(i, i + 1_000));
  await stack.stop();
}, 300_000);

async function usedMemory(): Promise<number> {
  const info = await stack.redis.info('memory');
  return Number(/used_memory:(\d+)/.exec(info)?.[1] ?? Number.NaN);
}

/** Records `count` pending one-gate pauses with the store's API, as the app records them. */
async function fill(store: ApprovalStore, count: number): Promise<void> {
  let next = 0;
  const now = Date.now();
  await Promise.all(
    Array.from({ length: FILL_CONCURRENCY }, async () => {
      while (next < count) {
        next += 1;
        const input = newPause({
          now,
          channelId: OPS,
          policies: [
            policy({ approvers: [{ kind: 'user', id: PEOPLE.bob.id }], expiresInMs: 86_400_000 }),
          ],
        });
        await store.pauses.createPause(input);
        await store.pauses.setCardTs(
          input.id,
          `${Math.floor(now / 1000)}.${String(next).padStart(6, '0')}`,
          now,
        );
      }
    }),
  );
}

/** Posts `CLICKS` pauses through the API, then clicks Approve on each, in random order, one at a time. */
async function clickLatencies(): Promise<Spread> {
  const cards: SandboxMessage[] = [];
  for (let i = 0; i < CLICKS; i += 1) {
    const created = await stack.createPause(OPS);
    if (created.id === undefined) throw new Error(`create answered ${created.status}`);
    cards.push(await waitForPauseCard(stack.sandbox, OPS, created.id));
  }
  cards.sort(() => Math.random() - 0.5);
  const latencies: number[] = [];
  for (const card of cards) {
    const started = performance.now();
    const response = await postApproveClick({
      appUrl: stack.base,
      card,
      voter: PEOPLE.bob,
      sandboxUrl: stack.sandbox.url,
      signingSecret: stack.signingSecret,
    });
    latencies.push(performance.now() - started);
    if (!response.ok) throw new Error(`click answered ${response.status}`);
  }
  return spread(latencies);
}

describe('pending gates at scale', () => {
  it.skipIf(skip)(
    `click → ack latency and memory per gate with ${LARGE.toLocaleString('en')} pending gates, next to ${SMALL.toLocaleString('en')}`,
    { timeout: 900_000 },
    async () => {
      const store = openRedisStore({ redis: stack.redis, keyPrefix: stack.keyPrefix });
      const measure = async (size: number, already: number) => {
        const before = await usedMemory();
        const started = performance.now();
        await fill(store, size - already);
        const fillSeconds = (performance.now() - started) / 1_000;
        const bytesPerGate = ((await usedMemory()) - before) / (size - already);
        const latency = await clickLatencies();
        // What a /metrics scrape costs the store: the pending-gates gauge counts every live pause.
        // The first count reads each new pause's record for its app; the next reads its count only.
        const countTimes: number[] = [];
        let counted = new Map<string, number>();
        for (let round = 0; round < 2; round += 1) {
          const countStarted = performance.now();
          counted = await store.pending.countPendingByApp();
          countTimes.push(performance.now() - countStarted);
        }
        const total = [...counted.values()].reduce((sum, n) => sum + n, 0);
        print(
          `${size.toLocaleString('en')} pending (${(size - already).toLocaleString('en')} recorded in ${fillSeconds.toFixed(1)} s): click → ack p50 ${ms(latency.p50)} ms, p99 ${ms(latency.p99)} ms, max ${ms(latency.max)} ms over ${latency.count} clicks; ${Math.round(bytesPerGate)} B per gate (used_memory delta); counting pending gates (${total.toLocaleString('en')}) took ${countTimes.map(ms).join(' ms, then ')} ms`,
        );
        return { latency, bytesPerGate };
      };
      const small = await measure(SMALL, 0);
      const large = await measure(LARGE, SMALL);
      const p50Ratio = large.latency.p50 / small.latency.p50;
      const p99Ratio = large.latency.p99 / small.latency.p99;
      const memoryRatio = large.bytesPerGate / small.bytesPerGate;
      print(
        `ratios ${LARGE.toLocaleString('en')} ÷ ${SMALL.toLocaleString('en')}: click p50 ${p50Ratio.toFixed(2)}×, p99 ${p99Ratio.toFixed(2)}×, bytes per gate ${memoryRatio.toFixed(2)}×`,
      );
      // Flat: the median within 25 % (a p99 of 200 one-by-one clicks is one or two slow replies on
      // a shared machine); linear: bytes per gate within 25 % of each other.
      budget.push({
        figure: `${LARGE.toLocaleString('en')} pending gates: click → ack p50 / p99, bytes per gate`,
        measured: `${ms(large.latency.p50)} / ${ms(large.latency.p99)} ms, ${Math.round(large.bytesPerGate)} B`,
        floor: `${ms(small.latency.p50)} / ${ms(small.latency.p99)} ms, ${Math.round(small.bytesPerGate)} B (${SMALL.toLocaleString('en')} pending)`,
        budget: 'flat latency, linear memory',
        met: p50Ratio <= 1.25 && Math.abs(memoryRatio - 1) <= 0.25,
      });
    },
  );
});
