import type { WebClient } from '@slack/web-api';
import { z } from 'zod';
import { errorMessage } from '../error-message.js';
import { type Metrics, noMetrics, secondsSince } from '../metrics.js';
import type { SlackMessage } from './block-kit.js';
import { SlackCallError, type SlackPort } from './port.js';
import { RateLimitWindows } from './rate-limit-windows.js';

const postedSchema = z.object({ channel: z.string().min(1), ts: z.string().min(1) });
const permalinkSchema = z.object({ permalink: z.url({ protocol: /^https?$/ }) });

/** Slack's error code from a Web API client error (`data.error` on platform errors). */
const platformErrorSchema = z.object({ data: z.object({ error: z.string() }) });
/** What the client throws on a 429 when it is set to reject rate-limited calls. */
const rateLimitedSchema = z.object({
  code: z.literal('slack_webapi_rate_limited_error'),
  retryAfter: z.number().nonnegative(),
});

/**
 * Longest a message post waits out a channel's rate limit before it fails. Posts carry the
 * agent's answers, so they wait (in the background); updates never wait: the card refresher
 * renders the latest state once the window ends, and a wait would only hold a slot.
 */
const POST_MAX_WAIT_MS = 30_000;
const EPHEMERAL_MAX_WAIT_MS = 5_000;
/** A permalink only decorates a message: it is worth a short wait, never a long one. */
const PERMALINK_MAX_WAIT_MS = 2_000;

export interface WebApiSlackPortOptions {
  /** Bolt's client (or any `WebClient`) set to reject rate-limited calls and to time out. */
  client: WebClient;
  /**
   * A client of its own for `views.open`: a `trigger_id` lives 3 s, so a modal must never queue
   * behind other calls. Default: `client`.
   */
  modalClient?: WebClient;
  metrics?: Metrics;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

/**
 * The workflow's Slack port over a real `WebClient` (Slack, or whatever `SLACK_API_URL` names).
 * Rate limits are kept per method and channel (`RateLimitWindows`), so that one busy channel
 * delays nothing elsewhere. Link and media unfurls stay off: cards carry untrusted text.
 */
export class WebApiSlackPort implements SlackPort {
  private readonly client: WebClient;
  private readonly modalClient: WebClient;
  private readonly metrics: Metrics;
  private readonly windows: RateLimitWindows;
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(options: WebApiSlackPortOptions) {
    this.client = options.client;
    this.modalClient = options.modalClient ?? options.client;
    this.metrics = options.metrics ?? noMetrics;
    this.windows = new RateLimitWindows(options.now);
    this.sleep = options.sleep ?? defaultSleep;
  }

  async postMessage(input: SlackMessage & { channel: string; threadTs?: string }) {
    const response = await this.call('chat.postMessage', input.channel, POST_MAX_WAIT_MS, () =>
      this.client.chat.postMessage({
        channel: input.channel,
        text: input.text,
        ...(input.blocks === undefined ? {} : { blocks: input.blocks }),
        ...(input.threadTs === undefined ? {} : { thread_ts: input.threadTs }),
        unfurl_links: false,
        unfurl_media: false,
      }),
    );
    const posted = postedSchema.safeParse(response);
    if (!posted.success) throw new SlackCallError('chat.postMessage', 'unexpected_response');
    return posted.data;
  }

  async updateMessage(input: SlackMessage & { channel: string; ts: string }): Promise<void> {
    await this.call('chat.update', input.channel, 0, () =>
      this.client.chat.update({
        channel: input.channel,
        ts: input.ts,
        text: input.text,
        ...(input.blocks === undefined ? {} : { blocks: input.blocks }),
      }),
    );
  }

  async postEphemeral(
    input: SlackMessage & { channel: string; user: string; threadTs?: string },
  ): Promise<void> {
    await this.call('chat.postEphemeral', input.channel, EPHEMERAL_MAX_WAIT_MS, () =>
      this.client.chat.postEphemeral({
        channel: input.channel,
        user: input.user,
        text: input.text,
        ...(input.blocks === undefined ? {} : { blocks: input.blocks }),
        ...(input.threadTs === undefined ? {} : { thread_ts: input.threadTs }),
      }),
    );
  }

  async openView(input: Parameters<SlackPort['openView']>[0]): Promise<void> {
    // Rate limits on views.open are per app and user, not per channel; the trigger is per user.
    await this.call('views.open', input.triggerId, 0, () =>
      this.modalClient.views.open({ trigger_id: input.triggerId, view: input.view }),
    );
  }

  async publishHome(input: Parameters<SlackPort['publishHome']>[0]): Promise<void> {
    // Rate limits on views.publish are per app and user (Tier 4).
    await this.call('views.publish', input.userId, 0, () =>
      this.client.views.publish({ user_id: input.userId, view: input.view }),
    );
  }

  async getPermalink(input: { channel: string; ts: string }): Promise<string> {
    const response = await this.call(
      'chat.getPermalink',
      input.channel,
      PERMALINK_MAX_WAIT_MS,
      () => this.client.chat.getPermalink({ channel: input.channel, message_ts: input.ts }),
    );
    const parsed = permalinkSchema.safeParse(response);
    if (!parsed.success) throw new SlackCallError('chat.getPermalink', 'unexpected_response');
    return parsed.data.permalink;
  }

  /**
   * Waits out a rate-limit window of this method and channel when it ends within `maxWaitMs`,
   * else fails at once with `ratelimited`; a 429 opens the window and is waited out (once) the
   * same way.
   */
  private async call<T>(
    method: string,
    channel: string,
    maxWaitMs: number,
    request: () => Promise<T>,
  ): Promise<T> {
    for (let attempt = 0; ; attempt += 1) {
      const remaining = this.windows.remainingMs(method, channel);
      if (remaining > 0) {
        if (remaining > maxWaitMs) {
          throw new SlackCallError(method, 'ratelimited', { retryAfterMs: remaining });
        }
        this.metrics.rateLimited(method, remaining / 1_000);
        await this.sleep(remaining);
      }
      const started = performance.now();
      try {
        const response = await request();
        this.metrics.externalCall('slack', method, secondsSince(started), undefined);
        return response;
      } catch (error) {
        const limited = rateLimitedSchema.safeParse(error);
        if (limited.success) {
          this.metrics.externalCall('slack', method, secondsSince(started), 'ratelimited');
          const retryAfterMs = limited.data.retryAfter * 1_000;
          this.windows.note(method, channel, retryAfterMs);
          if (attempt === 0) continue;
          throw new SlackCallError(method, 'ratelimited', { cause: error, retryAfterMs });
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
}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
