import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  type Grant,
  type GrantableCall,
  type GrantStore,
  MemoryGrantStore,
} from '../../src/approvals/grants.js';
import { RedisGrantStore } from '../../src/approvals/store/redis-grants.js';
import { keysWithPrefix, testRedisForFile } from '../support/redis.js';

/**
 * The grant stores' contract, on this process's memory and on real Redis (a Redis Cluster under
 * `npm run test:cluster`): which calls a grant covers, uses counted once per call, revocation
 * once, lists by person, and expiry.
 */
const NOW = 1_800_000_000_000;
const HOUR = 3_600_000;

function grant(overrides: Partial<Grant> = {}): Grant {
  return {
    id: `gr_${Math.random().toString(16).slice(2, 14).padEnd(12, '0')}`,
    app: 'payments',
    tool: 'transfer_money',
    requester: 'U0ALICE',
    origin: 'api:kA',
    rule: 'transfers',
    scope: 'session',
    sessionKey: 'U0ALICE/s1',
    granter: 'U0BOB',
    pauseId: 'p1',
    callId: 'c1',
    createdAt: NOW,
    expiresAt: NOW + HOUR,
    uses: 0,
    ...overrides,
  };
}

const call = (overrides: Partial<GrantableCall> = {}): GrantableCall => ({
  origin: 'api:kA',
  app: 'payments',
  tool: 'transfer_money',
  requester: 'U0ALICE',
  rule: 'transfers',
  offers: ['session', 3_600_000, 'exactArgs'],
  sessionKey: 'U0ALICE/s1',
  argsDigest: 'd1',
  ...overrides,
});

const redis = testRedisForFile();

const stores: [string, () => GrantStore][] = [
  ['memory', () => new MemoryGrantStore()],
  ['Redis', () => new RedisGrantStore(redis.client(), `${redis.prefix}${randomUUID()}:`)],
];

