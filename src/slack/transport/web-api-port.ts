import { z } from 'zod';
import { errorMessage } from '../../error-message.js';
import { type Metrics, noMetrics, secondsSince } from '../../metrics.js';
import type { SlackMessage } from '../codecs/block-kit.js';
import { stripHiding } from '../codecs/escape.js';
import type { MessageMetadata } from '../codecs/pause-metadata.js';
import { visibleOnly } from '../codecs/visible-text.js';
import { type BotIdentity, parseBotIdentity, searchOwnMessage } from './own-message-search.js';
import { type OwnMessageQuery, SlackCallError, type SlackPort } from './port.js';
import { RateLimitLanes, RateLimitWindows } from './rate-limit-windows.js';
import type { SlackApiCaller } from './slack-http-client.js';

const postedSchema = z.object({ channel: z.string().min(1), ts: z.string().min(1) });
const openedSchema = z.object({ channel: z.object({ id: z.string().min(1) }) });
const permalinkSchema = z.object({ permalink: z.url({ protocol: /^https?$/ }) });

/** Slack's error code from a Web API client error (`data.error` on platform errors). */
const platformErrorSchema = z.object({ data: z.object({ error: z.string() }) });
/** What the client throws on a 429 when it is set to reject rate-limited calls. */
const rateLimitedSchema = z.object({
  code: z.literal('slack_webapi_rate_limited_error'),
  retryAfter: z.number().nonnegative(),
});

/**
 * Longest window of a channel's rate limit a message post waits out before it fails (its turn
 * behind other posts to the channel is not counted: each of those is a card or answer too). Posts
 * carry cards and the agent's answers, so they wait (in the background); updates never wait: the
 * card refresher renders the latest state once the window ends, and a wait would only hold a slot.
 */
const POST_MAX_WAIT_MS = 30_000;
const EPHEMERAL_MAX_WAIT_MS = 5_000;
/** A permalink only decorates a message: it is worth a short wait, never a long one. */
const PERMALINK_MAX_WAIT_MS = 2_000;
/** A search for a message posted before a crash stands between a pause and its card. */
const SEARCH_MAX_WAIT_MS = 5_000;
/**
 * Refusals a call takes in its lane before it fails. Each is a window Slack named, at most the
 * call's own limit; more in a row than this means another client is spending the channel's rate.
 */
const MAX_ATTEMPTS_IN_TURN = 5;

export interface WebApiSlackPortOptions {
  /**
   * A client set to reject rate-limited calls and to time out: the app's `SlackHttpClient`, or a
   * `WebClient` (Bolt's) set so.
   */
  client: SlackApiCaller;
  /**
   * A client of its own for `views.open`: a `trigger_id` lives 3 s, so a modal must never queue
   * behind other calls. Default: `client`.
   */
  modalClient?: SlackApiCaller;
  metrics?: Metrics;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

/**
 * The workflow's Slack port over a Web API client (Slack, or whatever `SLACK_API_URL` names).
 * Rate limits are kept per method and channel (`RateLimitWindows`), so that one busy channel
 * delays nothing elsewhere. Link and media unfurls stay off: cards carry untrusted text. Every
 * text object goes out without the characters that hide or reorder text (`visibleOnly`).
 */
export class WebApiSlackPort implements SlackPort {
  private readonly client: SlackApiCaller;
  private readonly modalClient: SlackApiCaller;
  private readonly metrics: Metrics;
  private readonly windows: RateLimitWindows;
  private readonly lanes = new RateLimitLanes();
  private readonly sleep: (ms: number) => Promise<void>;
  private identity: Promise<BotIdentity> | undefined;

  constructor(options: WebApiSlackPortOptions) {
    this.client = options.client;
    this.modalClient = options.modalClient ?? options.client;
    this.metrics = options.metrics ?? noMetrics;
    this.windows = new RateLimitWindows(options.now);
    this.sleep = options.sleep ?? defaultSleep;
  }

  async postMessage(
    input: SlackMessage & {
      channel: string;
      threadTs?: string;
      signal?: AbortSignal;
      metadata?: MessageMetadata;
    },
  ) {
    const response = await this.call(
      'chat.postMessage',
      input.channel,
      POST_MAX_WAIT_MS,
      () =>
        this.client.apiCall('chat.postMessage', {
          channel: input.channel,
          ...visibleMessage(input),
          ...(input.threadTs === undefined ? {} : { thread_ts: input.threadTs }),
          ...(input.metadata === undefined ? {} : { metadata: input.metadata }),
          unfurl_links: false,
          unfurl_media: false,
        }),
      input.signal,
    );
    const posted = postedSchema.safeParse(response);
    if (!posted.success) throw new SlackCallError('chat.postMessage', 'unexpected_response');
    return posted.data;
  }

