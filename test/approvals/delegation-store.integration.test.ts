import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Delegation,
  type DelegationStore,
  MemoryDelegationStore,
} from '../../src/approvals/delegations.js';
import type { RedisClient } from '../../src/approvals/store/redis-connection.js';
import { RedisDelegationStore } from '../../src/approvals/store/redis-delegations.js';
import { connectTestRedis, deleteWithPrefix, randomPrefix } from '../support/redis.js';

/**
 * The hand-over stores' contract, on this process's memory and on real Redis (a Redis Cluster
 * under `npm run test:cluster`): one hand-over per delegator, ended ones left out, and an audit
 * entry for each set and end.
 */
const NOW = 1_800_000_000_000;
const HOUR = 3_600_000;

const handOver = (delegate: string): Delegation => ({
  delegator: 'UBOB',
  delegate,
  startsAt: NOW,
  endsAt: NOW + HOUR,
  setAt: NOW,
});

let redis: RedisClient;
const prefix = randomPrefix();
beforeAll(async () => {
  redis = await connectTestRedis();
});
afterAll(async () => {
  await deleteWithPrefix(redis, prefix);
  await redis.quit();
});

const stores: [string, () => DelegationStore][] = [
  ['memory', () => new MemoryDelegationStore()],
  ['Redis', () => new RedisDelegationStore(redis, `${prefix}${randomUUID()}:`)],
];

describe.each(stores)('the %s hand-over store', (_name, open) => {
  it('keeps one hand-over per delegator, leaves ended ones out, and audits set and ended', async () => {
    const store = open();
    await store.set(handOver('UCAROL'));
    await store.set(handOver('UDAVE'));
    expect((await store.list(NOW)).map((d) => d.delegate)).toEqual(['UDAVE']);
    expect(await store.list(NOW + HOUR)).toEqual([]);
    expect(await store.get('UBOB', NOW + HOUR)).toBeUndefined();
    expect((await store.end('UBOB', NOW + 1))?.delegate).toBe('UDAVE');
    expect(await store.get('UBOB', NOW + 1)).toBeUndefined();
    expect(await store.end('UBOB', NOW + 2)).toBeUndefined();
    expect((await store.history()).map((e) => [e.event, e.actor, e.delegate])).toEqual([
      ['delegation_set', 'UBOB', 'UCAROL'],
      ['delegation_set', 'UBOB', 'UDAVE'],
      ['delegation_ended', 'UBOB', 'UDAVE'],
    ]);
  });
});
