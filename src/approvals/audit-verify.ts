import { AUDIT_CURSOR_KIND, AUDIT_EXPORT_KIND } from './audit-export.js';
import { AUDIT_GENESIS, sha256, splitChainLine } from './store/audit-chain.js';

/**
 * Checks an audit export (audit-export.ts) line by line, with nothing but SHA-256: each chain
 * line's hash matches its text (a changed character fails), and each pause's lines follow each
 * other (`seq` one more, `prev` the hash before), so that a deleted line fails at the next line of
 * its pause. An export that starts mid-way (`since`, a cursor) may start a chain after its first
 * line: that line is an anchor, reported. A tool or decider filter leaves gaps on purpose: only
 * each line's own hash is checked then (an app filter or an API key's apps keep whole chains: a
 * pause has one app). Feed it lines; `result()` says the outcome.
 */
export type AuditVerdict =
  | {
      ok: true;
      entries: number;
      pauses: number;
      /** Lines where a pause's chain starts mid-way (ranged exports only). */
      anchors: number[];
      /** Entries written before the chain existed: listed, not verifiable. */
      unchained: number;
      /** The export was filtered or scoped: chains were not checked for gaps. */
      linksChecked: boolean;
    }
  | { ok: false; line: number; problem: string };

interface ChainState {
  seq: number;
  hash: string;
}

export class AuditVerifier {
  private lineNumber = 0;
  private failure: { line: number; problem: string } | undefined;
  private ranged = false;
  private linksChecked = true;
  private readonly chains = new Map<string, ChainState>();
  private entries = 0;
  private unchained = 0;
  private readonly anchors: number[] = [];
  private ended = false;
  private headerSeen = false;

  /** Checks the next line; after a failure the rest is ignored. */
  add(line: string): void {
    this.lineNumber += 1;
    if (this.failure !== undefined || line.trim() === '') return;
    const problem = this.check(line);
    if (problem !== undefined) this.failure = { line: this.lineNumber, problem };
  }

  /**
   * Counts the next line without checking it: for text the caller knows is not part of the
   * export (npm's run-script banner above it), so that line numbers still match the file.
   */
  skip(): void {
    this.lineNumber += 1;
  }

  result(): AuditVerdict {
    if (this.failure !== undefined) return { ok: false, ...this.failure };
    if (!this.headerSeen) {
      return this.lineNumber === 0
        ? { ok: false, line: 1, problem: 'the file is empty' }
        : { ok: false, line: this.lineNumber, problem: `no ${AUDIT_EXPORT_KIND} header in it` };
    }
    return {
      ok: true,
      entries: this.entries,
      pauses: this.chains.size,
      anchors: this.anchors,
      unchained: this.unchained,
      linksChecked: this.linksChecked,
    };
  }

  private check(line: string): string | undefined {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      return 'not a JSON line';
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      return 'not a JSON object';
    }
    const fields = value as Record<string, unknown>;
    if (!this.headerSeen) {
      this.headerSeen = true;
      if (fields.kind !== AUDIT_EXPORT_KIND)
        return `not an audit export: no ${AUDIT_EXPORT_KIND} header`;
      this.ranged = fields.since !== undefined || fields.cursor !== undefined;
      // A pause has one app, so an export of some apps holds whole chains; a tool or decider
      // filter leaves out lines of a chain on purpose.
      const filters = fields.filters;
      const gapped =
        typeof filters === 'object' &&
        filters !== null &&
        ('tool' in filters || 'decider' in filters);
      this.linksChecked = !gapped;
      return undefined;
    }
    if (this.ended) return 'a line after the cursor line, which ends an export';
    if (fields.kind === AUDIT_CURSOR_KIND) {
      this.ended = true;
      return undefined;
    }
    this.entries += 1;
    if (fields.legacy === true && fields.hash === undefined) {
      this.unchained += 1;
      return undefined;
    }
    const split = splitChainLine(line);
    if (split === undefined) return 'no hash: not a line of the audit chain';
    if (sha256(split.text) !== split.hash) {
      return 'its hash does not match its content: the line was changed after it was written';
    }
    const { pauseId, seq, prev } = fields;
    if (typeof pauseId !== 'string' || typeof seq !== 'number' || typeof prev !== 'string') {
      return 'no pauseId, seq or prev';
    }
    if (!this.linksChecked) {
      this.chains.set(pauseId, { seq, hash: split.hash });
      return undefined;
    }
    const before = this.chains.get(pauseId);
    this.chains.set(pauseId, { seq, hash: split.hash });
    if (before === undefined) {
      if (seq === 1) {
        return prev === AUDIT_GENESIS
          ? undefined
          : 'the first line of its pause links to a line before it';
      }
      if (this.ranged) {
        this.anchors.push(this.lineNumber);
        return undefined;
      }
      return `pause ${pauseId} starts at seq ${seq}: its lines 1 to ${seq - 1} are missing`;
    }
    if (seq !== before.seq + 1) {
      return `pause ${pauseId}: seq ${seq} follows seq ${before.seq}: a line is missing or out of place before this one`;
    }
    if (prev !== before.hash) {
      return `pause ${pauseId}: prev does not match the hash of its seq ${before.seq}: a line before it was replaced`;
    }
    return undefined;
  }
}
