import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseRunbooks } from '../../src/approvals/runbooks/runbooks-file.js';
import { runRunbooksCli } from '../../src/cli/runbooks-cli.js';

async function run(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runRunbooksCli(argv, { out: (l) => out.push(l), err: (l) => err.push(l) });
  return { code, out, err };
}

async function tempFile(text: string): Promise<string> {
  const path = join(await mkdtemp(join(tmpdir(), 'runbooks-cli-')), 'runbooks.yml');
  await writeFile(path, text);
  return path;
}

/** The runbooks file docs/runbooks.md shows, as a reader saves it (`# ~/runbooks.yml`). */
async function documentedRunbooks(): Promise<string> {
  const doc = await readFile(new URL('../../docs/runbooks.md', import.meta.url), 'utf8');
  const block = /```yaml\n(# ~\/runbooks\.yml\n[\s\S]*?)```/.exec(doc)?.[1];
  if (block === undefined) throw new Error('docs/runbooks.md shows no ~/runbooks.yml block');
  return block;
}

describe('runbooks check', () => {
  it('passes the runbooks file docs/runbooks.md shows, and names its runbooks and version', async () => {
    const text = await documentedRunbooks();
    expect(parseRunbooks(text, 'docs').runbooks.map((r) => r.name)).toEqual([
      'restart-stuck-consumer',
      'triage-everything-else',
    ]);
    const { code, out } = await run('check', await tempFile(text));
    expect(code).toBe(0);
    expect(out.at(-1)).toMatch(/^ok: .*runbooks\.yml \(2 runbooks, version [0-9a-f]{12}\)$/);
  });

  it('names each problem with its file:line:col and exits 1', async () => {
    const file = await tempFile(
      'runbooks:\n  - name: a\n    match: {}\n    app: ops\n    channel: C0OPS\n    prompt: "{{summary}}"\n',
    );
    const { code, err } = await run('check', file);
    expect(code).toBe(1);
    expect(err).toEqual([
      `${file}:6:13 runbooks[0].prompt: unknown placeholder {{summary}}: expected {{labels.<name>}}, {{annotations.<name>}}, {{status}} or {{fingerprint}}`,
    ]);
  });

  it('says how to use it when called otherwise, exit 2', async () => {
    expect((await run('lint', 'x.yml')).code).toBe(2);
    expect((await run('check')).err).toEqual(['usage: runbooks check <runbooks.yml>']);
  });
});
