import type { AdkClient } from '../adk/client.js';
import { AdkError } from '../adk/errors.js';
import { type AdkEvent, USER_AUTHOR } from '../adk/wire.js';
import { API_ACTOR_PREFIX } from '../approvals/deciders.js';
import type { RunIntent } from '../approvals/store-roles/run-intents.js';
import type { ThreadSessions } from '../approvals/thread-sessions.js';
import { errorMessage } from '../error-message.js';
import type { Log } from '../log.js';
import { renderRunDied } from '../slack/render/thread.js';
import type { SlackPort } from '../slack/transport/port.js';
import type { ApiRuns } from './api-run-control.js';
import type { RunStreamer } from './run-streamer.js';
import type { RunThreads } from './run-thread.js';

/**
 * Runs whose replica died (their intent's lease lapsed): the requester is told what happened,
 * where they can see it. Before the thread existed: privately in the channel. Before the agent
 * started: in the thread. Once the ADK session exists, what the agent did is read back from it
 * and replayed into the thread; a request for approval it raised becomes a card (recording a
 * pause twice is a no-op, and a pause whose card exists posts none).
 */
export class RunRecovery {
  constructor(
    private readonly deps: {
      adk: Pick<AdkClient, 'getSession'>;
      slack: Pick<SlackPort, 'postEphemeral'>;
      threads: RunThreads;
      streamer: RunStreamer;
      /** The run threads' records: where a run's ADK session is once it exists. */
      sessions: Pick<ThreadSessions, 'find'>;
      /** Runs started over the API or by alerts: told that their thread was recovered. */
      startedRuns?: Pick<ApiRuns, 'recovered'>;
      log: Log;
    },
  ) {}

  /** Tells the requester of one dead run. Throws when it could not: the claim lapses and retries. */
  async recover(claimed: RunIntent): Promise<void> {
    const { log, threads } = this.deps;
    const intent = await this.withSession(claimed);
    log.warn('a run died with its replica; telling the requester', {
      runId: intent.id,
      stage:
        intent.threadTs === undefined
          ? 'before_thread'
          : intent.sessionId === undefined
            ? 'before_agent'
            : 'while_agent',
    });
    if (intent.threadTs === undefined) {
      // A run started over the API has nobody to tell privately: its start was never answered
      // (the answer waits for the thread), so its sender retries.
      if (intent.requester.startsWith(API_ACTOR_PREFIX)) return;
      await this.deps.slack.postEphemeral({
        channel: intent.channelId,
        user: intent.requester,
        ...renderRunDied({ stage: 'before_thread', text: intent.text }),
      });
      return;
    }
    const thread = { channelId: intent.channelId, threadTs: intent.threadTs };
    if (intent.sessionId === undefined || intent.appName === undefined) {
      await threads.post(thread, renderRunDied({ stage: 'before_agent' }));
      await this.deps.startedRuns?.recovered(thread, 0);
      return;
    }
    const events = await this.agentEvents(intent.appName, intent.requester, intent.sessionId);
    const { pauses } = await this.deps.streamer.replay(
      {
        appName: intent.appName,
        userId: intent.requester,
        sessionId: intent.sessionId,
        requester: intent.requester,
        teamId: intent.teamId,
        thread,
      },
      events,
    );
    await threads.post(thread, renderRunDied({ stage: 'while_agent', pauses }));
    await this.deps.startedRuns?.recovered(thread, pauses);
  }

  /**
   * The intent with its ADK session, from its thread's record. An intent recorded by a version
   * before the run thread record (issue 22) carries the session itself.
   */
  private async withSession(intent: RunIntent): Promise<RunIntent> {
    if (intent.threadTs === undefined || intent.sessionId !== undefined) return intent;
    const session = await this.deps.sessions.find(intent.channelId, intent.threadTs);
    if (session === undefined) return intent;
    return { ...intent, appName: session.appName, sessionId: session.sessionId };
  }

  /** What the agent did in the session (nothing when the session is gone). */
  private async agentEvents(
    appName: string,
    userId: string,
    sessionId: string,
  ): Promise<AdkEvent[]> {
    try {
      const session = await this.deps.adk.getSession(appName, userId, sessionId);
      return session.events.filter((event) => event.author !== USER_AUTHOR);
    } catch (error) {
      if (error instanceof AdkError && error.reason === 'http' && error.status === 404) return [];
      this.deps.log.warn('could not read the session of a dead run; trying again later', {
        sessionId,
        error: errorMessage(error),
      });
      throw error;
    }
  }
}
