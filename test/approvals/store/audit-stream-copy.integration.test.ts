import { describe, expect, it } from 'vitest';
import { storeKeys } from '../../../src/approvals/store/keys.js';
import { readAuditStream, type StreamEntry } from '../../../src/approvals/store/redis-audit.js';
import {
  AuditStreamCopy,
  COPY_RETRY_DELAYS_MS,
} from '../../../src/approvals/store/redis-audit-copy.js';
import type { RedisClient } from '../../../src/approvals/store/redis-connection.js';
import { chain } from '../../support/audit-lines.js';
import { redisStoreForEachTest } from '../../support/redis.js';

/**
 * The store-wide audit stream is the one place an audit line is kept, so a copy into it that
 * fails is tried again, without writing an entry twice when the failure came after Redis wrote
 * it, and a copy that keeps failing says which pauses lost lines.
 */
let keyPrefix: string;
let redis: RedisClient;

redisStoreForEachTest((opened) => {
  ({ keyPrefix, redis } = opened);
});

function entriesOf(lines: readonly string[]): StreamEntry[] {
  return lines.map((line) => {
    const fields = JSON.parse(line) as { pauseId: string; event: string; actor: string };
    return {
      pauseId: fields.pauseId,
      entry: { event: fields.event, actor: fields.actor, callId: '', detail: '', line },
      at: '1000',
    };
  });
}

function collectingLog() {
  const errors: { message: string; fields: Record<string, unknown> }[] = [];
  return {
    errors,
    log: {
      error: (message: string, fields: Record<string, unknown> = {}) => {
        errors.push({ message, fields });
      },
    },
  };
}

/**
 * A copy into a stream whose key holds another type, so that every try fails until `beforeNext`
 * (run in each wait between tries) mends it; the waits and the errors logged are recorded.
 */
async function copyIntoBrokenStream(beforeNext: (key: string) => Promise<unknown>) {
  const key = storeKeys(keyPrefix).audit;
  await redis.set(key, 'not a stream');
  const waits: number[] = [];
  const { errors, log } = collectingLog();
  const copy = new AuditStreamCopy(redis, key, log, async (ms) => {
    waits.push(ms);
    await beforeNext(key);
  });
  return { key, copy, waits, errors };
}

describe('copying audit lines into the store-wide stream', () => {
  it('tries again after a failure, and the lines get there once', async () => {
    // The first try fails; the stream's key is cleared before the next.
    const { key, copy, waits, errors } = await copyIntoBrokenStream((broken) => redis.del(broken));
    const lines = chain('P1', 3);
    await copy.copy(entriesOf(lines));
    expect(waits).toEqual(COPY_RETRY_DELAYS_MS.slice(0, 1));
    expect((await readAuditStream(redis, key, 100)).map((entry) => entry.line)).toEqual(lines);
    expect(errors).toEqual([]);
  });

  it('does not write an entry twice when the answer of a try that wrote it was lost', async () => {
    const key = storeKeys(keyPrefix).audit;
    const call = redis.call.bind(redis) as (...args: unknown[]) => Promise<unknown>;
    let lostAnswers = 0;
    // The first XADD is written, then its answer is lost, as when the connection closes.
    redis.call = (async (...args: unknown[]) => {
      const answer = await call(...args);
      if (args[0] === 'XADD' && lostAnswers === 0) {
        lostAnswers += 1;
        throw new Error('Connection is closed.');
      }
      return answer;
    }) as typeof redis.call;
    try {
      const copy = new AuditStreamCopy(redis, key, undefined, async () => {});
      const lines = chain('P2', 2);
      await copy.copy(entriesOf(lines));
      expect(lostAnswers).toBe(1);
      expect(await redis.xlen(key)).toBe(1);
      expect((await readAuditStream(redis, key, 100)).map((entry) => entry.line)).toEqual(lines);
    } finally {
      redis.call = call as typeof redis.call;
    }
  });

  it('gives up after its tries: says at error level which pauses lost how many lines, and throws', async () => {
    const { copy, waits, errors } = await copyIntoBrokenStream(async () => {});
    const lines = [...chain('P3', 2), ...chain('P4', 1)];
    await expect(copy.copy(entriesOf(lines))).rejects.toThrow('WRONGTYPE');
    expect(waits).toEqual(COPY_RETRY_DELAYS_MS);
    expect(errors).toEqual([
      {
        message: 'audit lines were not copied to the store-wide audit: they are lost',
        fields: expect.objectContaining({ lines: 3, pauses: 'P3:2,P4:1' }),
      },
    ]);
  });
});
