import { z } from 'zod';
import {
  THREAD_SESSION_TTL_MS,
  type ThreadSession,
  type ThreadSessions,
  threadSessionSchema,
} from '../thread-sessions.js';
import { assertNoHashTag } from './keys.js';
import type { RedisClient } from './redis-connection.js';

/**
 * Thread sessions in Redis, beside the store's keys (single-key commands only, so Redis Cluster
 * places each where it likes):
 *
 * ```
 * <prefix>thread:<channelId>:<threadTs>  string  the thread's session (JSON), expires
 * <prefix>event:<eventId>                string  an Events API event already taken (SET NX PX)
 * ```
 */
export class RedisThreadSessions implements ThreadSessions {
  constructor(
    private readonly redis: RedisClient,
    private readonly prefix: string,
  ) {
    assertNoHashTag('The key prefix', prefix);
  }

  async save(session: ThreadSession): Promise<void> {
    await this.redis.set(
      this.threadKey(session.channelId, session.threadTs),
      JSON.stringify(session),
      'PX',
      THREAD_SESSION_TTL_MS,
    );
  }

  async find(channelId: string, threadTs: string): Promise<ThreadSession | undefined> {
    const raw = await this.redis.get(this.threadKey(channelId, threadTs));
    if (raw === null) return undefined;
    const parsed = z
      .string()
      .transform((text, ctx) => {
        try {
          return JSON.parse(text);
        } catch {
          ctx.addIssue({ code: 'custom', message: 'not JSON' });
          return z.NEVER;
        }
      })
      .pipe(threadSessionSchema)
      .safeParse(raw);
    if (!parsed.success) {
      throw new Error(
        `the thread session of ${channelId}/${threadTs} in Redis is unreadable: ${z.prettifyError(parsed.error)}`,
      );
    }
    return parsed.data;
  }

  async notePause(channelId: string, threadTs: string, pauseId: string): Promise<void> {
    const found = await this.find(channelId, threadTs);
    if (found === undefined) return;
    // The one writer after `save` is the run of this thread (runs of a thread are serialized).
    await this.redis.set(
      this.threadKey(channelId, threadTs),
      JSON.stringify({ ...found, lastPauseId: pauseId }),
      'PX',
      THREAD_SESSION_TTL_MS,
    );
  }

  async claimEvent(eventId: string, ttlMs: number): Promise<boolean> {
    const set = await this.redis.set(`${this.prefix}event:${eventId}`, '1', 'PX', ttlMs, 'NX');
    return set === 'OK';
  }

  private threadKey(channelId: string, threadTs: string): string {
    return `${this.prefix}thread:${channelId}:${threadTs}`;
  }
}
