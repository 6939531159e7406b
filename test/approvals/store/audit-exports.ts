import { auditExportLines } from '../../../src/approvals/audit-export.js';
import { AuditVerifier } from '../../../src/approvals/audit-verify.js';
import type { AuditLog } from '../../../src/approvals/store-roles/audit-log.js';

/**
 * An export of a store's whole store-wide audit: its lines (the header left out) and what
 * `audit verify` says of it.
 */
export async function exportedAudit(store: { audit: Pick<AuditLog, 'readAuditPage'> }) {
  const verifier = new AuditVerifier();
  const lines: string[] = [];
  for await (const line of auditExportLines(store, { limit: 10_000 })) {
    verifier.add(line);
    lines.push(line);
  }
  return { lines: lines.slice(1), verdict: verifier.result() };
}
