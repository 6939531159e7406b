import { z } from 'zod';
import { StoreError } from '../store.js';
import type { ThreadSession } from '../thread-sessions.js';
import { threadSessionSchema } from '../thread-sessions.js';
import { type RedisClient, redisCall } from './redis-connection.js';

const legacySessionSchema = z
  .string()
  .transform((text, ctx) => {
    try {
      return JSON.parse(text);
    } catch {
      ctx.addIssue({ code: 'custom', message: 'not JSON' });
      return z.NEVER;
    }
  })
  .pipe(threadSessionSchema);

/**
 * Thread sessions as versions before the run thread record (issue 22) wrote them: a JSON string
 * per thread, `<prefix>thread:<channelId>:<threadTs>`, set for 30 days when the run started.
 * Read only where a thread has no record of the new layout, during a rolling upgrade and for
 * 30 days after the last old replica stopped (docs/operations.md); nothing new is written here.
 */
export class RedisLegacyThreadSessions {
  constructor(
    private readonly redis: RedisClient,
    private readonly prefix: string,
  ) {}

  async find(channelId: string, threadTs: string): Promise<ThreadSession | undefined> {
    const raw = await redisCall('read a thread session', () =>
      this.redis.get(this.key(channelId, threadTs)),
    );
    if (raw === null) return undefined;
    const parsed = legacySessionSchema.safeParse(raw);
    if (!parsed.success) {
      throw new StoreError(
        'corrupt_record',
        `the thread session of ${channelId}/${threadTs} in Redis is unreadable: ${z.prettifyError(parsed.error)}`,
      );
    }
    return parsed.data;
  }

  /** Remembers the newest pause; KEEPTTL, so that an old record still ends 30 days after its run. */
  async notePause(channelId: string, threadTs: string, pauseId: string): Promise<void> {
    const found = await this.find(channelId, threadTs);
    if (found === undefined) return;
    // The one writer after the run started is the run of this thread (runs of a thread are serialized).
    await redisCall('note a pause in a thread session', () =>
      this.redis.set(
        this.key(channelId, threadTs),
        JSON.stringify({ ...found, lastPauseId: pauseId }),
        'KEEPTTL',
      ),
    );
  }

  private key(channelId: string, threadTs: string): string {
    return `${this.prefix}thread:${channelId}:${threadTs}`;
  }
}
