import { describe, expect, it } from 'vitest';
import { MemoryAlertTracks } from '../../src/approvals/alert-tracks.js';
import { parseRunbooks } from '../../src/approvals/runbooks/runbooks-file.js';
import { createLog } from '../../src/log.js';
import {
  AlertIntake,
  type AlertRuns,
  type ReceivedAlert,
} from '../../src/workflow/alert-intake.js';

/**
 * The intake's own lines in a run's thread: "every alert has resolved" is said once when the run
 * goes quiet, not again for each resolve a sender repeats (Alertmanager resends notifications).
 */
const RUNBOOKS = parseRunbooks(
  `runbooks:
  - name: restart
    match: { alertname: Stuck }
    app: ops
    channel: C0OPS000001
    prompt: "restart {{labels.service}}"
    standDownAfter: 1m
`,
  'runbooks.yml',
);

function alert(status: 'firing' | 'resolved', resolvedAt = 0): ReceivedAlert {
  return {
    status,
    fingerprint: 'fp-1',
    labels: { alertname: 'Stuck', service: 'web' },
    annotations: {},
    resolvedAt,
  };
}

describe('AlertIntake', () => {
  it('tells the run once that every alert resolved, not for a repeated resolve', async () => {
    const notes: string[] = [];
    const runs: AlertRuns = {
      async start(input) {
        return {
          run: {
            id: 'run-1',
            app: input.app,
            channel: input.channel,
            status: 'running',
            startedBy: input.startedBy,
            source: input.source,
            pauseIds: [],
            createdAt: 0,
          },
          joined: false,
        };
      },
      async note(_runId, text) {
        notes.push(text);
      },
    };
    let now = 1_000;
    const intake = new AlertIntake({
      runbooks: () => RUNBOOKS,
      runs,
      tracks: new MemoryAlertTracks(),
      clock: () => now,
      log: createLog('error', 'test', () => {}),
    });
    const caller = { keyId: 'alertmanager', mayStart: () => true };
    const notice = (a: ReceivedAlert) => ({
      source: 'alertmanager',
      group: '{}:{alertname="Stuck"}',
      startedBy: { kind: 'alert' as const, id: 'alertmanager' },
      alerts: [a],
    });

    await intake.receive(notice(alert('firing')), caller);
    now = 2_000;
    await intake.receive(notice(alert('resolved', 1_500)), caller);
    now = 3_000;
    await intake.receive(notice(alert('resolved', 1_500)), caller);

    const resolvedLines = notes.filter((text) => text.startsWith('Every alert of this run'));
    expect(resolvedLines).toHaveLength(1);
    expect(resolvedLines[0]).toContain(new Date(1_500 + 60_000).toISOString());
  });
});
