import { z } from 'zod';

/**
 * Which ADK session a Slack thread is: written when `/agent` starts a run, read when someone
 * replies in the thread, so that the reply continues the same session, and when a run whose
 * replica died is recovered. Kept in the run thread's one record (`RunThreadRecords`). Also the
 * Events API's duplicate filter: Slack retries an event it thinks was not acknowledged, with the
 * same id.
 */
export const threadSessionSchema = z.object({
  channelId: z.string(),
  threadTs: z.string(),
  appName: z.string(),
  /** The ADK user id of the session (the Slack user who started the run). */
  userId: z.string(),
  sessionId: z.string(),
  requester: z.string(),
  teamId: z.string().optional(),
  /** The newest pause recorded in this session: a reply waits until it is answered. */
  lastPauseId: z.string().optional(),
});
export type ThreadSession = z.infer<typeof threadSessionSchema>;

export interface ThreadSessions {
  save(session: ThreadSession): Promise<void>;
  find(channelId: string, threadTs: string): Promise<ThreadSession | undefined>;
  /** Remembers the session's newest pause; no-op when the thread is unknown. */
  notePause(channelId: string, threadTs: string, pauseId: string): Promise<void>;
  /** True the first time an event id is seen within `ttlMs`; false for Slack's retries of it. */
  claimEvent(eventId: string, ttlMs: number): Promise<boolean>;
}

/** How long a thread stays continuable after its run started. */
export const THREAD_SESSION_TTL_MS = 30 * 24 * 60 * 60 * 1000;

/** Slack retries an event for about 5 minutes (three retries); keep its id a while longer. */
export const EVENT_ID_TTL_MS = 60 * 60 * 1000;
