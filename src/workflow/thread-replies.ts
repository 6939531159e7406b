import type { PauseView } from '../approvals/records.js';
import type { PauseStore } from '../approvals/store-roles/pauses.js';
import { EVENT_ID_TTL_MS, type ThreadSessions } from '../approvals/thread-sessions.js';
import { correlationId } from '../correlation.js';
import type { Log } from '../log.js';
import { renderRunError } from '../slack/render/thread.js';
import {
  renderAgentBusy,
  renderAnswerCardFirst,
  renderMentionHelp,
  renderNotYourRun,
} from '../slack/render/thread-replies.js';
import { unescapeSlackText } from './agent-runs.js';
import { runErrorOf } from './run-errors.js';
import type { RunStreamer } from './run-streamer.js';
import type { RunThreads } from './run-thread.js';

/** A person's message as the Events API delivered it (bots, edits and deletions filtered out). */
export interface ThreadMessageInput {
  /** Slack's `event_id`: the same on every retry of one event. */
  eventId: string;
  /** `app_mention` when the message names the app; Slack sends a `message` event as well. */
  kind: 'message' | 'app_mention';
  teamId: string | undefined;
  channelId: string;
  userId: string;
  /** As Slack sent it (`&`, `<`, `>` escaped). */
  text: string;
  ts: string;
  /** The thread's root; absent for a top-level message. */
  threadTs: string | undefined;
}

export type ThreadMessageOutcome =
  | 'ignored'
  | 'duplicate'
  | 'continued'
  | 'refused_pending'
  | 'refused_busy'
  | 'refused_not_requester'
  | 'helped';

/**
 * Step 1 again, inside a run's thread: a reply from the person who started the run is the next
 * user message of the same ADK session, streamed back into the thread like the run itself (a
 * pause in it gets a card). While a pause of the session waits for people the reply is refused,
 * with a link to the card. Teammates talk in the thread freely; one who mentions the app there
 * hears, privately, whose run it is. A mention of the app anywhere else gets a short how-to.
 */
export class ThreadReplies {
  constructor(
    private readonly deps: {
      sessions: ThreadSessions;
      store: { pauses: Pick<PauseStore, 'getPause'> };
      threads: RunThreads;
      streamer: RunStreamer;
      log: Log;
    },
  ) {}

  async handle(input: ThreadMessageInput): Promise<ThreadMessageOutcome> {
    const { sessions, threads } = this.deps;
    const session =
      input.threadTs === undefined
        ? undefined
        : await sessions.find(input.channelId, input.threadTs);
    if (session === undefined) {
      if (input.kind === 'message') return 'ignored';
    } else if (input.userId === session.requester) {
      // The requester's `message` event carries the reply; its `app_mention` twin is skipped.
      if (input.kind === 'app_mention') return 'ignored';
    } else if (input.kind === 'message') {
      // Anyone else's message is people talking in the thread; only one that names the app
      // (its `app_mention`) is for the app, and is told whose run this is.
      return 'ignored';
    }
    if (!(await sessions.claimEvent(input.eventId, EVENT_ID_TTL_MS))) {
      this.deps.log.info('duplicate event ignored', { eventId: input.eventId });
      return 'duplicate';
    }
    if (session === undefined) {
      await threads.post(
        { channelId: input.channelId, threadTs: input.threadTs ?? input.ts },
        renderMentionHelp(),
      );
      return 'helped';
    }
    const thread = { channelId: session.channelId, threadTs: session.threadTs };
    const tell = (message: { text: string }) =>
      this.deps.threads.postEphemeral(thread, input.userId, message);
    if (input.userId !== session.requester) {
      await tell(renderNotYourRun(session.requester));
      return 'refused_not_requester';
    }
    const waiting = await this.waitingOn(session.lastPauseId);
    if (waiting !== undefined) {
      if (waiting.kind === 'busy') {
        await tell(renderAgentBusy());
        return 'refused_busy';
      }
      const card = waiting.view.pause.card;
      const link =
        card.ts === undefined
          ? undefined
          : await threads.permalink(card.channelId, card.ts, card.threadTs);
      await tell(renderAnswerCardFirst(link));
      return 'refused_pending';
    }

    this.deps.log.info('thread reply continues the run', {
      app: session.appName,
      sessionId: session.sessionId,
    });
    const outcome = await this.deps.streamer.stream(
      {
        appName: session.appName,
        userId: session.userId,
        sessionId: session.sessionId,
        requester: session.requester,
        teamId: session.teamId ?? input.teamId,
        thread,
      },
      {
        appName: session.appName,
        userId: session.userId,
        sessionId: session.sessionId,
        newMessage: { role: 'user', parts: [{ text: unescapeSlackText(input.text) }] },
      },
    );
    if (outcome.kind === 'failed') {
      await threads.post(thread, renderRunError(runErrorOf(outcome.error), correlationId()));
    }
    return 'continued';
  }

  /** A pause still being decided, or decided and not yet delivered to the agent. */
  private async waitingOn(
    pauseId: string | undefined,
  ): Promise<{ kind: 'pending'; view: PauseView } | { kind: 'busy' } | undefined> {
    if (pauseId === undefined) return undefined;
    const view = await this.deps.store.pauses.getPause(pauseId);
    if (view === undefined) return undefined;
    if (view.gates.some((gate) => gate.state === 'pending')) return { kind: 'pending', view };
    const resume = view.pause.resume.state;
    return resume === 'idle' || resume === 'resuming' ? { kind: 'busy' } : undefined;
  }
}
