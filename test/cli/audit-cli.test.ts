import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AUDIT_EXPORT_KIND } from '../../src/approvals/audit-export.js';
import type { AuditLog } from '../../src/approvals/store-roles/audit-log.js';
import { AuditStoreError, runAuditCli } from '../../src/cli/audit-cli.js';
import { npmBannerLength } from '../../src/cli/npm-banner.js';
import { chain, exportHeader } from '../support/audit-lines.js';

/** An export of one pause of three lines, as `audit export` writes it. */
const exportLines = () => [exportHeader(), ...chain('p1', 3)];

/** What `npm run audit -- export > f` puts above the export (npm 10 and 11). */
const NPM_BANNER = [
  '',
  '> adk-slack-approvals@0.1.0 audit',
  '> node bin/adk-slack-approvals.js audit export',
  '',
];

type AuditStore = { audit: Pick<AuditLog, 'readAuditPage'> };

async function run(
  argv: string[],
  store: () => Promise<AuditStore> = async () => ({ audit: { readAuditPage: async () => [] } }),
) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runAuditCli(argv, {
    out: (line) => out.push(line),
    err: (line) => err.push(line),
    now: () => 0,
    store,
  });
  return { code, out, err };
}

async function file(lines: readonly string[]): Promise<string> {
  const path = join(await mkdtemp(join(tmpdir(), 'audit-cli-')), 'audit.jsonl');
  await writeFile(path, `${lines.join('\n')}\n`);
  return path;
}

describe('audit verify', () => {
  it("accepts an export that npm's run-script banner precedes, and says which lines it skipped", async () => {
    const { code, out, err } = await run(['verify', await file([...NPM_BANNER, ...exportLines()])]);
    expect(err).toEqual([]);
    expect(code).toBe(0);
    expect(out[0]).toMatch(/: 3 entries of 1 pauses;/);
    expect(out[0]).toContain("lines 1 to 4 are npm's run-script banner, not the export");
  });

  it('still names a line a banner does not explain, with line numbers of the file', async () => {
    const lines = [...NPM_BANNER, ...exportLines()];
    lines.splice(6, 0, '> adk-slack-approvals@0.1.0 audit');
    const path = await file(lines);
    const { code, err } = await run(['verify', path]);
    expect(code).toBe(1);
    expect(err).toEqual([`${path}:7: not a JSON line`]);
  });

  it('does not take other text at the top for a banner', async () => {
    const path = await file(['> not npm', ...exportLines()]);
    const { code, err } = await run(['verify', path]);
    expect(code).toBe(1);
    expect(err).toEqual([`${path}:1: not a JSON line`]);
  });
});

describe('npmBannerLength', () => {
  it('counts the blank lines, the two "> " lines and the blank line after them', () => {
    expect(npmBannerLength([...NPM_BANNER, '{}'])).toBe(4);
    expect(npmBannerLength(['{}'])).toBe(0);
    expect(npmBannerLength(['', '> x'])).toBe(0);
  });
});

describe('audit export', () => {
  it('without a store to read says what to set, with exit 2 and no exception', async () => {
    const { code, err } = await run(['export'], async () => {
      throw new AuditStoreError('set REDIS_URL');
    });
    expect(code).toBe(2);
    expect(err).toEqual(['cannot export: set REDIS_URL']);
  });

  it('a store that fails mid-way is reported on stderr with exit 1', async () => {
    const { code, out, err } = await run(['export'], async () => ({
      audit: {
        readAuditPage: async () => {
          throw new Error('Connection is closed.');
        },
      },
    }));
    expect(code).toBe(1);
    expect(out.map((line) => JSON.parse(line).kind)).toEqual([AUDIT_EXPORT_KIND]);
    expect(err).toEqual(['the export stopped before its end: Connection is closed.']);
  });
});
