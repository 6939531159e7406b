import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The fenced code blocks of README.md and docs/*.md, and what the docs test does with each.
 *
 * Unmarked, a block is run by its language:
 * - `sh` (`bash`, `shell`): run as written by bash (`-euo pipefail`) in a fresh shell at the
 *   repository's root, as a reader pastes it into a terminal there;
 * - a code or data block whose first line is a comment naming a file under `~/` (`// ~/x/y.ts`,
 *   `# ~/x/agent.py`): saved there, for a later `sh` block to run.
 * Anything else needs a marker, an HTML comment on the line before it, which says what happens:
 * - `<!-- docs-test: not run: <why> -->`: a block not meant to be run (a Kubernetes manifest, a
 *   response's shape), with the reason;
 * - `<!-- docs-test: keeps running; ready when <url> answers -->`: an `sh` block that starts a
 *   server, left running (as in a second terminal) until the end of its section;
 * - `<!-- docs-test: typed in the sandbox as <person> in #<channel>; asks for approval -->` (or
 *   `; runs at once`): what a reader types in the Slack sandbox's composer; the test sends it
 *   there and waits for the run to be done, after a card in its thread (which Bob approves), or
 *   with none;
 * - `<!-- docs-test: checked as a policy file -->`: a YAML policy, checked as
 *   `npm run policy -- check` checks a file.
 * A block that is neither runnable nor marked is a finding: the docs test fails on it.
 */

export const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));

export type Plan =
  | { kind: 'shell' }
  | { kind: 'background'; readyUrl: string }
  | { kind: 'save'; path: string }
  | { kind: 'typed'; person: string; channel: string; asks: boolean }
  | { kind: 'policy' }
  | { kind: 'not-run'; reason: string }
  | { kind: 'unrunnable'; problem: string };

export interface DocBlock {
  /** Relative to the repository: `docs/plugins.md`. */
  document: string;
  /** Of the opening fence, 1-based. */
  line: number;
  /** The info string's first word: `sh`, `ts`, `python`, `yaml`… ('' for none). */
  language: string;
  text: string;
  /** The `#` or `##` heading the block is under: servers it starts live until the next one. */
  section: string;
  plan: Plan;
}

const SHELLS = new Set(['sh', 'bash', 'shell']);
const MARKER = /^<!--\s*docs-test:\s*(.*?)\s*-->$/;
const SAVED_AS = /^(?:\/\/|#)\s*(~\/\S+)\s*$/;

export function planOf(language: string, text: string, marker: string | undefined): Plan {
  if (marker === undefined) {
    if (SHELLS.has(language)) return { kind: 'shell' };
    const saved = SAVED_AS.exec(text.split('\n')[0] ?? '');
    if (saved?.[1] && language !== '') return { kind: 'save', path: saved[1] };
    return {
      kind: 'unrunnable',
      problem: `a ${language || 'plain'} block the test cannot run: name the file it is saved as on its first line (\`// ~/path\` or \`# ~/path\`), or mark it <!-- docs-test: not run: <why> -->`,
    };
  }
  const notRun = /^not run:\s*(.*)$/.exec(marker);
  if (notRun) {
    const reason = notRun[1] ?? '';
    return reason.length >= 10
      ? { kind: 'not-run', reason }
      : { kind: 'unrunnable', problem: 'a block not run must say why (10 characters or more)' };
  }
  const keepsRunning = /^keeps running; ready when (\S+) answers$/.exec(marker);
  if (keepsRunning?.[1] && SHELLS.has(language)) {
    return { kind: 'background', readyUrl: keepsRunning[1] };
  }
  const typed =
    /^typed in the sandbox as (\w+) in #([\w-]+); (asks for approval|runs at once)$/.exec(marker);
  if (typed?.[1] && typed[2]) {
    return {
      kind: 'typed',
      person: typed[1],
      channel: typed[2],
      asks: typed[3] === 'asks for approval',
    };
  }
  if (marker === 'checked as a policy file' && language === 'yaml') return { kind: 'policy' };
  return {
    kind: 'unrunnable',
    problem: `unknown docs-test marker for a ${language} block: ${marker}`,
  };
}

/** The blocks of one markdown text, in order. */
export function blocksOf(document: string, markdown: string): DocBlock[] {
  const lines = markdown.split('\n');
  const blocks: DocBlock[] = [];
  let section = '';
  let marker: string | undefined;
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index] ?? '';
    const heading = /^(#{1,2}) (.+)$/.exec(line);
    if (heading?.[2]) section = heading[2];
    const comment = MARKER.exec(line.trim());
    if (comment) {
      marker = comment[1] ?? '';
      continue;
    }
    const fence = /^(\s*)(`{3,})\s*(\S*)/.exec(line);
    if (!fence) {
      // A marker belongs to the block right after it (blank lines aside).
      if (line.trim() !== '') marker = undefined;
      continue;
    }
    const [, indent = '', ticks = '```', language = ''] = fence;
    const body: string[] = [];
    const start = index;
    for (index++; index < lines.length; index++) {
      const inner = lines[index] ?? '';
      if (inner.trim().startsWith(ticks) && inner.trim().replace(/`/g, '') === '') break;
      body.push(inner.startsWith(indent) ? inner.slice(indent.length) : inner);
    }
    const text = `${body.join('\n')}\n`;
    blocks.push({
      document,
      line: start + 1,
      language,
      text,
      section,
      plan: planOf(language, text, marker),
    });
    marker = undefined;
  }
  return blocks;
}

/** README.md and every docs/*.md: what a reader follows. */
export async function documents(): Promise<string[]> {
  const docs = (await readdir(join(REPO_ROOT, 'docs')))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`);
  return ['README.md', ...docs];
}

export async function allBlocks(): Promise<DocBlock[]> {
  const blocks: DocBlock[] = [];
  for (const document of await documents()) {
    blocks.push(...blocksOf(document, await readFile(join(REPO_ROOT, document), 'utf8')));
  }
  return blocks;
}

export function where(block: DocBlock): string {
  return `${block.document}:${block.line}`;
}
