import { performance } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { auditExportLines } from '../src/approvals/audit-export.js';
import { AUDIT_GENESIS, chainLine } from '../src/approvals/store/audit-chain.js';
import { storeKeys } from '../src/approvals/store/keys.js';
import { connectRedis } from '../src/approvals/store/redis-connection.js';
import { openRedisStore } from '../src/approvals/store/redis-store.js';
import type { ApprovalStore } from '../src/approvals/store.js';
import { deleteWithPrefix, REDIS_URL, randomPrefix } from '../test/support/redis.js';

/**
 * The audit export of 100,000 entries from real Redis, next to one of 10,000: heap in use is
 * sampled every 1,000 lines while the export streams, and its peak over the start is printed per
 * entry exported, next to what the export kept: the heap after a full collection at its end, over
 * the same at its start. Flat memory: nothing is kept, however long the export (the store is read
 * 500 entries at a time and each line is handed on); the peak is garbage V8 has not collected
 * yet, as much as it lets pile up, which varies from run to run. Floor: reading the same stream
 * with bare XRANGE pages. Prints figures; asserts nothing.
 */

const LARGE = 100_000;
const SMALL = 10_000;

let admin: Redis;
const prefixes: string[] = [];

function print(line: string): void {
  process.stdout.write(`[bench audit] ${line}\n`);
}

/** `count` entries of realistic chains (20-line pauses), written to the stream as the store does. */
async function fill(prefix: string, count: number): Promise<void> {
  const key = storeKeys(prefix).audit;
  const args = JSON.stringify({ amount: 250, account: 'ACME-0042', memo: 'quarterly settlement' });
  let prev = AUDIT_GENESIS;
  for (let start = 0; start < count; start += 1_000) {
    const pipeline = admin.pipeline();
    for (let index = start; index < Math.min(count, start + 1_000); index += 1) {
      const seq = (index % 20) + 1;
      if (seq === 1) prev = AUDIT_GENESIS;
      const pauseId = `p${Math.floor(index / 20)}`;
      const { line, hash } = chainLine({
        pauseId,
        seq,
        prev,
        at: 1_795_000_000_000 + index,
        event: seq === 1 ? 'created' : 'voted',
        actor: 'U05BOB',
        callId: seq === 1 ? '' : `adk-${pauseId}`,
        detail: 'choice=approve',
        what: `{"app":"payments","tool":"transfer_money","argsSha256":"${'a'.repeat(64)}","args":${args},"rule":"defaults"}`,
      });
      prev = hash;
      // As this version writes an entry of one line: the line alone (redis-audit.ts).
      pipeline.xadd(key, '*', 'line', line);
    }
    await pipeline.exec();
  }
}

interface Run {
  entries: number;
  bytes: number;
  ms: number;
  peakGrowth: number;
  /**
   * The heap in use after a full collection at the end, over the same at the start: what the
   * export kept. The peak also counts garbage no collection has taken yet, as much as V8 lets
   * pile up, so it varies from run to run.
   */
  keptGrowth: number;
}

/** V8's full collection, which the bench needs to tell what is kept from what is not taken yet. */
const collectGarbage = (() => {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
})();

async function exportAll(store: ApprovalStore): Promise<Run> {
  collectGarbage();
  const start = process.memoryUsage().heapUsed;
  let peak = start;
  let entries = 0;
  let bytes = 0;
  const began = performance.now();
  for await (const line of auditExportLines(store, { limit: Number.MAX_SAFE_INTEGER })) {
    entries += 1;
    bytes += line.length + 1;
    if (entries % 1_000 === 0) peak = Math.max(peak, process.memoryUsage().heapUsed);
  }
  const ms = performance.now() - began;
  collectGarbage();
  const keptGrowth = process.memoryUsage().heapUsed - start;
  return { entries: entries - 1, bytes, ms, peakGrowth: peak - start, keptGrowth };
}

async function bareXrange(prefix: string): Promise<number> {
  const key = storeKeys(prefix).audit;
  const began = performance.now();
  let after = '-';
  for (;;) {
    const page = await admin.xrange(key, after, '+', 'COUNT', 500);
    const last = page.at(-1);
    if (last === undefined) break;
    after = `(${last[0]}`;
    if (page.length < 500) break;
  }
  return performance.now() - began;
}

beforeAll(async () => {
  admin = await connectRedis(REDIS_URL);
});
afterAll(async () => {
  for (const prefix of prefixes) await deleteWithPrefix(admin, prefix);
  await admin?.quit();
});

describe('audit export', () => {
  it('100,000 entries stream with flat memory, next to 10,000', { timeout: 300_000 }, async () => {
    const runs: { count: number; run: Run; floorMs: number }[] = [];
    for (const count of [SMALL, LARGE]) {
      const prefix = randomPrefix();
      prefixes.push(prefix);
      await fill(prefix, count);
      const store = openRedisStore({ redis: admin, keyPrefix: prefix });
      await exportAll(store); // warm-up: JIT, script and connection
      const run = await exportAll(store);
      runs.push({ count, run, floorMs: await bareXrange(prefix) });
    }
    for (const { count, run, floorMs } of runs) {
      print(
        `${count.toLocaleString('en')} entries: ${(run.bytes / 1e6).toFixed(1)} MB in ${Math.round(run.ms)} ms ` +
          `(${Math.round((run.entries * 1000) / run.ms).toLocaleString('en')} entries/s; bare XRANGE pages ${Math.round(floorMs)} ms); ` +
          `heap peak over start ${(run.peakGrowth / 1e6).toFixed(1)} MB = ${Math.round(run.peakGrowth / run.entries)} B per entry exported; ` +
          `kept after a full collection ${(run.keptGrowth / 1e6).toFixed(2)} MB`,
      );
    }
    const [small, large] = runs;
    if (small && large) {
      print(
        `flat memory: kept after a full collection ${(large.run.keptGrowth / 1e6).toFixed(2)} MB for ${LARGE.toLocaleString('en')} entries vs ` +
          `${(small.run.keptGrowth / 1e6).toFixed(2)} MB for ${SMALL.toLocaleString('en')}; the peak, garbage not collected yet included, ` +
          `${(large.run.peakGrowth / 1e6).toFixed(1)} vs ${(small.run.peakGrowth / 1e6).toFixed(1)} MB`,
      );
    }
  });
});
