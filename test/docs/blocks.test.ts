import { CHANNELS, PEOPLE } from '@adk-slack-approvals/slack-sandbox';
import { describe, expect, it } from 'vitest';
import { allBlocks, blocksOf, planOf, where } from './doc-blocks.js';

/**
 * Every code block in README.md and docs/ is either run by the docs test (`npm run test:docs`,
 * test/docs/docs.run.ts) or marked as not meant to be run, with the reason (test/docs/doc-blocks.ts
 * says how). This part reads the markdown only, so a plain `npm test` catches an unmarked block.
 */

const blocks = await allBlocks();

describe('the code blocks of README.md and docs/', () => {
  it('each is run by the docs test or marked, with a reason, as not meant to be run', () => {
    const unrunnable = blocks.flatMap((block) =>
      block.plan.kind === 'unrunnable' ? [`${where(block)}: ${block.plan.problem}`] : [],
    );
    expect(unrunnable).toEqual([]);
  });

  it('what a block is typed as, and by whom, exists in the sandbox', () => {
    const people = Object.keys(PEOPLE);
    const channels = Object.keys(CHANNELS);
    for (const block of blocks) {
      if (block.plan.kind !== 'typed') continue;
      expect(people, where(block)).toContain(block.plan.person);
      expect(channels, where(block)).toContain(block.plan.channel);
    }
  });

  it('the walk-throughs are run, not marked away', () => {
    const runs = (document: string) =>
      blocks.filter((block) => block.document === document && block.plan.kind !== 'not-run').length;
    // The quick start, the agents' how-tos and the try-it of agents elsewhere are runnable.
    expect(runs('README.md')).toBeGreaterThanOrEqual(2);
    expect(runs('docs/agents.md')).toBeGreaterThanOrEqual(6);
    expect(runs('docs/plugins.md')).toBeGreaterThanOrEqual(8);
    expect(runs('docs/policy.md')).toBeGreaterThanOrEqual(2);
  });
});

describe('how a block is read', () => {
  it('a shell block is run; a block naming its file on its first line is saved there', () => {
    expect(planOf('sh', 'npm start\n', undefined)).toEqual({ kind: 'shell' });
    expect(planOf('python', '# ~/agents/ops/agent.py\nx = 1\n', undefined)).toEqual({
      kind: 'save',
      path: '~/agents/ops/agent.py',
    });
    expect(planOf('ts', '// ~/runner/run.ts\n', undefined)).toEqual({
      kind: 'save',
      path: '~/runner/run.ts',
    });
  });

  it('an unmarked block of another kind, and a marker without a reason, are findings', () => {
    expect(planOf('json', '{}\n', undefined).kind).toBe('unrunnable');
    expect(planOf('yaml', 'a: 1\n', 'not run:').kind).toBe('unrunnable');
    expect(planOf('yaml', 'a: 1\n', 'skip this').kind).toBe('unrunnable');
    expect(planOf('yaml', 'a: 1\n', 'not run: needs a Kubernetes cluster')).toEqual({
      kind: 'not-run',
      reason: 'needs a Kubernetes cluster',
    });
  });

  it('a marker applies to the block right after it, and sections follow # and ## headings', () => {
    const parsed = blocksOf(
      'x.md',
      [
        '# Title',
        '<!-- docs-test: keeps running; ready when http://127.0.0.1:3000/readyz answers -->',
        '',
        '```sh',
        'npm start',
        '```',
        '## Next',
        '### Deeper',
        '```yaml',
        'a: 1',
        '```',
      ].join('\n'),
    );
    expect(parsed.map((block) => [block.line, block.section, block.plan.kind])).toEqual([
      [4, 'Title', 'background'],
      [9, 'Next', 'unrunnable'],
    ]);
  });
});
