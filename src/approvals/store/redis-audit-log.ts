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
 * The audit on Redis, read: a pause's own trail (kept as long as the pause), the store-wide
 * stream the scripts' lines are mirrored to, and each person's recent decisions list.
 */
export class RedisAuditLog implements AuditLog {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: StoreKeys,
  ) {}

  /**
   * With a pause id: that pause's exact trail (ids are positions in it), kept as long as the
   * pause. Without: the global stream (ids are stream ids, `.<k>` after them for the lines
   * after an entry's first), trimmed by age (AUDIT_RETENTION).
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
          { pause: this.keys.pause(pauseId), list: this.keys.pauseAudit(pauseId) },
          pauseId,
          count,
        );
  }
}
