import type { HomeView, View } from '@slack/types';
import type { SlackMessage } from '../codecs/block-kit.js';
import type { MessageMetadata } from '../codecs/pause-metadata.js';

/**
 * The handful of Slack Web API calls the workflow makes. Only the app's wiring builds the
 * concrete client (`web-api-port.ts`); tests hand in the real one pointed at a local server.
 */
export interface SlackPort {
  /**
   * `signal`: aborted, the message is not sent if it has not been yet (it may wait its turn
   * behind Slack's rate limit for minutes): the call fails with `SlackCallError` code `aborted`.
   * `metadata`: Slack message metadata, for `findOwnMessage` to find the message again.
   */
  postMessage(
    input: SlackMessage & {
      channel: string;
      threadTs?: string;
      signal?: AbortSignal;
      metadata?: MessageMetadata;
    },
  ): Promise<{ channel: string; ts: string }>;
  /**
   * The ts of a message this app posted in `channel` (in the thread `threadTs`, or at its top
   * level) since `sinceMs`, whose metadata has `eventType` and every field of `payload`; the
   * newest first. Undefined when none (`conversations.history` / `.replies`).
   */
  findOwnMessage(input: OwnMessageQuery): Promise<string | undefined>;
  /** Fails at once, rather than wait, while Slack rate-limits updates in that channel. */
  updateMessage(input: SlackMessage & { channel: string; ts: string }): Promise<void>;
  postEphemeral(
    input: SlackMessage & { channel: string; user: string; threadTs?: string },
  ): Promise<void>;
  openView(input: { triggerId: string; view: View }): Promise<void>;
  /** Replaces an open modal (`views.update`), e.g. with what became of its submission. */
  updateView(input: { viewId: string; view: View }): Promise<void>;
  /** The person's App Home tab (`views.publish`); replaces what was there. */
  publishHome(input: { userId: string; view: HomeView }): Promise<void>;
  /** A link to a message (`chat.getPermalink`). */
  getPermalink(input: { channel: string; ts: string }): Promise<string>;
  /** The app's direct-message channel with one person (`conversations.open`, scope `im:write`). */
  openDirectMessage(user: string): Promise<string>;
}

export interface OwnMessageQuery {
  channel: string;
  threadTs?: string;
  sinceMs: number;
  eventType: string;
  payload: Record<string, string>;
}

/** A Slack Web API call that failed after the client's own retries; `code` is Slack's error. */
export class SlackCallError extends Error {
  override readonly name = 'SlackCallError';
  constructor(
    readonly method: string,
    readonly code: string,
    options?: ErrorOptions & {
      /** Rate limited (`code` is `ratelimited`): Slack asked to wait this long. */
      retryAfterMs?: number;
    },
  ) {
    super(`Slack ${method} failed: ${code}`, options);
    this.retryAfterMs = options?.retryAfterMs;
  }

  readonly retryAfterMs: number | undefined;
}
