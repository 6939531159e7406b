import type { GateRef, PendingIndex, PendingQueries } from '../store-roles/pending-queries.js';
import { gateOf } from './memory/prelude.js';
import type { MemoryPauseBook } from './memory-pause-book.js';
import { DEFAULT_LIMIT, pendingIndexName } from './rules.js';

/** The pending indexes in memory, read; entries of gates no longer pending drop as they are met. */
export class MemoryPendingQueries implements PendingQueries {
  constructor(private readonly book: MemoryPauseBook) {}

  /** Explicit user approvers only: user groups and channel members are known only to Slack. */
  async listPendingByApprover(userId: string, limit = DEFAULT_LIMIT): Promise<GateRef[]> {
    return this.listPending({ kind: 'user', id: userId }, limit);
  }

  async countPendingByApp(): Promise<Map<string, number>> {
    const counts = new Map<string, number>();
    for (const { pause, gates } of this.book.pauses.values()) {
      const pending = gates.filter((gate) => gate.record.state === 'pending').length;
      if (pending === 0) continue;
      const app = pause.adk.appName;
      counts.set(app, (counts.get(app) ?? 0) + pending);
    }
    return counts;
  }

  /** Oldest first; refs of gates no longer pending (or pauses gone) are dropped as they are met. */
  async listPending(index: PendingIndex, limit = DEFAULT_LIMIT): Promise<GateRef[]> {
    const name = pendingIndexName(index);
    const refs = this.book.pending.get(name);
    if (!refs) return [];
    const found: GateRef[] = [];
    for (const [key, ref] of refs) {
      if (found.length >= limit) break;
      const entry = this.book.pauses.get(ref.pauseId);
      const gate = entry && gateOf(entry, ref.callId);
      if (gate?.record.state === 'pending') found.push({ ...ref });
      else refs.delete(key);
    }
    if (refs.size === 0) this.book.pending.delete(name);
    return found;
  }
}
