import type { PauseRecord } from '../approvals/records.js';
import type { StartedRuns } from '../approvals/started-runs.js';
import type { ThreadRef } from './run-thread.js';

/** What a call met in a started run's thread carries into the policy. */
export interface RunOrigin {
  source: 'api' | 'alert';
  labels: Record<string, string>;
}

/**
 * Where a call was met, for the policy's `source` and `labels` (issue 36): a run started over
 * the API or by an alert, found by its thread. The same answer when the pause is recorded and
 * when a click is checked, so that both read the same rule.
 */
export class RunOrigins {
  constructor(private readonly runs: Pick<StartedRuns, 'findByThread' | 'read'>) {}

  async originOf(thread: ThreadRef): Promise<RunOrigin | undefined> {
    if (thread.threadTs === undefined) return undefined;
    const runId = await this.runs.findByThread(thread.channelId, thread.threadTs);
    const run = runId === undefined ? undefined : await this.runs.read(runId);
    return run && { source: run.source, labels: run.labels ?? {} };
  }

  /** A pause's run thread: where its run posted (the card may be elsewhere). */
  originOfPause(pause: Pick<PauseRecord, 'runThread' | 'card'>): Promise<RunOrigin | undefined> {
    return this.originOf(
      pause.runThread ?? {
        channelId: pause.card.channelId,
        ...(pause.card.threadTs === undefined ? {} : { threadTs: pause.card.threadTs }),
      },
    );
  }
}
