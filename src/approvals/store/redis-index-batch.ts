import type { RedisClient } from './redis-connection.js';

/** A call id's index entry, and the pause it must name to be changed. */
export interface CallIndexEntry {
  callId: string;
  pauseId: string;
}

/**
 * Index updates collected from one or many transitions, sent as one command per key: ZREM with
 * every member to drop, ZADD with every member to (re)score.
 */
export class IndexBatch {
  private readonly removals = new Map<string, Set<string>>();
  private readonly additions = new Map<string, Map<string, number>>();
  private readonly callIndexes = new Map<string, string>();

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

  /** The call id's entry takes its pause's retention (only while it still names that pause). */
  expireCallIndex(callId: string, pauseId: string): void {
    this.callIndexes.set(callId, pauseId);
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
      for (const [callId, pauseId] of batch.callIndexes) all.expireCallIndex(callId, pauseId);
    }
    return all;
  }

  send(
    redis: RedisClient,
    expireCallIndexes: (entries: readonly CallIndexEntry[]) => Promise<unknown>,
  ): Promise<unknown>[] {
    const sent: Promise<unknown>[] = [];
    for (const [key, members] of this.removals) sent.push(redis.zrem(key, ...members));
    for (const [key, members] of this.additions) {
      const pairs = [...members].flatMap(([member, score]) => [score, member]);
      sent.push(redis.zadd(key, ...pairs));
    }
    if (this.callIndexes.size > 0) {
      sent.push(
        expireCallIndexes([...this.callIndexes].map(([callId, pauseId]) => ({ callId, pauseId }))),
      );
    }
    return sent;
  }
}
