import type { ClaimNudgesInput, DueNudge, NudgeKind, NudgeQueue } from '../store-roles/nudges.js';
import { gateOf } from './memory/prelude.js';
import type { MemoryPauseBook } from './memory-pause-book.js';
import { DEFAULT_LIMIT } from './rules.js';

/**
 * The twin of redis-nudges.ts: reminder and escalation entries by due time, claimed by moving
 * the entry to the end of its lease, finished by removing it while that claim still holds it.
 * The same order as Redis (score, then member).
 */
interface Entry {
  pauseId: string;
  callId: string;
  kind: NudgeKind;
  score: number;
}

/** An entry whose pause does not exist may belong to a pause being created right now. */
const ORPHAN_GRACE_MS = 60_000;

export class MemoryNudges implements NudgeQueue {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly book: MemoryPauseBook) {}

  /** NX: recording the pause again changes nothing. */
  add(pauseId: string, nudges: readonly { callId: string; kind: NudgeKind; dueAt: number }[]) {
    for (const { callId, kind, dueAt } of nudges) {
      const member = JSON.stringify([pauseId, callId, kind]);
      if (!this.entries.has(member)) {
        this.entries.set(member, { pauseId, callId, kind, score: dueAt });
      }
    }
  }

  async claimDueNudges(input: ClaimNudgesInput): Promise<DueNudge[]> {
    const { now, leaseMs, limit = DEFAULT_LIMIT } = input;
    this.book.purge(now);
    // The gate's state; undefined: no such pause.
    const stateOf = (pauseId: string, callId: string) => {
      const entry = this.book.pauses.get(pauseId);
      return entry && gateOf(entry, callId)?.record.state;
    };
    const due = [...this.entries]
      .filter(([, entry]) => entry.score <= now)
      .sort(([ma, a], [mb, b]) => a.score - b.score || (ma < mb ? -1 : ma > mb ? 1 : 0))
      .slice(0, limit);
    const claimed: DueNudge[] = [];
    for (const [member, entry] of due) {
      const state = stateOf(entry.pauseId, entry.callId);
      if (state === undefined) {
        if (entry.score < now - ORPHAN_GRACE_MS) this.entries.delete(member);
        continue;
      }
      if (state !== 'pending') {
        this.entries.delete(member);
        continue;
      }
      const claimedUntil = now + leaseMs;
      entry.score = claimedUntil;
      const { pauseId, callId, kind } = entry;
      claimed.push({ pauseId, callId, kind, claimedUntil });
    }
    return claimed;
  }

  async finishNudge(nudge: DueNudge): Promise<void> {
    const member = JSON.stringify([nudge.pauseId, nudge.callId, nudge.kind]);
    if (this.entries.get(member)?.score === nudge.claimedUntil) this.entries.delete(member);
  }
}