  async updateMessage(input: SlackMessage & { channel: string; ts: string }): Promise<void> {
    await this.call('chat.update', input.channel, 0, () =>
      this.client.apiCall('chat.update', {
        channel: input.channel,
        ts: input.ts,
        ...visibleMessage(input),
      }),
    );
  }

  async postEphemeral(
    input: SlackMessage & { channel: string; user: string; threadTs?: string },
  ): Promise<void> {
    await this.call('chat.postEphemeral', input.channel, EPHEMERAL_MAX_WAIT_MS, () =>
      this.client.apiCall('chat.postEphemeral', {
        channel: input.channel,
        user: input.user,
        ...visibleMessage(input),
        ...(input.threadTs === undefined ? {} : { thread_ts: input.threadTs }),
      }),
    );
  }

  async openView(input: Parameters<SlackPort['openView']>[0]): Promise<void> {
    // Rate limits on views.open are per app and user, not per channel; the trigger is per user.
    await this.call('views.open', input.triggerId, 0, () =>
      this.modalClient.apiCall('views.open', {
        trigger_id: input.triggerId,
        view: visibleOnly(input.view),
      }),
    );
  }

  async updateView(input: Parameters<SlackPort['updateView']>[0]): Promise<void> {
    // Rate limits on views.update are per app (Tier 4); a view is one person's.
    await this.call('views.update', input.viewId, 0, () =>
      this.client.apiCall('views.update', { view_id: input.viewId, view: visibleOnly(input.view) }),
    );
  }

  async publishHome(input: Parameters<SlackPort['publishHome']>[0]): Promise<void> {
    // Rate limits on views.publish are per app and user (Tier 4).
    await this.call('views.publish', input.userId, 0, () =>
      this.client.apiCall('views.publish', {
        user_id: input.userId,
        view: visibleOnly(input.view),
      }),
    );
  }

  async getPermalink(input: { channel: string; ts: string }): Promise<string> {
    const response = await this.call(
      'chat.getPermalink',
      input.channel,
      PERMALINK_MAX_WAIT_MS,
      () =>
        this.client.apiCall('chat.getPermalink', { channel: input.channel, message_ts: input.ts }),
    );
    const parsed = permalinkSchema.safeParse(response);
    if (!parsed.success) throw new SlackCallError('chat.getPermalink', 'unexpected_response');
    return parsed.data.permalink;
  }

  async findOwnMessage(query: OwnMessageQuery): Promise<string | undefined> {
    const identity = await this.botIdentity();
    return searchOwnMessage(
      (method, args) =>
        this.call(method, query.channel, SEARCH_MAX_WAIT_MS, () =>
          // Each named as it is, so that the manifest's scope check sees both.
          method === 'conversations.history'
            ? this.client.apiCall('conversations.history', args)
            : this.client.apiCall('conversations.replies', args),
        ),
      identity,
      query,
    );
  }

  /** `auth.test`, once (again after a failure): whose messages are the app's own. */
  private botIdentity(): Promise<BotIdentity> {
    if (this.identity !== undefined) return this.identity;
    const asked = this.call('auth.test', '', SEARCH_MAX_WAIT_MS, () =>
      this.client.apiCall('auth.test', {}),
    ).then((answer) => {
      const identity = parseBotIdentity(answer);
      if (identity === undefined) throw new SlackCallError('auth.test', 'unexpected_response');
      return identity;
    });
    this.identity = asked;
    asked.catch(() => {
      if (this.identity === asked) this.identity = undefined;
    });
    return asked;
  }

  async openDirectMessage(user: string): Promise<string> {
    // Opening an existing DM returns it: calling this before every reminder is safe.
    const response = await this.call('conversations.open', user, POST_MAX_WAIT_MS, () =>
      this.client.apiCall('conversations.open', { users: user }),
    );
    const opened = openedSchema.safeParse(response);
    if (!opened.success) throw new SlackCallError('conversations.open', 'unexpected_response');
    return opened.data.channel.id;
  }

