import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));

/** docs/agents.md's "Which ADK agents work" table may only claim what a named test proves. */

const ROW = /^\| [^|]+\|[^|]+\| `(test\/[^`]+\.test\.ts)`: ([^|]+?)\s*\|$/;

/** The table's body rows: every line of the section's table but its head and rule. */
async function tableRows(): Promise<string[]> {
  const readme = await readFile(join(REPO_ROOT, 'docs', 'agents.md'), 'utf8');
  const start = readme.indexOf('## Which ADK agents work');
  const section = readme.slice(start, readme.indexOf('\n## ', start + 1));
  return section
    .split('\n')
    .filter((line) => line.startsWith('|'))
    .slice(2);
}

async function rows(): Promise<{ file: string; title: string }[]> {
  return (await tableRows()).flatMap((line) => {
    const match = ROW.exec(line);
    return match?.[1] && match[2] ? [{ file: match[1], title: match[2] }] : [];
  });
}

describe('docs/agents.md: which ADK agents work', () => {
  it('every row names a test that exists', async () => {
    const found = await rows();
    // A row that names no test claims what nothing proves.
    expect(found).toHaveLength((await tableRows()).length);
    expect(found.length).toBeGreaterThanOrEqual(13);
    for (const { file, title } of found) {
      const source = await readFile(join(REPO_ROOT, file), 'utf8');
      expect(source, `${file} has no test "${title}"`).toContain(title);
    }
  });
});
