import type { AdkClient } from '../adk/client.js';
import { AdkError } from '../adk/errors.js';
import type { RunRoot } from '../approvals/run-status.js';
import type { ThreadSessions } from '../approvals/thread-sessions.js';
import { correlationId } from '../correlation.js';
import { errorMessage } from '../error-message.js';
import type { Log } from '../log.js';
import { renderRunError, renderThreadRoot } from '../slack/render/thread.js';
import { runErrorOf } from './run-errors.js';
import type { RunStatusBoard } from './run-status-board.js';
import type { RunContext, RunStreamer } from './run-streamer.js';
import type { RunThreads, ThreadStart } from './run-thread.js';

/** Who a run is for and what it asks, once its thread exists. */
export interface LaunchInput {
  app: string;
  /** The ADK user id. */
  userId: string;
  /** Who the agent acts for: a Slack user id, or `api:<key>` for a run no person started. */
  requester: string;
  teamId: string | undefined;
  prompt: string;
  /** Told the session's id as soon as the ADK server gives it. */
  onSession?: (sessionId: string) => Promise<void>;
}

/** How the first stream of a run ended: it asked people (`waiting`), finished, or failed. */
export type LaunchOutcome = 'waiting' | 'done' | 'failed';

/**
 * The one way a run starts, whoever starts it (`/agent`, `POST /v1/runs`, an alert): its root
 * posted and remembered by the status board, an ADK session for its thread (saved, so replies in
 * the thread continue it), and its first stream into the thread.
 */
export class RunLauncher {
  constructor(
    private readonly deps: {
      adk: Pick<AdkClient, 'createSession'>;
      threads: RunThreads;
      sessions: ThreadSessions;
      streamer: RunStreamer;
      log: Log;
      runStatus?: RunStatusBoard;
    },
  ) {}

  /** Posts the root message: its ts names the thread. */
  open(channelId: string, root: RunRoot): Promise<ThreadStart> {
    return this.deps.threads.start(channelId, renderThreadRoot(root));
  }

  /** The status board learns the root, so that it can redraw it as the run moves. */
  async begin(thread: { channelId: string; threadTs: string }, root: RunRoot): Promise<void> {
    await this.deps.runStatus?.begin(thread, root);
  }

  async run(
    thread: { channelId: string; threadTs: string },
    input: LaunchInput,
  ): Promise<LaunchOutcome> {
    const { threads, log } = this.deps;
    const board = this.deps.runStatus;
    let sessionId: string;
    try {
      const session = await this.deps.adk.createSession(input.app, input.userId, {
        state: { slack: { channel: thread.channelId, thread: thread.threadTs } },
      });
      sessionId = session.id;
    } catch (error) {
      if (!(error instanceof AdkError)) throw error;
      log.error('could not create an ADK session', { app: input.app, error: error.message });
      board?.set(thread, { kind: 'failed' });
      await threads.post(thread, renderRunError(runErrorOf(error), correlationId()));
      return 'failed';
    }

    log.info('run started', { app: input.app, user: input.userId, sessionId });
    await input.onSession?.(sessionId);
    // The thread's record holds the session: replies continue it, and recovery replays it.
    try {
      await this.deps.sessions.save({
        channelId: thread.channelId,
        threadTs: thread.threadTs,
        appName: input.app,
        userId: input.userId,
        sessionId,
        requester: input.requester,
        ...(input.teamId === undefined ? {} : { teamId: input.teamId }),
      });
    } catch (error) {
      // The run itself does not need it; replies in its thread will go unanswered, and a crash
      // from here on is told as one before the agent started.
      log.error('could not remember the run thread; replies in it will be ignored', {
        sessionId,
        error: errorMessage(error),
      });
    }
    const context: RunContext = {
      appName: input.app,
      userId: input.userId,
      sessionId,
      requester: input.requester,
      teamId: input.teamId,
      thread,
      prompt: input.prompt,
    };
    const outcome = await this.deps.streamer.stream(context, {
      appName: input.app,
      userId: input.userId,
      sessionId,
      newMessage: { role: 'user', parts: [{ text: input.prompt }] },
    });
    if (outcome.kind === 'failed') {
      board?.set(thread, { kind: 'failed' });
      await threads.post(thread, renderRunError(runErrorOf(outcome.error), correlationId()));
      return 'failed';
    }
    if (outcome.pauses === 0) {
      board?.set(thread, { kind: 'done' });
      return 'done';
    }
    return 'waiting';
  }
}
