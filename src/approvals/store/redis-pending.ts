import { z } from 'zod';
import { parseJsonText } from '../../json.js';
import type { GateRef, PendingIndex, PendingQueries } from '../store-roles/pending-queries.js';
import type { StoreKeys } from './keys.js';
import { type RedisClient, redisCall } from './redis-connection.js';
import { parseMember } from './redis-index-members.js';
import { DEFAULT_LIMIT, pendingIndexName } from './rules.js';

/** Rounds of reading a pending set while dropping stale entries: bounds one listing's work. */
const LISTING_ROUNDS = 10;
/** Pauses read per round trip when counting pending gates. */
const COUNT_BATCH = 1_000;
const recordAppSchema = z.object({ adk: z.object({ appName: z.string() }) });

/** The app of a stored pause record; a record that does not parse is counted as `unknown`. */
function appOfRecord(record: string): string {
  const json = parseJsonText(record);
  const parsed = json.ok ? recordAppSchema.safeParse(json.value) : undefined;
  return parsed?.success ? parsed.data.adk.appName : 'unknown';
}

/**
 * The pending indexes on Redis (kept by `RedisIndexes` around the scripts), read: each listed
 * entry is checked against its gate's state, and the stale ones dropped.
 */
export class RedisPendingQueries implements PendingQueries {
  /** The app of each live pause, as the last `countPendingByApp` found them. */
  private appByPause = new Map<string, string>();

  constructor(
    private readonly redis: RedisClient,
    private readonly keys: StoreKeys,
  ) {}

  /** Explicit user approvers only: user groups and channel members are known only to Slack. */
  listPendingByApprover(userId: string, limit = DEFAULT_LIMIT): Promise<GateRef[]> {
    return this.listKey(this.keys.pendingByUser(userId), limit);
  }

  listPending(index: PendingIndex, limit = DEFAULT_LIMIT): Promise<GateRef[]> {
    return this.listKey(this.keys.pending(pendingIndexName(index)), limit);
  }

  /** Oldest first; entries of gates no longer pending are dropped as they are met. */
  private async listKey(key: string, limit: number): Promise<GateRef[]> {
    const found: GateRef[] = [];
    let start = 0;
    for (let round = 0; round < LISTING_ROUNDS && found.length < limit; round++) {
      const members = await redisCall(`read ${key}`, () =>
        this.redis.zrange(key, start, start + limit - 1),
      );
      if (members.length === 0) break;
      const refs = members.map((member) => ({ ...parseMember(key, member), member }));
      const states = await Promise.all(
        refs.map(({ pauseId, callId }) => {
          const gateKey = this.keys.gate(pauseId, callId);
          return redisCall(`read ${gateKey}`, () => this.redis.hget(gateKey, 'state'));
        }),
      );
      const stale: string[] = [];
      refs.forEach(({ pauseId, callId, member }, i) => {
        if (states[i] === 'pending') found.push({ pauseId, callId });
        else stale.push(member);
      });
      if (stale.length > 0) await redisCall(`clean ${key}`, () => this.redis.zrem(key, ...stale));
      start += members.length - stale.length;
      if (members.length < limit) break;
    }
    return found.slice(0, limit);
  }

  /**
   * Every pause with a gate pending is in the resume set from its creation (see redis-indexes.ts),
   * and its hash's `pending` field is kept by its own scripts: the set is scanned (ZSCAN: a
   * pause present throughout is seen, maybe twice, hence the set of ids) and each pause's count
   * read, in batches. Single-key reads only, so it works on Redis Cluster too. A pause's app never
   * changes: it is read (from the record) once and kept for as long as the pause is live, so a
   * later count reads one small field per pause.
   */
  async countPendingByApp(): Promise<Map<string, number>> {
    const counts = new Map<string, number>();
    const apps = new Map<string, string>();
    let cursor = '0';
    do {
      const [next, entries] = await redisCall('scan the resume set', () =>
        this.redis.zscan(this.keys.resume, cursor, 'COUNT', COUNT_BATCH),
      );
      cursor = next;
      // ZSCAN answers member, score, member, score, …
      const ids = entries.filter((id, i) => i % 2 === 0 && !apps.has(id));
      const rows = await redisCall('read pending counts', () =>
        Promise.all(
          ids.map(async (id) => {
            const known = this.appByPause.get(id);
            if (known !== undefined) {
              return {
                id,
                app: known,
                pending: await this.redis.hget(this.keys.pause(id), 'pending'),
              };
            }
            const [pending, record] = await this.redis.hmget(
              this.keys.pause(id),
              'pending',
              'record',
            );
            return {
              id,
              app: typeof record === 'string' ? appOfRecord(record) : undefined,
              pending,
            };
          }),
        ),
      );
      for (const { id, app, pending } of rows) {
        if (app === undefined) continue;
        apps.set(id, app);
        const count = Number(pending);
        if (count > 0) counts.set(app, (counts.get(app) ?? 0) + count);
      }
    } while (cursor !== '0');
    // Only the pauses live now: finished ones leave the resume set, and this map with them.
    this.appByPause = apps;
    return counts;
  }
}