describe.each(stores)('the %s grant store', (_name, open) => {
  it('a session grant covers calls of its session only, and counts each use', async () => {
    const store = open();
    const given = grant();
    await store.create(given);
    expect(await store.use(call({ sessionKey: 'U0ALICE/s2' }), NOW + 1)).toBeUndefined();
    expect(await store.use(call(), NOW + 1)).toMatchObject({ id: given.id, uses: 1 });
    expect(await store.use(call(), NOW + 2)).toMatchObject({ id: given.id, uses: 2 });
    expect(await store.get(given.id, NOW + 3)).toMatchObject({ uses: 2 });
  });

  it('a grant covers calls of the origin it was given on only: not another key, nor Slack', async () => {
    const store = open();
    const given = grant({ scope: 'time', durationMs: HOUR });
    await store.create(given);
    expect(await store.use(call({ origin: 'api:kB' }), NOW + 1)).toBeUndefined();
    expect(await store.use(call({ origin: 'slack' }), NOW + 1)).toBeUndefined();
    expect(await store.use(call(), NOW + 1)).toMatchObject({ id: given.id, uses: 1 });
  });

  it('a grant given before origins were recorded covers nothing', async () => {
    const store = open();
    const { origin: _origin, ...legacy } = grant({ scope: 'time', durationMs: HOUR });
    await store.create(legacy);
    expect(await store.use(call(), NOW + 1)).toBeUndefined();
    expect(await store.use(call({ origin: 'slack' }), NOW + 1)).toBeUndefined();
  });

  it('covers nothing of another app, tool, requester or rule, nor a scope the rule no longer offers', async () => {
    const store = open();
    await store.create(grant());
    for (const other of [
      call({ app: 'billing' }),
      call({ tool: 'pay_invoice' }),
      call({ requester: 'U0CAROL' }),
      call({ rule: 'large-transfers' }),
      call({ offers: ['exactArgs'] }),
    ]) {
      expect(await store.use(other, NOW + 1)).toBeUndefined();
    }
  });

  it('an exact-arguments grant covers the same arguments in any session; a timed one any call until it ends', async () => {
    const store = open();
    const exact = grant({ scope: 'exactArgs', sessionKey: undefined, argsDigest: 'd1' });
    delete exact.sessionKey;
    await store.create(exact);
    expect(await store.use(call({ argsDigest: 'd2', offers: ['exactArgs'] }), NOW)).toBeUndefined();
    expect(
      await store.use(call({ sessionKey: 'U0ALICE/s9', offers: ['exactArgs'] }), NOW),
    ).toMatchObject({ id: exact.id });

    const timed = grant({ scope: 'time', durationMs: HOUR });
    delete timed.sessionKey;
    await store.create(timed);
    const anyCall = call({ sessionKey: 'U0ALICE/s7', argsDigest: 'd7', offers: [HOUR] });
    expect(await store.use(anyCall, NOW + HOUR - 1)).toMatchObject({ id: timed.id });
    expect(await store.use(anyCall, NOW + HOUR)).toBeUndefined();
  });

  it('an expired grant is neither used, read nor listed', async () => {
    const store = open();
    const given = grant({ expiresAt: NOW + 10 });
    await store.create(given);
    expect(await store.use(call(), NOW + 10)).toBeUndefined();
    expect(await store.get(given.id, NOW + 10)).toBeUndefined();
    expect(await store.list({}, NOW + 10)).toEqual([]);
  });

  it('lists the grants a person gave or is covered by, soonest to expire first', async () => {
    const store = open();
    const late = grant({ expiresAt: NOW + 2 * HOUR });
    const soon = grant({ requester: 'U0DAVE', expiresAt: NOW + HOUR });
    const others = grant({ requester: 'U0EVE', granter: 'U0CAROL' });
    for (const g of [late, soon, others]) await store.create(g);
    expect((await store.list({ person: 'U0BOB' }, NOW)).map((g) => g.id)).toEqual([
      soon.id,
      late.id,
    ]);
    expect((await store.list({ person: 'U0ALICE' }, NOW)).map((g) => g.id)).toEqual([late.id]);
    expect((await store.list({}, NOW)).map((g) => g.id).sort()).toEqual(
      [late.id, soon.id, others.id].sort(),
    );
  });

  it('looks without counting, and uses only the grant it is told to', async () => {
    const store = open();
    const given = grant();
    await store.create(given);
    expect(await store.use(call(), NOW, { count: false })).toMatchObject({ id: given.id, uses: 0 });
    expect(await store.use(call(), NOW, { only: 'gr_ffffffffffff' })).toBeUndefined();
    expect(await store.use(call(), NOW, { only: given.id })).toMatchObject({ uses: 1 });
    expect(await store.get(given.id, NOW)).toMatchObject({ uses: 1 });
  });

  it('revokes once: the grant covers nothing after, and a second revoke finds nothing', async () => {
    const store = open();
    const given = grant();
    await store.create(given);
    await store.use(call(), NOW);
    expect(await store.revoke(given.id, NOW)).toMatchObject({ id: given.id, uses: 1 });
    expect(await store.revoke(given.id, NOW)).toBeUndefined();
    expect(await store.use(call(), NOW)).toBeUndefined();
    expect(await store.list({ person: 'U0BOB' }, NOW)).toEqual([]);
  });
});

describe('the Redis grant store', () => {
  it('counts every use exactly once across replicas using one grant at once', async () => {
    const shared = `${redis.prefix}race:`;
    const replicas = [
      new RedisGrantStore(redis.client(), shared),
      new RedisGrantStore(redis.client(), shared),
    ];
    const given = grant();
    await replicas[0]?.create(given);
    const used = await Promise.all(
      Array.from({ length: 40 }, (_, i) => replicas[i % 2]?.use(call(), NOW)),
    );
    expect(new Set(used.map((g) => g?.uses)).size).toBe(40);
    expect(await replicas[1]?.get(given.id, NOW)).toMatchObject({ uses: 40 });
  });

  it('keeps every grant key in one hash slot, and a grant key expires with its grant', async () => {
    const own = `${redis.prefix}slot:`;
    const store = new RedisGrantStore(redis.client(), own);
    const given = grant({ expiresAt: Date.now() + 60_000 });
    await store.create(given);
    const keys = await keysWithPrefix(redis.client(), own);
    expect(keys.length).toBeGreaterThan(0);
    expect(keys.every((key) => key.startsWith(`${own}{grants}:`))).toBe(true);
    const ttl = await redis.client().pttl(`${own}{grants}:grant:${given.id}`);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(60_000);
  });
});
