import type { StoreKeys } from './keys.js';
import { appendToAuditStream, type StreamEntry } from './redis-audit.js';
import type { RedisClient } from './redis-connection.js';
import {
  RECENT_DECISIONS_MAX,
  RECENT_DECISIONS_SLACK,
  RECENT_DECISIONS_TTL_MS,
  recentDecisionHolders,
  recentEntries,
} from './rules.js';
import type { ScriptAuditEntry } from './scripts/reply.js';

/** A transition's audit entries, as its script wrote them to the pause's trail. */
export interface AuditMirror {
  pauseId: string;
  /** The pause's requester: their recent decisions list its deciding entries. */
  requester: string;
  audit: readonly ScriptAuditEntry[];
  /** When the transition happened (ms). */
  at: number;
}

/**
 * Copies sealed audit entries to the store-wide audit stream and each deciding entry to its
 * people's recent decisions. A write goes out at once when none is under way; those that come
 * while one is go together, their stream entries and one list write per person in one round
 * trip, as soon as it is done. So a lone transition waits for nothing, and a burst of them costs
 * a few round trips rather than one per transition. Each caller waits for the write that carried its
 * entries, and sees its failure.
 */
export class AuditMirrorBatcher {
  /** The write under way, settled or not: the next batch starts after it. */
  private running: Promise<void> | undefined;
  /** The entries waiting for the write under way, and when they are written. */
  private next: { batch: AuditMirror[]; written: Promise<void> } | undefined;

  constructor(
    private readonly redis: RedisClient,
    private readonly keys: StoreKeys,
    private readonly auditMaxLen: number,
  ) {}

  write(mirrors: readonly AuditMirror[]): Promise<void> {
    const some = mirrors.filter((mirror) => mirror.audit.length > 0);
    if (some.length === 0) return Promise.resolve();
    const running = this.running;
    if (running === undefined) return this.start(some);
    if (this.next === undefined) {
      const batch: AuditMirror[] = [];
      const written = running.then(() => {
        this.next = undefined;
        return this.start(batch);
      });
      this.next = { batch, written };
    }
    this.next.batch.push(...some);
    return this.next.written;
  }

  private start(batch: readonly AuditMirror[]): Promise<void> {
    const sending = this.send(batch);
    const running: Promise<void> = sending.then(
      () => this.finished(running),
      () => this.finished(running),
    );
    this.running = running;
    return sending;
  }

  private finished(running: Promise<void>): void {
    if (this.running === running) this.running = undefined;
  }

  private async send(batch: readonly AuditMirror[]): Promise<void> {
    const entries: StreamEntry[] = batch.flatMap(({ pauseId, audit, at }) =>
      audit.map((entry) => ({ pauseId, entry, at: String(at) })),
    );
    await Promise.all([
      appendToAuditStream(this.redis, this.keys.audit, this.auditMaxLen, entries),
      this.noteRecentDecisions(batch),
    ]);
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
