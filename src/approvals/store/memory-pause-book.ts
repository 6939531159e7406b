import type { PauseNotes, PauseView } from '../records.js';
import type { AuditEntry } from '../store-roles/audit-log.js';
import type { GateRef } from '../store-roles/pending-queries.js';
import { type MemoryPause, PauseRun } from './memory/prelude.js';
import {
  DEFAULT_AUDIT_MAXLEN,
  DEFAULT_RETENTION_MS,
  pendingIndexesOf,
  pendingIndexName,
  RECENT_DECISIONS_MAX,
  recentDecisionHolders,
  recentEntries,
} from './rules.js';

export interface MemoryStoreOptions {
  /** How long a finished pause (resumed, failed, abandoned) is kept. Default 7 days. */
  retentionMs?: number;
  /** How many audit entries are kept in all. Default 100,000. */
  auditMaxLen?: number;
}

/**
 * What the in-memory roles share, as the Redis roles share one Redis: the pauses, and what
 * redis-store's roles and redis-indexes.ts keep around the scripts (the pending indexes, the
 * store-wide audit, people's recent decisions, the notes). Finished pauses are
 * dropped `retentionMs` after they finished, checked against the `now` of later calls.
 */
export class MemoryPauseBook {
  readonly pauses = new Map<string, MemoryPause>();
  /** Gates pending when recorded, by index name (`pendingIndexName`); stale ones drop when listed. */
  readonly pending = new Map<string, Map<string, GateRef>>();
  readonly audit: AuditEntry[] = [];
  /** Each person's recent decisions, newest first (the Redis store's `recent:<user>` lists). */
  readonly recent = new Map<string, AuditEntry[]>();
  /** Outcomes and delivery status, by pause id; dropped with the pause. */
  readonly notes = new Map<string, PauseNotes>();
  private auditSequence = 0;
  readonly retentionMs: number;
  private readonly auditMaxLen: number;

  constructor(options: MemoryStoreOptions = {}) {
    this.retentionMs = options.retentionMs ?? DEFAULT_RETENTION_MS;
    this.auditMaxLen = options.auditMaxLen ?? DEFAULT_AUDIT_MAXLEN;
  }

  notesOf(pauseId: string): PauseNotes {
    return this.notes.get(pauseId) ?? { outcomes: {} };
  }

  /** The pause to run a script twin on, once pauses whose retention ended by `now` are gone. */
  load(pauseId: string, now: number): PauseRun | undefined {
    this.purge(now);
    const entry = this.pauses.get(pauseId);
    return entry && new PauseRun(entry, now);
  }

  /** As on Redis: its pending gates in their pending lists (recording again fills in missing ones). */
  afterCreate(view: PauseView): void {
    const { id } = view.pause;
    for (const gate of view.gates) {
      if (gate.state !== 'pending') continue;
      const ref: GateRef = { pauseId: id, callId: gate.confirmationCallId };
      for (const index of pendingIndexesOf(view, ref.callId)) {
        addRef(this.pending, pendingIndexName(index), ref);
      }
    }
  }

  /** Copies a run's trail entries to the store-wide audit, and its decisions to people's lists. */
  mirror(run: PauseRun): void {
    for (const item of run.audited) {
      this.auditSequence += 1;
      this.audit.push({ id: `${this.auditSequence}-0`, ...item });
    }
    for (const item of recentEntries(run.audited)) {
      const { line: _, ...fields } = item;
      for (const user of recentDecisionHolders(item.actor, run.entry.pause.requester)) {
        const list = this.recent.get(user) ?? [];
        list.unshift({ id: '', ...fields });
        list.splice(RECENT_DECISIONS_MAX);
        this.recent.set(user, list);
      }
    }
    if (this.audit.length > this.auditMaxLen) {
      this.audit.splice(0, this.audit.length - this.auditMaxLen);
    }
  }

  /** The twin of Redis expiring a finished pause's keys: drops pauses whose retention ended. */
  purge(now: number): void {
    for (const [pauseId, entry] of this.pauses) {
      if (entry.removeAt === undefined || entry.removeAt > now) continue;
      this.pauses.delete(pauseId);
      this.notes.delete(pauseId);
    }
  }
}

function addRef(index: Map<string, Map<string, GateRef>>, id: string, ref: GateRef): void {
  const refs = index.get(id) ?? new Map<string, GateRef>();
  refs.set(JSON.stringify([ref.pauseId, ref.callId]), ref);
  index.set(id, refs);
}
