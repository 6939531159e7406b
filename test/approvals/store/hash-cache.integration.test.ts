import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RedisClient } from '../../../src/approvals/store/redis-connection.js';
import { LUA_HASH_CACHE } from '../../../src/approvals/store/scripts/hash-cache.lua.js';
import { connectTestRedis, deleteWithPrefix, randomPrefix } from '../../support/redis.js';

/**
 * The scripts' hash cache (hash-cache.lua.ts) on real Redis: a script reads its own deferred
 * writes, Redis sees none of them until `flush_hashes`, and then sees exactly what the same
 * commands sent one by one would have left.
 */
let keyPrefix: string;
let redis: RedisClient;

beforeEach(async () => {
  keyPrefix = randomPrefix();
  redis = await connectTestRedis();
});
afterEach(async () => {
  await deleteWithPrefix(redis, keyPrefix);
  redis.disconnect();
});

/** Runs `body` after the cache's functions, on KEYS[1]; returns what the body returns. */
function run(body: string): Promise<unknown> {
  return redis.eval(`${LUA_HASH_CACHE}\n${body}`, 1, `${keyPrefix}{h}:hash`);
}

describe('the scripts’ hash cache', () => {
  it('defers writes to the flush, and reads them back before it', async () => {
    await redis.hset(`${keyPrefix}{h}:hash`, 'kept', 'a', 'gone', 'b', 'count', '41');
    const seen = await run(`
      hset(KEYS[1], 'new', 'x', 'kept', 'c')
      hdel(KEYS[1], 'gone')
      local count = hincrby(KEYS[1], 'count', 1)
      local before = redis.call('HMGET', KEYS[1], 'new', 'kept', 'gone', 'count')
      local cached = hmget(KEYS[1], {'new', 'kept', 'gone', 'count'})
      flush_hashes()
      local after = redis.call('HMGET', KEYS[1], 'new', 'kept', 'gone', 'count')
      return {before, cached, after, count}
    `);
    expect(seen).toEqual([
      // Redis saw nothing of the writes before the flush.
      [null, 'a', 'b', '41'],
      // The script read its own writes (a deleted field reads as missing).
      ['x', 'c', null, '42'],
      ['x', 'c', null, '42'],
      42,
    ]);
  });

  it('leaves what the same commands sent one by one leave', async () => {
    const cached = `${keyPrefix}{h}:hash`;
    const raw = `${keyPrefix}{h}:raw`;
    for (const key of [cached, raw]) await redis.hset(key, 'a', '1', 'b', '2', 'n', '-3');
    const steps = [
      ['HSET', "'a', '10'"],
      ['HSET', "'c', 3, 'd', 1795857770549"],
      ['HINCRBY', "'a', 5"],
      ['HINCRBY', "'n', -1"],
      ['HINCRBY', "'fresh', 2"],
      ['HDEL', "'b', 'missing'"],
      ['HSETNX', "'c', 'no'"],
      ['HSETNX', "'e', 'yes'"],
    ] as const;
    await redis.eval(
      `${LUA_HASH_CACHE}\n${steps.map(([name, args]) => `${name.toLowerCase()}(KEYS[1], ${args})`).join('\n')}\nflush_hashes()`,
      1,
      cached,
    );
    await redis.eval(
      steps.map(([name, args]) => `redis.call('${name}', KEYS[1], ${args})`).join('\n'),
      1,
      raw,
    );
    const expected = await redis.hgetall(raw);
    expect(expected).toEqual({
      a: '15',
      c: '3',
      d: '1795857770549',
      n: '-4',
      fresh: '2',
      e: 'yes',
    });
    expect(await redis.hgetall(cached)).toEqual(expected);
  });

  it('reads a field once, then from what it knows; HSETNX and a re-read of a written field see the write', async () => {
    await redis.hset(`${keyPrefix}{h}:hash`, 'voter', 'approve');
    const seen = await run(`
      local first = hsetnx(KEYS[1], 'voter', 'reject')
      local second = hsetnx(KEYS[1], 'other', 'reject')
      redis.call('HSET', KEYS[1], 'voter', 'changed behind the cache')
      local voter = hget(KEYS[1], 'voter')
      flush_hashes()
      return {first, second, voter, redis.call('HGET', KEYS[1], 'other')}
    `);
    // The raw write behind the cache is not seen: why the scripts must never mix the two.
    expect(seen).toEqual([0, 1, 'approve', 'reject']);
  });
});
