import type { PauseRecord } from '../approvals/records.js';
import type { StartedRuns } from '../approvals/started-runs.js';
import type { ThreadRef } from './run-thread.js';

/** What a call met in a started run's thread carries into the policy. */
export interface RunOrigin {
  source: 'api' | 'alert';
  labels: Record<string, string>;
}

/** Threads whose origin is remembered, newest kept. */
const REMEMBERED_THREADS = 2_000;
/** How long an answer is reused: past a decision's click and resume, well within a run's life. */
const REMEMBER_MS = 15 * 60 * 1000;

/**
 * Where a call was met, for the policy's `source` and `labels` (issue 36): a run started over
 * the API or by an alert, found by its thread. The same answer when the pause is recorded and
 * when a click is checked, so that both read the same rule.
 *
 * Remembered per thread for a while: a thread's origin never changes once a call is met in it.
 * A started run is indexed by its thread (one root message, one run) before its agent runs, so
 * before any pause in that thread exists, and its source and labels are fixed when it begins; a
 * thread of no started run (a `/agent` run) never becomes one. So a decision's click, the
 * re-check before its resume and the App Home's listing read it from Redis once, not each time.
 */
export class RunOrigins {
  private readonly remembered = new Map<string, { origin: RunOrigin | undefined; at: number }>();

  constructor(
    private readonly runs: Pick<StartedRuns, 'findByThread' | 'read'>,
    private readonly clock: () => number = Date.now,
  ) {}

  async originOf(thread: ThreadRef): Promise<RunOrigin | undefined> {
    if (thread.threadTs === undefined) return undefined;
    const key = `${thread.channelId}/${thread.threadTs}`;
    const now = this.clock();
    const known = this.remembered.get(key);
    if (known !== undefined && now - known.at < REMEMBER_MS) return known.origin;
    const runId = await this.runs.findByThread(thread.channelId, thread.threadTs);
    const run = runId === undefined ? undefined : await this.runs.read(runId);
    const origin = run && { source: run.source, labels: run.labels ?? {} };
    this.remember(key, origin, now);
    return origin;
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

  private remember(key: string, origin: RunOrigin | undefined, at: number): void {
    this.remembered.delete(key);
    this.remembered.set(key, { origin, at });
    if (this.remembered.size <= REMEMBERED_THREADS) return;
    const oldest = this.remembered.keys().next();
    if (oldest.done !== true) this.remembered.delete(oldest.value);
  }
}
