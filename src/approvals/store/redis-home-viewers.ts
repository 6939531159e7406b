import { HOME_WATCH_MS, type HomeViewers } from '../home-viewers.js';
import { assertNoHashTag } from './keys.js';
import { type RedisClient, redisCall } from './redis-connection.js';

/**
 * Home viewers in Redis, one sorted set (`<prefix>home-viewers`: user id by when they last opened
 * their Home), so that a Home opened through one replica follows changes made on another. One
 * key: Redis Cluster places it where it likes.
 */
export class RedisHomeViewers implements HomeViewers {
  private readonly key: string;

  constructor(
    private readonly redis: RedisClient,
    prefix: string,
  ) {
    assertNoHashTag('The key prefix', prefix);
    this.key = `${prefix}home-viewers`;
  }

  async opened(userId: string, now: number): Promise<void> {
    const multi = this.redis.multi();
    multi.zadd(this.key, now, userId);
    multi.zremrangebyscore(this.key, '-inf', now - HOME_WATCH_MS);
    multi.pexpire(this.key, HOME_WATCH_MS);
    await redisCall(`note a Home opened in ${this.key}`, () => multi.exec());
  }

  async watching(userIds: readonly string[], now: number): Promise<Set<string>> {
    if (userIds.length === 0) return new Set();
    const scores = await redisCall(`read ${this.key}`, () =>
      this.redis.zmscore(this.key, ...userIds),
    );
    return new Set(
      userIds.filter((_, i) => {
        const at = scores[i];
        return at != null && Number(at) > now - HOME_WATCH_MS;
      }),
    );
  }
}
