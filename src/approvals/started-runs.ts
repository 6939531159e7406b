import { z } from 'zod';

/**
 * Runs started over the API (`POST /v1/runs`) or by an alert (issue 36): who or what started
 * them, where their thread is, and where they stand. Kept apart from the run thread's record
 * (`run-threads.ts`), which every run has; this one is what `GET /v1/runs/{id}` answers, what a
 * `dedupeKey` joins, and what cancel and stand-down close.
 */

export const STARTED_RUN_STATUSES = [
  'starting',
  'running',
  'waiting',
  'done',
  'failed',
  'cancelled',
  'stood_down',
] as const;
export type StartedRunStatus = (typeof STARTED_RUN_STATUSES)[number];

/** The statuses a run never leaves: its dedupe key is released when it reaches one. */
export const ENDED_RUN_STATUSES: ReadonlySet<StartedRunStatus> = new Set([
  'done',
  'failed',
  'cancelled',
  'stood_down',
]);

export const RUN_SOURCES = ['api', 'alert'] as const;
export type RunSource = (typeof RUN_SOURCES)[number];

/** Who or what started a run: an alert (its name), a webhook sender, or an API client. */
export const startedBySchema = z.strictObject({
  kind: z.enum(['alert', 'webhook', 'api']),
  id: z.string().min(1).max(200),
  name: z.string().min(1).max(200).optional(),
});
export type StartedBy = z.infer<typeof startedBySchema>;

export const startedRunSchema = z.object({
  id: z.string().min(1),
  app: z.string().min(1),
  channel: z.string().min(1),
  /** The thread root's ts; absent while the run is `starting`. */
  threadTs: z.string().min(1).optional(),
  sessionId: z.string().min(1).optional(),
  status: z.enum(STARTED_RUN_STATUSES),
  startedBy: startedBySchema,
  source: z.enum(RUN_SOURCES),
  labels: z.record(z.string(), z.string()).optional(),
  dedupeKey: z.string().min(1).optional(),
  /** The API key that started it, if one did: only that key reads it back. */
  keyId: z.string().min(1).optional(),
  /** The pauses the run met, oldest first. */
  pauseIds: z.array(z.string().min(1)),
  createdAt: z.number(),
  endedAt: z.number().optional(),
  /** Why it ended when it did not end by itself (cancelled by whom, stood down why, failed how). */
  reason: z.string().optional(),
});
export type StartedRunRecord = z.infer<typeof startedRunSchema>;

export type BeginRunResult =
  | { kind: 'begun'; run: StartedRunRecord }
  /**
   * An earlier run holds the dedupe key: it is joined if it is still open. One that ended without
   * releasing the key (a crash) is ended by the caller, which then begins again.
   */
  | { kind: 'held'; run: StartedRunRecord };

/** What `update` may change: where the run stands and where its thread and session are. */
export type StartedRunChange = Partial<
  Pick<StartedRunRecord, 'status' | 'threadTs' | 'sessionId' | 'endedAt' | 'reason'>
>;

/**
 * The runs' store. `begin` is atomic on the dedupe key (scoped by the API key and the app, see
 * `dedupeScopeOf`): of two racing begins with the same key one is `begun`, the other `held`.
 * The key is released when the run ends (`update` to an ended status) or by `release`.
 */
export interface StartedRuns {
  begin(run: StartedRunRecord): Promise<BeginRunResult>;
  read(id: string): Promise<StartedRunRecord | undefined>;
  /** Changes an open run; an ended run is left as it is. Returns the record after, if any. */
  update(id: string, change: StartedRunChange): Promise<StartedRunRecord | undefined>;
  addPause(id: string, pauseId: string): Promise<void>;
  /** Lets go of the run's dedupe key if it still names this run. */
  release(run: StartedRunRecord): Promise<void>;
  /** The run whose thread this is, if it was started here. */
  findByThread(channelId: string, threadTs: string): Promise<string | undefined>;
}

/** Runs are kept this long after their last change (and their dedupe key at most that long). */
export const STARTED_RUN_TTL_MS = 30 * 24 * 60 * 60 * 1000;

/**
 * Whose dedupe keys meet: the same key joins only runs of the same app started with the same API
 * key (or, started with none, by the same source), so that one client never joins, nor learns
 * of, another's run.
 */
export function dedupeScopeOf(
  run: Pick<StartedRunRecord, 'app' | 'dedupeKey' | 'keyId' | 'source'>,
): string | undefined {
  if (run.dedupeKey === undefined) return undefined;
  return JSON.stringify([run.keyId ?? `source:${run.source}`, run.app, run.dedupeKey]);
}

export function runEnded(run: Pick<StartedRunRecord, 'status'>): boolean {
  return ENDED_RUN_STATUSES.has(run.status);
}

/** The in-process twin, for a single instance without Redis. */
export class MemoryStartedRuns implements StartedRuns {
  private readonly runs = new Map<string, StartedRunRecord>();
  private readonly dedupe = new Map<string, string>();
  private readonly threads = new Map<string, string>();

  async begin(run: StartedRunRecord): Promise<BeginRunResult> {
    const scope = dedupeScopeOf(run);
    const holder = scope === undefined ? undefined : this.dedupe.get(scope);
    const held = holder === undefined ? undefined : this.runs.get(holder);
    if (held !== undefined) return { kind: 'held', run: structuredClone(held) };
    if (scope !== undefined) this.dedupe.set(scope, run.id);
    this.runs.set(run.id, structuredClone(run));
    if (run.threadTs !== undefined) this.threads.set(`${run.channel}:${run.threadTs}`, run.id);
    return { kind: 'begun', run: structuredClone(run) };
  }

  async read(id: string): Promise<StartedRunRecord | undefined> {
    const run = this.runs.get(id);
    return run && structuredClone(run);
  }

  async update(id: string, change: StartedRunChange): Promise<StartedRunRecord | undefined> {
    const run = this.runs.get(id);
    if (run === undefined) return undefined;
    if (!runEnded(run)) {
      Object.assign(run, structuredClone(change));
      if (change.threadTs !== undefined) this.threads.set(`${run.channel}:${run.threadTs}`, id);
      if (runEnded(run)) await this.release(run);
    }
    return structuredClone(run);
  }

  async addPause(id: string, pauseId: string): Promise<void> {
    const run = this.runs.get(id);
    if (run !== undefined && !run.pauseIds.includes(pauseId)) run.pauseIds.push(pauseId);
  }

  async release(run: StartedRunRecord): Promise<void> {
    const scope = dedupeScopeOf(run);
    if (scope !== undefined && this.dedupe.get(scope) === run.id) this.dedupe.delete(scope);
  }

  async findByThread(channelId: string, threadTs: string): Promise<string | undefined> {
    return this.threads.get(`${channelId}:${threadTs}`);
  }
}
