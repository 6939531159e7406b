import type { AuditEntry, AuditLog, AuditPageOptions } from '../store-roles/audit-log.js';
import type { MemoryPauseBook } from './memory-pause-book.js';
import { DEFAULT_LIMIT } from './rules.js';

/**
 * The audit in memory, read: the store-wide audit (each line kept once, as on Redis), a pause's
 * lines in it, people's recent decisions.
 */
export class MemoryAuditLog implements AuditLog {
  constructor(private readonly book: MemoryPauseBook) {}

  /** The store-wide audit, capped at `auditMaxLen`; with a pause id, that pause's lines in it. */
  async readAudit(options: { pauseId?: string; count?: number } = {}): Promise<AuditEntry[]> {
    const { pauseId, count = DEFAULT_LIMIT } = options;
    const lines =
      pauseId === undefined
        ? this.book.audit
        : this.book.audit.filter((entry) => entry.pauseId === pauseId);
    return structuredClone(lines.slice(0, count));
  }

  async readAuditPage(options: AuditPageOptions): Promise<AuditEntry[]> {
    const { since, until, after, limit } = options;
    const from =
      after === undefined ? 0 : this.book.audit.findIndex((entry) => entry.id === after) + 1;
    const page = this.book.audit
      .slice(from)
      .filter(
        (entry) =>
          (after !== undefined || since === undefined || entry.at >= since) &&
          (until === undefined || entry.at <= until),
      )
      .slice(0, limit);
    return structuredClone(page);
  }

  async readRecentDecisions(userId: string, limit: number): Promise<AuditEntry[]> {
    const list = this.book.recent.get(userId) ?? [];
    return structuredClone(
      list.slice(0, limit).map((entry, i) => ({ ...entry, id: String(i + 1) })),
    );
  }

  async trimAudit(before: number): Promise<void> {
    const kept = this.book.audit.findIndex((entry) => entry.at >= before);
    this.book.audit.splice(0, kept < 0 ? this.book.audit.length : kept);
  }
}
