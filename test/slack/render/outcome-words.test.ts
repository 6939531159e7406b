import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { endedStatus } from '../../../src/approvals/run-status.js';
import { runStatusText } from '../../../src/slack/render/run-status-line.js';
import { renderDecisionsElsewhere } from '../../../src/slack/render/thread.js';
import { gateRecord, NOW, pauseView } from '../../support/records.js';

/**
 * One word for one fact across the run's root line and thread (issue 34): a policy's denial is
 * not a person's rejection, a withdrawal is not a decision the agent resumes from, and every
 * emoji the app writes is one the people's screens draw.
 */

const decided = (state: 'approved' | 'rejected' | 'withdrawn', by: string, index = 0) =>
  gateRecord({ index, state, decision: { by, at: NOW } });

describe("the run's root line", () => {
  it('says “Denied by policy” when only the policy said no, and “Rejected” when a person did', () => {
    const denied = endedStatus(pauseView([decided('rejected', 'policy:no-invoices')]));
    expect(denied).toEqual({ kind: 'denied' });
    expect(runStatusText(denied)).toBe(':no_entry: Denied by policy');
    const rejected = endedStatus(
      pauseView([decided('rejected', 'policy:no-invoices'), decided('rejected', 'UBOB', 1)]),
    );
    expect(runStatusText(rejected)).toBe(':x: Rejected');
  });
});

describe("the run's thread, when the card lives elsewhere", () => {
  it('says nothing more after a withdrawal: the withdrawal note said it, and nothing was decided', () => {
    const view = pauseView([decided('withdrawn', 'UALICE')], {
      runThread: { channelId: 'C0OPS', threadTs: '1.2' },
    });
    expect(renderDecisionsElsewhere(view)).toBeUndefined();
  });

  it('says nothing for a card in the run’s own thread: the card itself shows the decisions', () => {
    expect(renderDecisionsElsewhere(pauseView([decided('approved', 'UBOB')]))).toBeUndefined();
  });

  it('names a denial as the policy’s when the calls were decided there', () => {
    const view = pauseView(
      [decided('rejected', 'policy:no-invoices'), decided('approved', 'UBOB', 1)],
      {
        runThread: { channelId: 'C0OPS', threadTs: '1.2' },
      },
    );
    const text = JSON.stringify(renderDecisionsElsewhere(view));
    expect(text).toContain('Denied by policy rule');
    expect(text).not.toContain('Rejected');
  });
});

describe('emoji', () => {
  /** The shortcodes the local sandbox draws (its page's table); others show as `:name:`. */
  function sandboxEmoji(): Set<string> {
    const page = readFileSync('packages/slack-sandbox/src/page/emoji.js', 'utf8');
    const table = /const EMOJI = \{([\s\S]*?)\n\};/.exec(page)?.[1] ?? '';
    return new Set([...table.matchAll(/^\s*'?([a-z0-9_+-]+)'?:/gm)].map((match) => match[1] ?? ''));
  }

  function sources(dir: string): string[] {
    return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
      entry.isDirectory()
        ? sources(join(dir, entry.name))
        : entry.name.endsWith('.ts')
          ? [join(dir, entry.name)]
          : [],
    );
  }

  it('every shortcode the app writes is one the sandbox draws, so no screen shows a raw `:code:`', () => {
    const known = sandboxEmoji();
    expect(known.has('white_check_mark')).toBe(true);
    const used = new Set<string>();
    for (const file of sources('src')) {
      const text = readFileSync(file, 'utf8');
      for (const match of text.matchAll(/[`'" ]:([a-z][a-z0-9_+-]*):(?=[ `'"])/g)) {
        used.add(match[1] ?? '');
      }
    }
    expect(used.size).toBeGreaterThan(10);
    expect([...used].filter((name) => !known.has(name))).toEqual([]);
  });
});
