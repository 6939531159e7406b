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
  /** An open run already holds the dedupe key: it is joined, never a second one started. */
  | { kind: 'joined'; run: StartedRunRecord };

/**
 * The runs' store. `begin` is atomic on the dedupe key: two racing begins with the same key give
 * one `begun` and one `joined`. The key is released when the run ends.
 */
export interface StartedRuns {
  begin(run: StartedRunRecord): Promise<BeginRunResult>;
  read(id: string): Promise<StartedRunRecord | undefined>;
  /** Merges `change` into an open run; an ended run is left as it is. Returns the record after. */
  update(
    id: string,
    change: Partial<Omit<StartedRunRecord, 'id' | 'pauseIds'>>,
  ): Promise<StartedRunRecord | undefined>;
  addPause(id: string, pauseId: string): Promise<void>;
  /** The run a pause belongs to, if it was started here. */
  findByThread(channelId: string, threadTs: string): Promise<string | undefined>;
}
