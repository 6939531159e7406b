import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LUA_SHA256 } from '../../../src/approvals/store/scripts/sha256.lua.js';
import { connectTestRedis } from '../../support/redis.js';

type TestRedis = Awaited<ReturnType<typeof connectTestRedis>>;
let redis: TestRedis;

beforeAll(async () => {
  redis = await connectTestRedis();
});
afterAll(async () => {
  await redis?.quit();
});

/** The Lua SHA-256 as Redis runs it, next to node:crypto's. */
async function luaSha256(text: Buffer): Promise<string> {
  return String(await redis.eval(`${LUA_SHA256}\nreturn sha256hex(ARGV[1])`, 0, text));
}

const node = (text: Buffer) => createHash('sha256').update(text).digest('hex');

describe('SHA-256 in Redis Lua (the audit chain)', () => {
  it('agrees with node:crypto on the standard vectors and on every padding length', async () => {
    expect(await luaSha256(Buffer.from(''))).toBe(
      'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
    );
    expect(await luaSha256(Buffer.from('abc'))).toBe(
      'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    );
    // 0 to 130 bytes: one, two and three blocks, across the 55/56-byte padding edge.
    for (let length = 0; length <= 130; length += 1) {
      const text = randomBytes(length);
      expect(await luaSha256(text), `length ${length}`).toBe(node(text));
    }
  });

  it('agrees on UTF-8 and on an entry-sized text', async () => {
    const entry = Buffer.from(
      JSON.stringify({
        actor: 'U0BOB',
        event: 'approved',
        reason: 'ok — déjà vu ✓',
        n: 'x'.repeat(3000),
      }),
    );
    expect(await luaSha256(entry)).toBe(node(entry));
  });
});