  /**
   * One call, kept within Slack's rate limit of this method and channel. A call fails at once with
   * `ratelimited` when the window it would wait for ends later than `maxWaitMs` from now (always,
   * with 0). Otherwise, once a call was refused (429), it and the calls after it take turns in the
   * channel's lane (`RateLimitLanes`), each waiting out the window Slack named before it goes.
   * An aborted `signal` stops the call before any request it has not sent yet.
   */
  private async call<T>(
    method: string,
    channel: string,
    maxWaitMs: number,
    request: () => Promise<T>,
    signal?: AbortSignal,
  ): Promise<T> {
    const remaining = this.windows.remainingMs(method, channel);
    if (remaining > maxWaitMs) {
      throw new SlackCallError(method, 'ratelimited', { retryAfterMs: remaining });
    }
    if (remaining === 0 && (maxWaitMs === 0 || !this.lanes.busy(method, channel))) {
      throwIfAborted(method, signal);
      const first = await this.attempt(method, channel, request);
      if (first.kind === 'answered') return first.response;
      if (first.retryAfterMs > maxWaitMs) {
        throw new SlackCallError(method, 'ratelimited', {
          cause: first.error,
          retryAfterMs: first.retryAfterMs,
        });
      }
    }
    return this.lanes.run(method, channel, () =>
      this.inTurn(method, channel, maxWaitMs, request, signal),
    );
  }

  /** A call's turn in its lane: wait the window, call, and again while Slack still refuses. */
  private async inTurn<T>(
    method: string,
    channel: string,
    maxWaitMs: number,
    request: () => Promise<T>,
    signal: AbortSignal | undefined,
  ): Promise<T> {
    let refused: unknown;
    for (let attempt = 0; attempt < MAX_ATTEMPTS_IN_TURN; attempt += 1) {
      const remaining = this.windows.remainingMs(method, channel);
      if (remaining > maxWaitMs) {
        throw new SlackCallError(method, 'ratelimited', {
          cause: refused,
          retryAfterMs: remaining,
        });
      }
      if (remaining > 0) {
        this.metrics.rateLimited(method, remaining / 1_000);
        await this.sleep(remaining);
      }
      throwIfAborted(method, signal);
      const outcome = await this.attempt(method, channel, request);
      if (outcome.kind === 'answered') return outcome.response;
      refused = outcome.error;
    }
    throw new SlackCallError(method, 'ratelimited', {
      cause: refused,
      retryAfterMs: this.windows.remainingMs(method, channel),
    });
  }

  /** One request: its answer, or Slack's 429 (whose window is noted); other errors throw. */
  private async attempt<T>(
    method: string,
    channel: string,
    request: () => Promise<T>,
  ): Promise<
    | { kind: 'answered'; response: T }
    | { kind: 'ratelimited'; retryAfterMs: number; error: unknown }
  > {
    const started = performance.now();
    try {
      const response = await request();
      this.metrics.externalCall('slack', method, secondsSince(started), undefined);
      return { kind: 'answered', response };
    } catch (error) {
      const limited = rateLimitedSchema.safeParse(error);
      if (limited.success) {
        this.metrics.externalCall('slack', method, secondsSince(started), 'ratelimited');
        const retryAfterMs = limited.data.retryAfter * 1_000;
        this.windows.note(method, channel, retryAfterMs);
        return { kind: 'ratelimited', retryAfterMs, error };
      }
      const platform = platformErrorSchema.safeParse(error);
      // Slack's codes are a fixed vocabulary; anything else (network, timeout) is one code, so
      // that an error text never becomes a metric label.
      const code = platform.success ? platform.data.data.error : 'request_failed';
      this.metrics.externalCall('slack', method, secondsSince(started), code);
      throw new SlackCallError(method, platform.success ? code : errorMessage(error), {
        cause: error,
      });
    }
  }
}

/** The caller gave up on a call not sent yet: it is not sent. */
function throwIfAborted(method: string, signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new SlackCallError(method, 'aborted', { cause: signal.reason });
}

/** A message's text and blocks as they go out: without characters that hide text. */
function visibleMessage(message: SlackMessage): { text: string; blocks?: unknown } {
  return {
    text: stripHiding(message.text),
    ...(message.blocks === undefined ? {} : { blocks: visibleOnly(message.blocks) }),
  };
}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
