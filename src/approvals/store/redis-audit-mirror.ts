import type { Log } from '../../log.js';
import { CoalescedWrites } from './coalesced-writes.js';
import type { StoreKeys } from './keys.js';
import type { StreamEntry } from './redis-audit.js';
import { AuditStreamCopy } from './redis-audit-copy.js';
import type { RedisClient } from './redis-connection.js';
import {
  RECENT_DECISIONS_MAX,
  RECENT_DECISIONS_SLACK,
  RECENT_DECISIONS_TTL_MS,
  recentDecisionHolders,
  recentEntries,
} from './rules.js';
import type { ScriptAuditEntry } from './scripts/reply.js';

/** A transition's audit entries, sealed: the pause's new lines. */
export interface AuditMirror {
  pauseId: string;
  /** The pause's requester: their recent decisions list its deciding entries. */
  requester: string;
  audit: readonly ScriptAuditEntry[];
  /** When the transition happened (ms). */
  at: number;
}

/**
 * Copies sealed audit entries to the store-wide audit stream, the one place each line is kept,
 * and each deciding entry to its people's recent decisions. Mirrors that come while a write is
 * under way go together (`CoalescedWrites`): their lines in one stream entry and one list write
 * per person.
 */
export class AuditMirrorBatcher {
  private readonly writes: CoalescedWrites<AuditMirror>;
  private readonly stream: AuditStreamCopy;

  constructor(
    private readonly redis: RedisClient,
    private readonly keys: StoreKeys,
    log: Pick<Log, 'error'> | undefined,
  ) {
    this.writes = new CoalescedWrites((batch) => this.send(batch));
    this.stream = new AuditStreamCopy(redis, keys.audit, log);
  }

  write(mirrors: readonly AuditMirror[]): Promise<void> {
    return this.writes.write(mirrors.filter((mirror) => mirror.audit.length > 0));
  }

  private async send(batch: readonly AuditMirror[]): Promise<void> {
    const entries: StreamEntry[] = batch.flatMap(({ pauseId, audit }) =>
      audit.map((entry) => ({ pauseId, entry })),
    );
    // A later batch waits for this one, tries again included: each pause's lines stay in order.
    await Promise.all([this.stream.copy(entries), this.noteRecentDecisions(batch)]);
  }

  /** Each deciding entry (and vote toward a quorum) at the head of its actor's and its requester's recent list. */
  private async noteRecentDecisions(batch: readonly AuditMirror[]): Promise<void> {
    const byUser = new Map<string, string[]>();
    for (const { pauseId, requester, audit, at } of batch) {
      for (const entry of recentEntries(audit)) {
        const item = JSON.stringify({
          at,
          pauseId,
          event: entry.event,
          actor: entry.actor,
          callId: entry.callId,
        });
        for (const user of recentDecisionHolders(entry.actor, requester)) {
          const items = byUser.get(user);
          if (items === undefined) byUser.set(user, [item]);
          else items.push(item);
        }
      }
    }
    // Per person: the items at the head and the list's expiry renewed, sent together on one
    // connection (one key: one node of a Cluster); the list is cut back to its newest once it
    // has grown RECENT_DECISIONS_SLACK past them (reads never show more than those).
    await Promise.all(
      [...byUser].map(async ([user, items]) => {
        const key = this.keys.recentDecisions(user);
        // The list keeps its newest RECENT_DECISIONS_MAX: older items would be trimmed at once.
        const [length] = await Promise.all([
          this.redis.lpush(key, ...items.slice(-RECENT_DECISIONS_MAX)),
          this.redis.pexpire(key, RECENT_DECISIONS_TTL_MS),
        ]);
        if (length > RECENT_DECISIONS_MAX + RECENT_DECISIONS_SLACK) {
          await this.redis.ltrim(key, 0, RECENT_DECISIONS_MAX - 1);
        }
      }),
    );
  }
}
