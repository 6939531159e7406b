import type { AlertTracks } from '../approvals/alert-tracks.js';
import type { Clock } from '../approvals/clock.js';
import { errorMessage } from '../error-message.js';
import type { Log } from '../log.js';
import type { RunStarts } from './api-runs.js';

/** Stand-downs claimed in one sweep, at most. */
const SWEEP_LIMIT = 100;
/** A stand-down that failed (Slack or ADK down) is tried again this much later. */
const RETRY_MS = 30_000;

/**
 * Runs whose alerts all resolved and stayed quiet for their runbook's grace: found by a sweep of
 * the due times in the store, so that any replica, or this one after a restart, stands them down.
 * Each is claimed once (`claimStandDown`) before it is carried out.
 */
export class AlertStandDowns {
  private timer: NodeJS.Timeout | undefined;
  private sweeping: Promise<void> = Promise.resolve();

  constructor(
    private readonly deps: {
      tracks: AlertTracks;
      runs: Pick<RunStarts, 'standDown'>;
      clock: Clock;
      log: Log;
      intervalMs: number;
    },
  ) {}

  start(): void {
    this.timer = setInterval(() => {
      this.sweeping = this.sweeping.then(() => this.sweep());
    }, this.deps.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
    await this.sweeping;
  }

  /** Stands down every run due now; never throws (a failure is logged and tried again). */
  async sweep(): Promise<void> {
    const { tracks, runs, clock, log } = this.deps;
    let due: string[];
    try {
      due = await tracks.due(clock(), SWEEP_LIMIT);
    } catch (error) {
      log.warn('alerts: cannot read the stand-downs due', { error: errorMessage(error) });
      return;
    }
    for (const runId of due) {
      try {
        const claim = await tracks.claimStandDown(runId, clock());
        if (claim.kind !== 'claimed') continue;
        log.info('alerts: standing down a run whose alerts resolved', { runId });
        try {
          await runs.standDown(runId, { kind: 'alert_resolved', at: claim.resolvedAt });
        } catch (error) {
          log.warn('alerts: a stand-down failed; trying again', {
            runId,
            error: errorMessage(error),
          });
          await tracks.rearm(runId, clock() + RETRY_MS);
        }
      } catch (error) {
        log.warn('alerts: cannot claim a stand-down', { runId, error: errorMessage(error) });
      }
    }
  }
}
