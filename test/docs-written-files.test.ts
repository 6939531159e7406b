import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * Files the documented commands write into the checkout (`… > audit.jsonl`; docs/plugins.md keeps
 * its API keys file under ~/approvals-demo)
 * hold secrets or people's decisions: git must ignore each, so that none is committed by
 * accident. Found in the README and docs/ as shell redirects to a relative path.
 */
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const DOCS = [
  'README.md',
  ...readdirSync(`${ROOT}docs`).flatMap((f) => (f.endsWith('.md') ? [`docs/${f}`] : [])),
];
const REDIRECT = /[^>]>\s*([A-Za-z0-9_][A-Za-z0-9_.-]*\.(?:ya?ml|jsonl?|txt))\b/g;

function writtenFiles(): string[] {
  const files = new Set<string>();
  for (const doc of DOCS) {
    for (const match of readFileSync(`${ROOT}${doc}`, 'utf8').matchAll(REDIRECT)) {
      if (match[1] !== undefined) files.add(match[1]);
    }
  }
  return [...files].sort();
}

function ignored(path: string): boolean {
  try {
    execFileSync('git', ['check-ignore', '--quiet', '--no-index', path], { cwd: ROOT });
    return true;
  } catch {
    return false;
  }
}

describe('files the documented commands write', () => {
  it('include the audit export of docs/audit.md', () => {
    expect(writtenFiles()).toEqual(expect.arrayContaining(['audit.jsonl']));
  });

  it.each(writtenFiles())('%s is ignored by git', (file) => {
    expect(ignored(file)).toBe(true);
  });
});
