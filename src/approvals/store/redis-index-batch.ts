import type { RedisClient } from './redis-connection.js';

/**
 * Index updates collected from one or many transitions, sent as one command per key: ZREM with
 * every member to drop, ZADD with every member to (re)score.
 */
export class IndexBatch {
  private readonly removals = new Map<string, Set<string>>();
  private readonly additions = new Map<string, Map<string, number>>();
  private readonly callKeys = new Set<string>();

  remove(key: string, member: string): void {
    const members = this.removals.get(key) ?? new Set<string>();
    members.add(member);
    this.removals.set(key, members);
  }

  add(key: string, score: number, member: string): void {
    const members = this.additions.get(key) ?? new Map<string, number>();
    members.set(member, score);
    this.additions.set(key, members);
  }

  /** A call-id key an earlier version wrote for a pause now finished (keys.ts), to go. */
  dropCallKey(key: string): void {
    this.callKeys.add(key);
  }

  /** The updates of `batches`, as one batch: for a member in two, the later score wins. */
  static merged(batches: readonly IndexBatch[]): IndexBatch {
    const all = new IndexBatch();
    for (const batch of batches) {
      for (const [key, members] of batch.removals) {
        for (const member of members) all.remove(key, member);
      }
      for (const [key, members] of batch.additions) {
        for (const [member, score] of members) all.add(key, score, member);
      }
      for (const key of batch.callKeys) all.dropCallKey(key);
    }
    return all;
  }

  send(
    redis: RedisClient,
    dropCallKeys: (keys: readonly string[]) => Promise<unknown>,
  ): Promise<unknown>[] {
    const sent: Promise<unknown>[] = [];
    for (const [key, members] of this.removals) sent.push(redis.zrem(key, ...members));
    for (const [key, members] of this.additions) {
      const pairs = [...members].flatMap(([member, score]) => [score, member]);
      sent.push(redis.zadd(key, ...pairs));
    }
    if (this.callKeys.size > 0) sent.push(dropCallKeys([...this.callKeys]));
    return sent;
  }
}
