import { describe, expect, it } from 'vitest';
import type { PauseView } from '../../src/approvals/records.js';
import { MemoryRunThreadRecords } from '../../src/approvals/run-threads.js';
import { createLog } from '../../src/log.js';
import type { SlackPort } from '../../src/slack/transport/port.js';
import { CardRefresher } from '../../src/workflow/card-refresher.js';
import type { ApprovalCards } from '../../src/workflow/cards.js';
import { CriticalPath } from '../../src/workflow/critical-path.js';
import { RunStatusBoard } from '../../src/workflow/run-status-board.js';
import { pauseView, vacationGate } from '../support/records.js';

const log = createLog('error', 'test', () => {});
const tick = () => new Promise((resolve) => setImmediate(resolve));

/** A vote is under way: redraws wait for it, and the changes meanwhile merge into one. */
describe('redraws while decisions are under way', () => {
  it('a card asked for twice meanwhile is rendered once, from the latest view', async () => {
    const path = new CriticalPath(60_000);
    const rendered: (PauseView | undefined)[] = [];
    const cards = {
      refresh: async (_pauseId: string, { known }: { known?: PauseView } = {}) => {
        rendered.push(known);
        return { kind: 'done' as const };
      },
    } as unknown as ApprovalCards;
    const refresher = new CardRefresher({ cards, log, criticalPath: path });
    const endVote = path.begin();
    const decided = pauseView([vacationGate()], { id: 'p-1' });
    const resumed = pauseView([vacationGate()], { id: 'p-1' });
    refresher.request('p-1', undefined, decided);
    await tick();
    expect(rendered).toEqual([]);
    refresher.request('p-1', undefined, resumed);
    endVote();
    await refresher.drain(5_000);
    expect(rendered).toHaveLength(1);
    expect(rendered[0]).toBe(resumed);
  });

  it("a run's end is drawn as its write answered it, with no read; a waiting run is read again after the quiet", async () => {
    const path = new CriticalPath(60_000);
    const runs = new MemoryRunThreadRecords();
    const thread = { channelId: 'C0OPS000001', threadTs: '1700000000.000100' };
    await runs.saveRoot(thread, { userId: 'U0ALICE0001', appName: 'payments', prompt: 'pay' });
    let reads = 0;
    const read = runs.read.bind(runs);
    runs.read = (at) => {
      reads += 1;
      return read(at);
    };
    const updates: string[] = [];
    const slack = {
      updateMessage: async (message: unknown) => {
        updates.push(JSON.stringify(message));
        return { ts: thread.threadTs };
      },
      getPermalink: async () => 'https://example.slack.com/archives/C0OPS000001/p1',
    } as unknown as Pick<SlackPort, 'updateMessage' | 'getPermalink'>;
    const board = new RunStatusBoard({ runs, slack, log, criticalPath: path });
    board.set(thread, { kind: 'done' });
    await tick();
    await board.settle();
    expect(reads).toBe(0);
    expect(updates).toHaveLength(1);
    expect(updates[0]).toContain('Done');

    // While this replica waits for the quiet, another moves the run on: the stored one is drawn.
    const endResume = path.begin();
    board.set(thread, { kind: 'waiting' });
    await tick();
    await runs.setStatus(thread, { kind: 'failed' });
    endResume();
    await board.settle();
    expect(reads).toBe(1);
    expect(updates).toHaveLength(2);
    expect(updates[1]).toContain('Failed');
  });

  it("a run's root set twice meanwhile is redrawn once, with the latest status", async () => {
    const path = new CriticalPath(60_000);
    const runs = new MemoryRunThreadRecords();
    const thread = { channelId: 'C0OPS000001', threadTs: '1700000000.000100' };
    await runs.saveRoot(thread, { userId: 'U0ALICE0001', appName: 'payments', prompt: 'pay' });
    const updates: string[] = [];
    const slack = {
      updateMessage: async (message: { text?: string }) => {
        updates.push(message.text ?? '');
        return { ts: thread.threadTs };
      },
      getPermalink: async () => 'https://example.slack.com/archives/C0OPS000001/p1',
    } as unknown as Pick<SlackPort, 'updateMessage' | 'getPermalink'>;
    const board = new RunStatusBoard({ runs, slack, log, criticalPath: path });
    const endResume = path.begin();
    board.set(thread, { kind: 'failed' });
    board.set(thread, { kind: 'done' });
    await tick();
    expect(updates).toEqual([]);
    endResume();
    await board.settle();
    expect(updates).toHaveLength(1);
    expect((await runs.read(thread))?.status).toEqual({ kind: 'done' });
  });
});
