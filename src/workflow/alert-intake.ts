import { createHash } from 'node:crypto';
import type { AlertTracks, AlertUpdate, RecordOutcome } from '../approvals/alert-tracks.js';
import type { Clock } from '../approvals/clock.js';
import type { AlertFacts } from '../approvals/runbooks/prompt-template.js';
import { type Runbook, type Runbooks, runbookFor } from '../approvals/runbooks/runbooks-file.js';
import type { StartedBy } from '../approvals/started-runs.js';
import type { Log } from '../log.js';
import type { RunStarts } from './api-runs.js';

/**
 * Alerts in, runs out: each alert of a notification is mapped by the runbooks file (first match
 * wins); the alerts of one group mapped to one runbook share a run, started or joined with the
 * dedupe key of that group and runbook. Every alert is then tracked by its fingerprint
 * (`AlertTracks`), which decides when the run is stood down (`AlertStandDowns`). Alerts no
 * runbook matches are counted in the answer and logged, never refused: a sender that gets an
 * error retries the same notification forever.
 */

/** One alert as a sender reported it, labels merged with its group's. */
export interface ReceivedAlert extends AlertFacts {
  /** When it resolved (ms); meaningful for a resolved alert only. */
  resolvedAt: number;
}

/** A notification: the alerts of one group, from one sender. */
export interface AlertNotice {
  /** `alertmanager`, or `webhook:<source>`. */
  source: string;
  /** The sender's group key (Alertmanager's `groupKey`). */
  group: string;
  /** Who started a run, as its thread root says (its `name`: the firing alert's `alertname`). */
  startedBy: Omit<StartedBy, 'name'>;
  alerts: readonly ReceivedAlert[];
}

/** What this needs of the API's runs. */
export type AlertRuns = Pick<RunStarts, 'start' | 'note'>;

/** One runbook's share of a notification, as the answer reports it. */
export type RunbookOutcome =
  | { runbook: string; alerts: number; run: 'started' | 'joined'; runId: string }
  | { runbook: string; alerts: number; run: 'none'; why: 'resolved_without_firing' }
  | { runbook: string; alerts: number; run: 'tracked'; runId: string; state: TrackState };

type TrackState = 'firing' | 'standing_down' | 'stood_down';

export type IntakeResult =
  | { kind: 'received'; runbooks: RunbookOutcome[]; unmatched: number }
  | { kind: 'forbidden'; runbook: string; app: string };

export class AlertIntake {
  constructor(
    private readonly deps: {
      runbooks: () => Runbooks;
      runs: AlertRuns;
      tracks: AlertTracks;
      clock: Clock;
      log: Log;
    },
  ) {}

  /** `mayStart`: whether the caller may start runs of this app (its API key's scope). */
  async receive(
    notice: AlertNotice,
    caller: { keyId: string; mayStart: (app: string) => boolean },
  ): Promise<IntakeResult> {
    const runbooks = this.deps.runbooks();
    const matched = new Map<Runbook, ReceivedAlert[]>();
    let unmatched = 0;
    for (const alert of notice.alerts) {
      const runbook = runbookFor(runbooks, alert);
      if (runbook === undefined) unmatched++;
      else matched.set(runbook, [...(matched.get(runbook) ?? []), alert]);
    }
    if (unmatched > 0) {
      this.deps.log.info('alerts: no runbook matches', {
        source: notice.source,
        alerts: unmatched,
        runbooks: runbooks.runbooks.length,
      });
    }
    // Checked for all before any run starts: a notification is taken whole or not at all.
    for (const runbook of matched.keys()) {
      if (!caller.mayStart(runbook.app)) {
        return { kind: 'forbidden', runbook: runbook.name, app: runbook.app };
      }
    }
    const outcomes: RunbookOutcome[] = [];
    for (const [runbook, alerts] of matched) {
      outcomes.push(await this.receiveFor(runbook, alerts, notice, caller.keyId));
    }
    return { kind: 'received', runbooks: outcomes, unmatched };
  }

  private async receiveFor(
    runbook: Runbook,
    alerts: readonly ReceivedAlert[],
    notice: AlertNotice,
    keyId: string,
  ): Promise<RunbookOutcome> {
    const group = dedupeKeyOf(notice, runbook);
    const updates = alerts.map(
      (alert): AlertUpdate =>
        alert.status === 'firing'
          ? { fingerprint: alert.fingerprint, status: 'firing' }
          : { fingerprint: alert.fingerprint, status: 'resolved', resolvedAt: alert.resolvedAt },
    );
    const record = (runId?: string) =>
      this.deps.tracks.record({
        group,
        ...(runId === undefined ? {} : { runId }),
        alerts: updates,
        standDownAfterMs: runbook.standDownAfterMs,
        now: this.deps.clock(),
      });
    const firing = alerts.find((alert) => alert.status === 'firing');
    const count = alerts.length;
    if (firing === undefined) {
      const outcome = await record();
      if (outcome.kind === 'no_run') {
        return {
          runbook: runbook.name,
          alerts: count,
          run: 'none',
          why: 'resolved_without_firing',
        };
      }
      await this.tell(outcome, runbook);
      return {
        runbook: runbook.name,
        alerts: count,
        run: 'tracked',
        runId: outcome.runId,
        state: stateOf(outcome),
      };
    }
    const { run, joined } = await this.deps.runs.start({
      app: runbook.app,
      prompt: runbook.prompt.fill(firing),
      channel: runbook.channel,
      startedBy: {
        ...notice.startedBy,
        ...(firing.labels.alertname ? { name: firing.labels.alertname.slice(0, 200) } : {}),
      },
      dedupeKey: group,
      source: 'alert',
      labels: { ...firing.labels },
      keyId,
    });
    // A firing alert is among them: the run is tied to the group, and nothing is due.
    await record(run.id);
    return {
      runbook: runbook.name,
      alerts: count,
      run: joined ? 'joined' : 'started',
      runId: run.id,
    };
  }

  /**
   * The run's thread hears when its alerts all resolved, and what happens next: once, not again
   * for a resolve the sender repeats.
   */
  private async tell(outcome: RecordOutcome, runbook: Runbook): Promise<void> {
    if (outcome.kind !== 'quiet' || !outcome.changed) return;
    await this.deps.runs.note(
      outcome.runId,
      `Every alert of this run has resolved; it stands down at ${new Date(outcome.standDownAt).toISOString()} (runbook ${runbook.name}: ${runbook.standDownAfterMs / 1000} s quiet) unless one fires again.`,
    );
  }
}

function stateOf(outcome: Exclude<RecordOutcome, { kind: 'no_run' }>): TrackState {
  switch (outcome.kind) {
    case 'firing':
      return 'firing';
    case 'quiet':
      return 'standing_down';
    case 'stood_down':
      return 'stood_down';
  }
}

/**
 * One run per sender, group and runbook. The group key is hashed: Alertmanager's is its route's
 * matchers and the group's labels, long and full of characters.
 */
export function dedupeKeyOf(
  notice: Pick<AlertNotice, 'source' | 'group'>,
  runbook: Pick<Runbook, 'name'>,
): string {
  const digest = createHash('sha256').update(notice.group).digest('hex').slice(0, 32);
  return `alert:${notice.source}:${runbook.name}:${digest}`;
}
