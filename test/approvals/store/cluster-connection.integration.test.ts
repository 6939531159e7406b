import { Cluster } from 'ioredis';
import { describe, expect, it } from 'vitest';
import {
  connectTestRedis,
  deleteWithPrefix,
  randomPrefix,
  usingCluster,
} from '../../support/redis.js';

/**
 * A new Cluster client's commands sent together reach a node in the order sent. With no offline
 * queue, ioredis sends again (after a delay, in any order) the commands that meet a node's
 * connection still opening; so the client opens them all before it is handed out. (Seen as the
 * audit stream's "approved" line landing before its "voted" one from a replica's first vote.)
 */
describe.runIf(usingCluster)('a Redis Cluster client', () => {
  it("has every node's connection open once connected, and keeps commands sent together in order", async () => {
    const prefix = randomPrefix();
    const client = await connectTestRedis();
    try {
      if (!(client instanceof Cluster)) throw new Error('expected a cluster client');
      expect(client.nodes('all').map((node) => node.status)).toEqual(
        client.nodes('all').map(() => 'ready'),
      );
      // Keys in many slots: every node gets some.
      const keys = Array.from({ length: 12 }, (_, i) => `${prefix}stream:${i}`);
      await Promise.all(
        keys.flatMap((key) =>
          [1, 2, 3, 4].map((n) => client.call('XADD', key, '*', 'n', String(n))),
        ),
      );
      for (const key of keys) {
        const entries = (await client.xrange(key, '-', '+')) as [string, string[]][];
        expect(entries.map(([, fields]) => fields[1])).toEqual(['1', '2', '3', '4']);
      }
    } finally {
      await deleteWithPrefix(client, prefix);
      client.disconnect();
    }
  });
});
