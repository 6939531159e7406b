import type { WebClient } from '@slack/web-api';
import { z } from 'zod';
import { errorMessage } from '../error-message.js';
import { type Metrics, noMetrics, secondsSince } from '../metrics.js';
import type { SlackMessage } from './block-kit.js';
import { SlackCallError, type SlackPort } from './port.js';

const postedSchema = z.object({ channel: z.string().min(1), ts: z.string().min(1) });
const permalinkSchema = z.object({ permalink: z.url({ protocol: /^https?$/ }) });

/** Slack's error code from a Web API client error (`data.error` on platform errors). */
const platformErrorSchema = z.object({ data: z.object({ error: z.string() }) });

/**
 * The workflow's Slack port over a real `WebClient` (Slack, or whatever `SLACK_API_URL` names).
 * Link and media unfurls stay off: cards carry untrusted text.
 */
export class WebApiSlackPort implements SlackPort {
  constructor(
    private readonly client: WebClient,
    private readonly metrics: Metrics = noMetrics,
  ) {}

  async postMessage(input: SlackMessage & { channel: string; threadTs?: string }) {
    const response = await this.call('chat.postMessage', () =>
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
    await this.call('chat.update', () =>
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
    await this.call('chat.postEphemeral', () =>
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
    await this.call('views.open', () =>
      this.client.views.open({ trigger_id: input.triggerId, view: input.view }),
    );
  }

  async getPermalink(input: { channel: string; ts: string }): Promise<string> {
    const response = await this.call('chat.getPermalink', () =>
      this.client.chat.getPermalink({ channel: input.channel, message_ts: input.ts }),
    );
    const parsed = permalinkSchema.safeParse(response);
    if (!parsed.success) throw new SlackCallError('chat.getPermalink', 'unexpected_response');
    return parsed.data.permalink;
  }

  private async call<T>(method: string, request: () => Promise<T>): Promise<T> {
    const started = performance.now();
    try {
      const response = await request();
      this.metrics.externalCall('slack', method, secondsSince(started), undefined);
      return response;
    } catch (error) {
      const platform = platformErrorSchema.safeParse(error);
      // Slack's codes are a fixed vocabulary; anything else (network, timeout) is one code, so
      // that an error text never becomes a metric label or reaches a person verbatim.
      const code = platform.success ? platform.data.data.error : 'request_failed';
      this.metrics.externalCall('slack', method, secondsSince(started), code);
      throw new SlackCallError(method, platform.success ? code : errorMessage(error), {
        cause: error,
      });
    }
  }
}
