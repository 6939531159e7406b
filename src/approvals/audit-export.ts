import { parseJsonText } from '../json.js';
import type { AuditEntry, AuditLog } from './store-roles/audit-log.js';

/**
 * The audit export: NDJSON, a header line, then each entry's chain line byte for byte (see
 * store/audit-chain.ts), read from the store page by page so that memory stays flat however long
 * the export; when `limit` is reached, a last line names the cursor to continue from. Shared by
 * `GET /v1/audit` and `npm run audit -- export`; `npm run audit -- verify` checks the result.
 */
export const AUDIT_EXPORT_KIND = 'adk-slack-approvals/audit-export';
export const AUDIT_CURSOR_KIND = 'adk-slack-approvals/audit-cursor';

export interface AuditQuery {
  /** Entries written at or after (ms). */
  since?: number;
  /** Entries written at or before (ms). */
  until?: number;
  app?: string;
  tool?: string;
  /** Who moved the gate: a Slack user id, `policy:<rule>`, an API key or replica. */
  decider?: string;
  /** From `nextCursor` of an earlier export: the entries after it. */
  cursor?: string;
  /** Entries at most; then a cursor line. */
  limit: number;
}

/** Entries read per store call. */
const PAGE = 500;

/** What a line says of itself, for the filters. */
interface LineFacts {
  app?: string;
  tool?: string;
  actor: string;
}

export async function* auditExportLines(
  store: { audit: Pick<AuditLog, 'readAuditPage'> },
  query: AuditQuery,
  /** The apps the reader may see (an API key's scope); absent: all. */
  mayRead: (app: string | undefined) => boolean = () => true,
): AsyncGenerator<string> {
  const { since, until, app, tool, decider, cursor } = query;
  yield JSON.stringify({
    kind: AUDIT_EXPORT_KIND,
    v: 1,
    ...(since === undefined ? {} : { since }),
    ...(until === undefined ? {} : { until }),
    ...(cursor === undefined ? {} : { cursor }),
    filters: {
      ...(app === undefined ? {} : { app }),
      ...(tool === undefined ? {} : { tool }),
      ...(decider === undefined ? {} : { decider }),
    },
  });
  let after = cursor;
  let sent = 0;
  for (;;) {
    const page = await store.audit.readAuditPage({
      ...(after === undefined && since !== undefined ? { since } : {}),
      ...(until === undefined ? {} : { until }),
      ...(after === undefined ? {} : { after }),
      limit: PAGE,
    });
    for (const entry of page) {
      after = entry.id;
      const line = entry.line ?? legacyLine(entry);
      const facts = factsOf(line, entry);
      if (!mayRead(facts.app)) continue;
      if (app !== undefined && facts.app !== app) continue;
      if (tool !== undefined && facts.tool !== tool) continue;
      if (decider !== undefined && facts.actor !== decider) continue;
      yield line;
      sent += 1;
      if (sent >= query.limit) {
        yield JSON.stringify({ kind: AUDIT_CURSOR_KIND, nextCursor: after });
        return;
      }
    }
    if (page.length < PAGE) return;
  }
}

/** An entry written before the chain existed: its plain fields, marked as unverifiable. */
function legacyLine(entry: AuditEntry): string {
  const { id: _, line: __, ...fields } = entry;
  return JSON.stringify({ legacy: true, ...fields });
}

function factsOf(line: string, entry: AuditEntry): LineFacts {
  const json = parseJsonText(line);
  const value = json.ok ? json.value : undefined;
  const what = isRecord(value) ? value.what : undefined;
  const record = isRecord(what) ? what : undefined;
  const app = typeof record?.app === 'string' ? record.app : undefined;
  const tool = typeof record?.tool === 'string' ? record.tool : undefined;
  return {
    actor: entry.actor,
    ...(app === undefined ? {} : { app }),
    ...(tool === undefined ? {} : { tool }),
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
