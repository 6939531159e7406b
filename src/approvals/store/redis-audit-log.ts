import type { AuditEntry, AuditLog, AuditPageOptions } from '../store-roles/audit-log.js';
import type { StoreKeys } from './keys.js';
import {
  parseRecentDecisions,
  readAuditStream,
  readPauseTrail,
  streamPosition,
} from './redis-audit.js';
import { type RedisClient, redisCall } from './redis-connection.js';
import { DEFAULT_LIMIT, RECENT_DECISIONS_MAX } from './rules.js';

/**
 * The audit on Redis, read: the store-wide stream the sealed lines are copied to (the one place
 * each is kept), a pause's lines from it, and each person's recent decisions list.
 */
export class RedisAuditLog implements AuditLog {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: StoreKeys,
  ) {}

  /**
   * The global stream (ids are stream ids, `.<k>` after them for the lines after an entry's
   * first), trimmed by age (AUDIT_RETENTION); with a pause id, that pause's lines in it and its
   * bodies not sealed yet (a scan of the stream: see readPauseTrail).
   */
  readAuditPage(options: AuditPageOptions): Promise<AuditEntry[]> {
    const { start, skipLines } =
      options.after !== undefined
        ? streamPosition(options.after)
        : { start: String(options.since ?? '-'), skipLines: 0 };
    const end = options.until === undefined ? '+' : String(options.until);
    return readAuditStream(this.redis, this.keys.audit, options.limit, start, end, skipLines);
  }

  async readRecentDecisions(userId: string, limit: number): Promise<AuditEntry[]> {
    const key = this.keys.recentDecisions(userId);
    // The list may hold a few more than RECENT_DECISIONS_MAX until it is cut back: never shown.
    const count = Math.min(limit, RECENT_DECISIONS_MAX);
    const items = await redisCall(`read ${key}`, () => this.redis.lrange(key, 0, count - 1));
    return parseRecentDecisions(key, items);
  }

  async trimAudit(before: number): Promise<void> {
    const key = this.keys.audit;
    await redisCall(`trim ${key}`, () => this.redis.xtrim(key, 'MINID', '~', before));
  }

  readAudit(options: { pauseId?: string; count?: number } = {}): Promise<AuditEntry[]> {
    const { pauseId, count = DEFAULT_LIMIT } = options;
    return pauseId === undefined
      ? readAuditStream(this.redis, this.keys.audit, count)
      : readPauseTrail(
          this.redis,
          { pause: this.keys.pause(pauseId), stream: this.keys.audit },
          pauseId,
          count,
        );
  }
}
