import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));

/** The documents a reader follows links between: the README, docs/ and the packages' READMEs. */
async function documents(): Promise<string[]> {
  const docs = (await readdir(join(REPO_ROOT, 'docs')))
    .filter((name) => name.endsWith('.md'))
    .map((name) => join('docs', name));
  return ['README.md', 'clients/python/README.md', 'packages/slack-sandbox/README.md', ...docs];
}

/** Relative link targets in a markdown text (no URLs, no in-page anchors), without anchors. */
function relativeLinks(text: string): string[] {
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)]
    .map((match) => match[1] ?? '')
    .filter((target) => !/^(https?:|mailto:|#)/.test(target))
    .map((target) => target.split('#')[0] ?? target);
}

describe('documentation links', () => {
  it('every relative link in the README and docs/ points at a file that exists', async () => {
    const broken: string[] = [];
    for (const document of await documents()) {
      const text = await readFile(join(REPO_ROOT, document), 'utf8');
      for (const target of relativeLinks(text)) {
        if (!existsSync(join(REPO_ROOT, dirname(document), target))) {
          broken.push(`${document} → ${target}`);
        }
      }
    }
    expect(broken).toEqual([]);
  });

  it('the README stays short enough to read in five minutes', async () => {
    const readme = await readFile(join(REPO_ROOT, 'README.md'), 'utf8');
    expect(readme.split('\n').length).toBeLessThanOrEqual(250);
  });
});
