import {
  isRunEnd,
  type RunRecord,
  type RunRoot,
  type RunStatus,
  type RunStatusStore,
  type RunThreadRef,
} from '../approvals/run-status.js';
import { errorMessage } from '../error-message.js';
import type { Log } from '../log.js';
import { runStatusBlock } from '../slack/render/run-status-line.js';
import { renderThreadRoot } from '../slack/render/thread.js';
import type { SlackPort } from '../slack/transport/port.js';
import type { CriticalPath } from './critical-path.js';

/** A run's thread as the status board names it; undefined for output outside any thread. */
export function runThreadOf(thread: {
  channelId: string;
  threadTs?: string | undefined;
}): RunThreadRef | undefined {
  return thread.threadTs === undefined
    ? undefined
    : { channelId: thread.channelId, threadTs: thread.threadTs };
}

/**
 * Keeps a run's root message saying where the run stands (⏳ waiting, ✅ done, ✖ rejected, …).
 * The status is written to the store, then the root is redrawn from the store with chat.update,
 * off the critical path: callers never wait, and a Slack or store failure is logged, never
 * thrown. Updates to one root are coalesced: while one is in flight, later statuses only mark it
 * dirty, and one more redraw from the latest stored status follows.
 */
export class RunStatusBoard {
  private readonly inFlight = new Map<string, { dirty: boolean; done: Promise<void> }>();

  constructor(
    private readonly deps: {
      runs: RunStatusStore;
      slack: Pick<SlackPort, 'updateMessage' | 'getPermalink'>;
      log: Log;
      /** A root's redraw waits for its quiet; later statuses meanwhile merge. */
      criticalPath?: Pick<CriticalPath, 'quiet'>;
    },
  ) {}

  /** A run's root was posted: remember what it says. Awaited: later statuses need it. */
  async begin(thread: RunThreadRef, root: RunRoot): Promise<void> {
    try {
      await this.deps.runs.saveRoot(thread, root);
    } catch (error) {
      this.deps.log.warn('could not save a run root', { error: errorMessage(error) });
    }
  }

  /** Records the status and redraws the root, in the background. */
  set(thread: RunThreadRef, status: RunStatus): void {
    void this.record(thread, status);
  }

  /** Waits for every redraw in flight (tests, shutdown). */
  async settle(): Promise<void> {
    while (this.inFlight.size > 0)
      await Promise.all([...this.inFlight.values()].map((u) => u.done));
  }

  private async record(thread: RunThreadRef, status: RunStatus): Promise<void> {
    let written: RunRecord | undefined;
    try {
      written = await this.deps.runs.setStatus(thread, status);
    } catch (error) {
      this.deps.log.warn('could not record a run status', { error: errorMessage(error) });
      return;
    }
    if (written === undefined) return;
    const key = `${thread.channelId}:${thread.threadTs}`;
    const running = this.inFlight.get(key);
    if (running !== undefined) {
      running.dirty = true;
      return;
    }
    const update = { dirty: false, done: Promise.resolve() };
    update.done = (async () => {
      try {
        await this.deps.criticalPath?.quiet();
        // A run's end is drawn as this write answered it, unless a later status came here
        // meanwhile: nothing else follows it in the run. Otherwise (another replica may have
        // moved the run on while this one waited) the stored record, read again.
        let known = update.dirty || !isRunEnd(status) ? undefined : written;
        do {
          update.dirty = false;
          await this.redraw(thread, known);
          known = undefined;
        } while (update.dirty);
      } finally {
        this.inFlight.delete(key);
      }
    })();
    this.inFlight.set(key, update);
    await update.done;
  }

  private async redraw(thread: RunThreadRef, known: RunRecord | undefined): Promise<void> {
    const { runs, slack, log } = this.deps;
    try {
      const run = known ?? (await runs.read(thread));
      if (run === undefined) return;
      const card = run.status.kind === 'waiting' ? run.status.card : undefined;
      const cardLink =
        card === undefined
          ? undefined
          : await slack
              .getPermalink({
                channel: card.channelId,
                ts: card.ts,
                // A card in the run's own channel is a reply in its thread (`PauseRecorder`).
                ...(card.channelId === thread.channelId ? { threadTs: thread.threadTs } : {}),
              })
              .catch(() => undefined);
      await slack.updateMessage({
        channel: thread.channelId,
        ts: thread.threadTs,
        ...renderThreadRoot(run.root, runStatusBlock(run.status, cardLink)),
      });
    } catch (error) {
      log.warn('could not update a run root', {
        channel: thread.channelId,
        error: errorMessage(error),
      });
    }
  }
}
