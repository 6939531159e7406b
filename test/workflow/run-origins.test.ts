import { describe, expect, it } from 'vitest';
import { MemoryStartedRuns, type StartedRunRecord } from '../../src/approvals/started-runs.js';
import { RunOrigins } from '../../src/workflow/run-origins.js';

function run(id: string, overrides: Partial<StartedRunRecord> = {}): StartedRunRecord {
  return {
    id,
    app: 'ops',
    channel: 'C0OPS',
    threadTs: '1.000100',
    status: 'running',
    startedBy: { kind: 'alert', id: 'fp' },
    source: 'alert',
    labels: { severity: 'page' },
    pauseIds: [],
    createdAt: 0,
    ...overrides,
  };
}

/** The started runs, counting the lookups made of them (each is a Redis read on Redis). */
function countingRuns() {
  const runs = new MemoryStartedRuns();
  const lookups = { findByThread: 0, read: 0 };
  return {
    runs,
    lookups,
    counted: {
      findByThread: (channelId: string, threadTs: string) => {
        lookups.findByThread += 1;
        return runs.findByThread(channelId, threadTs);
      },
      read: (id: string) => {
        lookups.read += 1;
        return runs.read(id);
      },
    },
  };
}

describe('RunOrigins', () => {
  it('reads a thread’s origin once for the pause, its click and its re-check', async () => {
    const { runs, lookups, counted } = countingRuns();
    await runs.begin(run('r1'));
    let now = 0;
    const origins = new RunOrigins(counted, () => now);
    const thread = { channelId: 'C0OPS', threadTs: '1.000100' };
    const pause = { runThread: thread, card: { channelId: 'C0OTHER' } };

    // Recorded, clicked, re-checked before the resume.
    expect(await origins.originOf(thread)).toEqual({
      source: 'alert',
      labels: { severity: 'page' },
    });
    expect(await origins.originOfPause(pause)).toEqual({
      source: 'alert',
      labels: { severity: 'page' },
    });
    now += 60_000;
    expect(await origins.originOfPause(pause)).toEqual({
      source: 'alert',
      labels: { severity: 'page' },
    });
    expect(lookups).toEqual({ findByThread: 1, read: 1 });

    // A thread no run was started in (a `/agent` run) is looked up once too.
    const slackThread = { channelId: 'C0OPS', threadTs: '2.000200' };
    expect(await origins.originOf(slackThread)).toBeUndefined();
    expect(await origins.originOf(slackThread)).toBeUndefined();
    expect(lookups).toEqual({ findByThread: 2, read: 1 });

    // Read again once the remembered answer is old.
    now += 60 * 60 * 1000;
    expect(await origins.originOf(thread)).toMatchObject({ source: 'alert' });
    expect(lookups).toEqual({ findByThread: 3, read: 2 });
  });

  it('keeps threads apart, and a card without a thread has no origin', async () => {
    const { runs, counted } = countingRuns();
    await runs.begin(run('r1'));
    await runs.begin(run('r2', { threadTs: '3.000300', source: 'api', labels: undefined }));
    const origins = new RunOrigins(counted, () => 0);
    expect(await origins.originOf({ channelId: 'C0OPS', threadTs: '1.000100' })).toMatchObject({
      source: 'alert',
    });
    expect(await origins.originOf({ channelId: 'C0OPS', threadTs: '3.000300' })).toEqual({
      source: 'api',
      labels: {},
    });
    expect(await origins.originOfPause({ card: { channelId: 'C0OPS' } })).toBeUndefined();
  });
});
