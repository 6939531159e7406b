/** The audit, as its readers see it: the store-wide log, a pause's lines, people's decisions. */
export interface AuditLog {
  /**
   * The store-wide audit, oldest first; with a pause id, that pause's lines in it, then its
   * bodies not sealed yet. Each line is kept once, in the store-wide log, so a pause's lines are
   * found by reading it through: for tests and investigations, not a request's path.
   */
  readAudit(options?: { pauseId?: string; count?: number }): Promise<AuditEntry[]>;
  /**
   * The store-wide audit, oldest first, one page: entries after the `after` cursor (an entry id,
   * exclusive), else written at or after `since`; up to `until` (ms, inclusive); `limit` at most.
   * What the audit export streams, page by page.
   */
  readAuditPage(options: AuditPageOptions): Promise<AuditEntry[]>;
  /**
   * A person's recent decisions, newest first: the deciding entries (approved, rejected, expired,
   * cancelled, withdrawn) they made or that were made on their requests, from an index of their
   * own (never a scan of the audit).
   */
  readRecentDecisions(userId: string, limit: number): Promise<AuditEntry[]>;
  /** Drops store-wide audit entries written before `before` (ms): the audit retention. */
  trimAudit(before: number): Promise<void>;
}

export interface AuditPageOptions {
  since?: number;
  until?: number;
  after?: string;
  limit: number;
}

export interface AuditEntry {
  /**
   * Its place in the store-wide audit: a stream entry id, `.<k>` after it for the `k`th line
   * after an entry's first (an entry holds a batch's lines); a monotonic id in memory.
   */
  id: string;
  at: number;
  pauseId: string;
  callId?: string;
  /** What happened: `created`, `voted`, `approved`, `rejected`, `expired`, `cancelled`, `resume_claimed`, `resumed`, `resume_failed`, … */
  event: string;
  /** Who caused it: a Slack user id, a replica's owner id, or `system`. */
  actor: string;
  /** Short facts without argument or payload values, e.g. the reason length or the lease owner. */
  detail?: string;
  /**
   * The entry's line of its pause's hash chain, byte for byte (audit-chain.ts): who, what, why,
   * the policy version, and the links. Absent for entries written before the chain existed.
   */
  line?: string;
}
