import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { parseAuditQuery } from '../api/audit-query.js';
import { type AuditQuery, auditExportLines } from '../approvals/audit-export.js';
import { AuditVerifier } from '../approvals/audit-verify.js';
import type { AuditLog } from '../approvals/store-roles/audit-log.js';
import { errorMessage } from '../error-message.js';
import { markNpmBanner } from './npm-banner.js';
import type { CliOutput } from './policy-cli.js';

/**
 * The audit trail for auditors: `export` writes it as NDJSON (the same lines as
 * `GET /v1/audit`, read from the store directly), `verify` checks such a file with SHA-256
 * alone and names the first broken line. Returns the exit code: 0 fine, 1 broken, 2 usage (or
 * no store to export from).
 */

const USAGE = [
  'usage: audit export [--since 7d|<ISO time>|<ms>] [--until …] [--app A] [--tool T] [--decider D] [--limit N] > audit.jsonl',
  '       audit verify audit.jsonl',
].join('\n');

const UNIT_MS: Record<string, number> = { d: 86_400_000, h: 3_600_000, m: 60_000 };

export interface AuditCliDeps extends CliOutput {
  /**
   * The store to export from, opened on demand (export only); closed by the caller. Throws an
   * `AuditStoreError` when there is none to open, with what to set.
   */
  store: () => Promise<{ audit: Pick<AuditLog, 'readAuditPage'> }>;
  now: () => number;
}

/** No store to export from: the message says which variables to set. */
export class AuditStoreError extends Error {
  override readonly name = 'AuditStoreError';
}

export async function runAuditCli(argv: readonly string[], deps: AuditCliDeps): Promise<number> {
  const [command, ...rest] = argv;
  if (command === 'verify' && rest.length === 1 && rest[0] !== undefined) {
    return verify(rest[0], deps);
  }
  if (command === 'export') return exportAudit(rest, deps);
  deps.err(USAGE);
  return 2;
}

async function exportAudit(args: readonly string[], deps: AuditCliDeps): Promise<number> {
  let values: Record<string, string | undefined>;
  try {
    values = parseArgs({
      args: [...args],
      options: {
        since: { type: 'string' },
        until: { type: 'string' },
        app: { type: 'string' },
        tool: { type: 'string' },
        decider: { type: 'string' },
        limit: { type: 'string' },
      },
      strict: true,
    }).values;
  } catch (error) {
    deps.err(`${error instanceof Error ? error.message : String(error)}\n${USAGE}`);
    return 2;
  }
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(values)) {
    if (value === undefined) continue;
    search.set(name, name === 'since' || name === 'until' ? instantOf(value, deps.now()) : value);
  }
  const parsed = parseAuditQuery(search);
  if (!parsed.ok) {
    for (const problem of parsed.problems) deps.err(`--${problem}`);
    return 2;
  }
  const query: AuditQuery = {
    ...parsed.query,
    limit: values.limit === undefined ? Number.MAX_SAFE_INTEGER : parsed.query.limit,
  };
  let store: { audit: Pick<AuditLog, 'readAuditPage'> };
  try {
    store = await deps.store();
  } catch (error) {
    deps.err(`cannot export: ${errorMessage(error)}`);
    return error instanceof AuditStoreError ? 2 : 1;
  }
  try {
    for await (const line of auditExportLines(store, query)) deps.out(line);
  } catch (error) {
    // What was written so far is a valid prefix, but not the whole trail: say so, exit 1.
    deps.err(`the export stopped before its end: ${errorMessage(error)}`);
    return 1;
  }
  return 0;
}

/** `7d`, `24h`, `30m` before now, as Unix ms; anything else is passed on as written. */
function instantOf(text: string, now: number): string {
  const relative = /^(\d+)([dhm])$/.exec(text);
  if (relative?.[1] === undefined || relative[2] === undefined) return text;
  return String(now - Number(relative[1]) * (UNIT_MS[relative[2]] ?? 0));
}

async function verify(file: string, deps: AuditCliDeps): Promise<number> {
  const verifier = new AuditVerifier();
  let bannerLines = 0;
  try {
    const lines = createInterface({
      input: createReadStream(file),
      crlfDelay: Number.POSITIVE_INFINITY,
    });
    for await (const { line, banner } of markNpmBanner(lines)) {
      if (banner) {
        bannerLines += 1;
        verifier.skip();
      } else verifier.add(line);
    }
  } catch (error) {
    deps.err(`${file}: ${error instanceof Error ? error.message : String(error)}`);
    return 2;
  }
  const verdict = verifier.result();
  if (!verdict.ok) {
    deps.err(`${file}:${verdict.line}: ${verdict.problem}`);
    return 1;
  }
  const notes = [
    `${verdict.entries} entries of ${verdict.pauses} pauses`,
    verdict.linksChecked
      ? 'every line matches its hash and follows the line before it in its pause'
      : 'every line matches its hash (filtered by tool or decider: gaps between lines are not checked)',
    ...(verdict.anchors.length === 0
      ? []
      : [
          `${verdict.anchors.length} pauses start before the export's range (lines ${verdict.anchors.slice(0, 10).join(', ')}${verdict.anchors.length > 10 ? ', …' : ''})`,
        ]),
    ...(verdict.unchained === 0
      ? []
      : [`${verdict.unchained} entries written before the chain: not verifiable`]),
    ...(bannerLines === 0
      ? []
      : [
          `lines 1 to ${bannerLines} are npm's run-script banner, not the export (\`npx adk-slack-approvals audit export\` writes the export alone)`,
        ]),
  ];
  deps.out(`OK ${file}: ${notes.join('; ')}`);
  return 0;
}
