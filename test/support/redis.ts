import { randomUUID } from 'node:crypto';
import { Cluster, type Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import {
  type ConnectOptions,
  connectRedis,
  connectRedisCluster,
  type RedisClient,
} from '../../src/approvals/store/redis-connection.js';
import { openRedisStore } from '../../src/approvals/store/redis-store.js';
import type { ApprovalStore } from '../../src/approvals/store.js';

/**
 * The Redis the tests use: the server at 127.0.0.1:6379, or the Redis Cluster named by
 * `REDIS_CLUSTER_NODES=host:port,host:port,...` (set by `npm run test:cluster`).
 */
const clusterNodes = process.env.REDIS_CLUSTER_NODES?.split(',').filter((node) => node !== '');

export const REDIS_URL = 'redis://127.0.0.1:6379';
/** The app's Redis settings for the same server or cluster the tests read. */
export const APP_REDIS_ENV: Record<string, string> =
  clusterNodes && clusterNodes.length > 0
    ? { REDIS_CLUSTER_NODES: clusterNodes.join(',') }
    : { REDIS_URL };
export const usingCluster = clusterNodes !== undefined && clusterNodes.length > 0;

export function connectTestRedis(options: ConnectOptions = {}): Promise<RedisClient> {
  return clusterNodes && clusterNodes.length > 0
    ? connectRedisCluster(clusterNodes, options)
    : connectRedis(REDIS_URL, options);
}

/** A fresh key prefix, so that tests never see each other's keys. */
export function randomPrefix(): string {
  return `test:${randomUUID()}:`;
}

/** The standalone servers behind a client: the masters of a cluster, or the client itself. */
export function servers(client: RedisClient): Redis[] {
  return client instanceof Cluster ? client.nodes('master') : [client];
}

/** Every key under the prefix, on every master. */
export async function keysWithPrefix(client: RedisClient, prefix: string): Promise<string[]> {
  const found: string[] = [];
  for (const server of servers(client)) {
    let cursor = '0';
    do {
      const [next, keys] = await server.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      found.push(...keys);
      cursor = next;
    } while (cursor !== '0');
  }
  return found;
}

/** Deletes every key under the prefix (one key per command: keys live in different slots). */
export async function deleteWithPrefix(client: RedisClient, prefix: string): Promise<void> {
  const keys = await keysWithPrefix(client, prefix);
  await Promise.all(keys.map((key) => client.unlink(key)));
}

/**
 * One connection for a test file, opened before its tests and closed after them, and a key
 * prefix whose keys are deleted then.
 */
export function testRedisForFile(): { client(): RedisClient; prefix: string } {
  let client: RedisClient | undefined;
  const prefix = randomPrefix();
  beforeAll(async () => {
    client = await connectTestRedis();
  });
  afterAll(async () => {
    if (client === undefined) return;
    await deleteWithPrefix(client, prefix);
    await client.quit();
  });
  return {
    prefix,
    client: () => {
      if (client === undefined) throw new Error('the test Redis is not connected yet');
      return client;
    },
  };
}

/** The Redis store a test runs on: its client, its key prefix and the store over them. */
export interface TestRedisStore {
  keyPrefix: string;
  redis: RedisClient;
  store: ApprovalStore;
}

/**
 * A new Redis store for each test of the file, on the test Redis under a random key prefix, its
 * keys deleted and its connection closed after the test; `use` is given each one as it opens.
 */
export function redisStoreForEachTest(use: (opened: TestRedisStore) => void): void {
  let opened: TestRedisStore | undefined;
  beforeEach(async () => {
    const keyPrefix = randomPrefix();
    const redis = await connectTestRedis();
    opened = { keyPrefix, redis, store: openRedisStore({ redis, keyPrefix }) };
    use(opened);
  });
  afterEach(async () => {
    if (opened === undefined) return;
    const { keyPrefix, redis, store } = opened;
    await deleteWithPrefix(redis, keyPrefix);
    await store.lifecycle.close();
    redis.disconnect();
  });
}
