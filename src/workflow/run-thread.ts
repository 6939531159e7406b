import { errorMessage } from '../error-message.js';
import type { Log } from '../log.js';
import type { SlackMessage } from '../slack/codecs/block-kit.js';
import { SlackCallError, type SlackPort } from '../slack/transport/port.js';

/** Where a run's output goes: a channel, and the thread in it (none: the channel itself). */
export interface ThreadRef {
  channelId: string;
  threadTs?: string;
}

export type ThreadStart =
  | { kind: 'started'; thread: { channelId: string; threadTs: string } }
  /** Slack refused the root message; `code` is Slack's error (e.g. `not_in_channel`). */
  | { kind: 'refused'; code: string };

/**
 * The one writer of runs' threads. Its rule: output to a thread never throws. A Slack outage
 * must not break off the agent's stream (closing it aborts the run on the ADK server), nor turn a
 * recorded decision into an error; the failure is logged, without the content.
 */
export class RunThreads {
  constructor(private readonly deps: { slack: SlackPort; log: Log }) {}

  /** Posts a run's root message; its `ts` names the thread everything else goes into. */
  async start(channelId: string, root: SlackMessage): Promise<ThreadStart> {
    try {
      const posted = await this.deps.slack.postMessage({ channel: channelId, ...root });
      return { kind: 'started', thread: { channelId: posted.channel, threadTs: posted.ts } };
    } catch (error) {
      if (!(error instanceof SlackCallError)) throw error;
      this.deps.log.warn('could not start the run thread', {
        channel: channelId,
        error: error.code,
      });
      return { kind: 'refused', code: error.code };
    }
  }

  /** A link to a message, or nothing when Slack will not give one (a link is a courtesy). */
  async permalink(channelId: string, ts: string): Promise<string | undefined> {
    try {
      return await this.deps.slack.getPermalink({ channel: channelId, ts });
    } catch (error) {
      this.deps.log.warn('could not get a permalink', {
        channel: channelId,
        error: errorMessage(error),
      });
      return undefined;
    }
  }

  /** A word to one person in the thread (ephemeral), e.g. why their reply was not passed on. */
  async postEphemeral(thread: ThreadRef, user: string, message: SlackMessage): Promise<void> {
    try {
      await this.deps.slack.postEphemeral({
        channel: thread.channelId,
        user,
        ...(thread.threadTs === undefined ? {} : { threadTs: thread.threadTs }),
        ...message,
      });
    } catch (error) {
      this.deps.log.warn('could not answer in the run thread', {
        channel: thread.channelId,
        error: errorMessage(error),
      });
    }
  }

  async post(thread: ThreadRef, message: SlackMessage): Promise<void> {
    try {
      await this.deps.slack.postMessage({
        channel: thread.channelId,
        ...(thread.threadTs === undefined ? {} : { threadTs: thread.threadTs }),
        ...message,
      });
    } catch (error) {
      this.deps.log.error('could not post to the run thread', {
        channel: thread.channelId,
        thread: thread.threadTs,
        error: errorMessage(error),
      });
    }
  }
}
