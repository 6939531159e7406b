/**
 * Which alerts keep a run started by an alert going. Each alert is tracked by its fingerprint,
 * never by its group's status: Alertmanager's root `status` says `firing` while some of the
 * group's alerts resolved (prometheus/alertmanager#1051). A run is stood down once every alert
 * tied to it is resolved and the latest resolve has stayed quiet for the runbook's grace period;
 * an alert that fires again inside it keeps the run (a flap, #2398). A resolve for an alert never
 * seen firing changes nothing (#878).
 *
 * The rules are the pure functions below; `MemoryAlertTracks` applies them in process and
 * `RedisAlertTracks` (`store/redis-alert-tracks.ts`) is their Lua twin, shared by replicas and
 * kept across restarts.
 */

export type AlertStatus = 'firing' | 'resolved';

/** One alert of a notification: `resolvedAt` is when it resolved (ms), for a resolved one. */
export type AlertUpdate =
  | { fingerprint: string; status: 'firing' }
  | { fingerprint: string; status: 'resolved'; resolvedAt: number };

/** What one fingerprint is known to be: firing, or resolved since `at`. */
export type TrackedAlert = { status: 'firing' } | { status: 'resolved'; at: number };

export type RecordOutcome =
  /** No run is tied to the group: a resolve with no firing before it. */
  | { kind: 'no_run' }
  /** The run was stood down already. */
  | { kind: 'stood_down'; runId: string }
  /** Some alert still fires: no stand-down is due. */
  | { kind: 'firing'; runId: string; firing: number }
  /**
   * Every alert resolved: the run is stood down at `standDownAt` unless one fires again.
   * `changed`: the run just went quiet, or its time moved (not a repeated resolve).
   */
  | { kind: 'quiet'; runId: string; standDownAt: number; changed: boolean };

export type ClaimOutcome =
  /** This caller stands the run down; `resolvedAt` is when its last alert resolved. */
  { kind: 'claimed'; resolvedAt: number } | { kind: 'not_due' };

export interface AlertTracks {
  /**
   * Applies a notification's alerts. With `runId`, the group (its dedupe key) is tied to that
   * run (a firing started or joined it); without, the run the group is tied to, if any.
   */
  record(input: {
    group: string;
    runId?: string;
    alerts: readonly AlertUpdate[];
    standDownAfterMs: number;
    now: number;
  }): Promise<RecordOutcome>;
  /** Runs whose stand-down is due at `now`, at most `limit`. */
  due(now: number, limit: number): Promise<string[]>;
  /** Claims a due stand-down once, whichever replica asks: the run is then marked stood down. */
  claimStandDown(runId: string, now: number): Promise<ClaimOutcome>;
  /** A claimed stand-down that could not be carried out: tried again at `at`. */
  rearm(runId: string, at: number): Promise<void>;
}

/** How long tracking outlives its last notification: far past any grace period. */
export const ALERT_TRACK_TTL_MS = 7 * 86_400_000;

/** The alerts' new states: a resolve for a fingerprint never seen firing is ignored. */
export function applyAlerts(
  tracked: ReadonlyMap<string, TrackedAlert>,
  alerts: readonly AlertUpdate[],
): Map<string, TrackedAlert> {
  const next = new Map(tracked);
  for (const alert of alerts) {
    if (alert.status === 'firing') next.set(alert.fingerprint, { status: 'firing' });
    // A repeated resolve keeps the first one's time: the quiet started then.
    else if (next.get(alert.fingerprint)?.status === 'firing') {
      next.set(alert.fingerprint, { status: 'resolved', at: alert.resolvedAt });
    }
  }
  return next;
}

/** Still firing, or quiet since the latest resolve; nothing tracked counts as firing (none). */
export function trackedState(
  tracked: ReadonlyMap<string, TrackedAlert>,
): { kind: 'firing'; firing: number } | { kind: 'quiet'; resolvedAt: number } {
  let firing = 0;
  let resolvedAt: number | undefined;
  for (const alert of tracked.values()) {
    if (alert.status === 'firing') firing++;
    else resolvedAt = Math.max(resolvedAt ?? alert.at, alert.at);
  }
  return firing > 0 || resolvedAt === undefined
    ? { kind: 'firing', firing }
    : { kind: 'quiet', resolvedAt };
}

interface MemoryRun {
  alerts: Map<string, TrackedAlert>;
  standDownAfterMs: number;
  stoodDown: boolean;
  dueAt: number | undefined;
}

/** The in-process twin, for an app without Redis (and tests of the rules). */
export class MemoryAlertTracks implements AlertTracks {
  private readonly runs = new Map<string, MemoryRun>();
  private readonly groups = new Map<string, string>();

  async record(input: Parameters<AlertTracks['record']>[0]): Promise<RecordOutcome> {
    const runId = input.runId ?? this.groups.get(input.group);
    if (runId === undefined) return { kind: 'no_run' };
    if (input.runId !== undefined) this.groups.set(input.group, runId);
    const run = this.runs.get(runId) ?? {
      alerts: new Map(),
      standDownAfterMs: input.standDownAfterMs,
      stoodDown: false,
      dueAt: undefined,
    };
    this.runs.set(runId, run);
    if (run.stoodDown) return { kind: 'stood_down', runId };
    run.alerts = applyAlerts(run.alerts, input.alerts);
    run.standDownAfterMs = input.standDownAfterMs;
    const state = trackedState(run.alerts);
    if (state.kind === 'firing') {
      run.dueAt = undefined;
      return { kind: 'firing', runId, firing: state.firing };
    }
    const due = state.resolvedAt + run.standDownAfterMs;
    const changed = run.dueAt !== due;
    run.dueAt = due;
    return { kind: 'quiet', runId, standDownAt: due, changed };
  }

  async due(now: number, limit: number): Promise<string[]> {
    return [...this.runs]
      .filter(([, run]) => run.dueAt !== undefined && run.dueAt <= now)
      .sort(([, a], [, b]) => (a.dueAt ?? 0) - (b.dueAt ?? 0))
      .slice(0, limit)
      .map(([runId]) => runId);
  }

  async claimStandDown(runId: string, now: number): Promise<ClaimOutcome> {
    const run = this.runs.get(runId);
    if (run === undefined || run.stoodDown) return { kind: 'not_due' };
    const state = trackedState(run.alerts);
    if (state.kind === 'firing' || state.resolvedAt + run.standDownAfterMs > now) {
      return { kind: 'not_due' };
    }
    run.stoodDown = true;
    run.dueAt = undefined;
    return { kind: 'claimed', resolvedAt: state.resolvedAt };
  }

  async rearm(runId: string, at: number): Promise<void> {
    const run = this.runs.get(runId);
    if (run === undefined) return;
    run.stoodDown = false;
    run.dueAt = at;
  }
}
