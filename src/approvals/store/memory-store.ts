import { MemoryCardClaims } from '../card-claims.js';
import type { ApprovalStore } from '../store.js';
import type { StoreLifecycle, StoreMarker } from '../store-roles/lifecycle.js';
import { MemoryRunIntents } from './memory/run-intents.js';
import { MemoryAuditLog } from './memory-audit-log.js';
import { MemoryPauseNotes } from './memory-notes.js';
import { MemoryNudges } from './memory-nudges.js';
import { MemoryPauseBook, type MemoryStoreOptions } from './memory-pause-book.js';
import { MemoryPauses } from './memory-pauses.js';
import { MemoryPendingQueries } from './memory-pending.js';
import { MemoryResumeLeases } from './memory-resume-leases.js';
import { MemoryPauseSweeps } from './memory-sweeps.js';

export type { MemoryStoreOptions } from './memory-pause-book.js';

/**
 * The approval store in this process's memory: the same roles as the Redis store (one test
 * suite proves both), for a single instance that may lose everything on restart. Laid out as
 * the twin of the Redis store: each role over one book of pauses (memory-pause-book.ts), as the
 * Redis roles are over one Redis.
 */
export function openMemoryStore(options: MemoryStoreOptions = {}): ApprovalStore {
  const book = new MemoryPauseBook(options);
  const nudges = new MemoryNudges(book);
  /** Who posts which card, until when (the twin of the card-claim keys). */
  const cardClaims = new MemoryCardClaims();
  const notes = new MemoryPauseNotes(book);
  return {
    pauses: new MemoryPauses(book, nudges),
    reports: notes,
    notes,
    idempotency: notes,
    leases: new MemoryResumeLeases(book),
    sweeps: new MemoryPauseSweeps(book, cardClaims),
    pending: new MemoryPendingQueries(book),
    runs: new MemoryRunIntents(),
    nudges,
    audit: new MemoryAuditLog(book),
    cardClaims,
    lifecycle: new MemoryStoreLifecycle(),
  };
}

class MemoryStoreLifecycle implements StoreLifecycle {
  /** Memory loses its data only with the process, and the marker with it. */
  private marker: StoreMarker = { kind: 'missing' };

  async placeMarker(input: { now: number; lossFoundAt?: number }): Promise<void> {
    if (this.marker.kind === 'present') return;
    const { now, lossFoundAt } = input;
    this.marker = {
      kind: 'present',
      placedAt: now,
      ...(lossFoundAt === undefined ? {} : { lossFoundAt }),
    };
  }

  async readMarker(): Promise<StoreMarker> {
    return { ...this.marker };
  }

  async close(): Promise<void> {}
}
