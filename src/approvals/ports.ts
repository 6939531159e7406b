import type { KnownBlock, View } from '@slack/types';

/**
 * The few things the approval workflow needs from the outside world. Only `main.ts` builds the
 * concrete clients; tests hand in the real ones pointed at local servers.
 */

export interface SlackMessage {
  /** Notification and accessibility fallback; always set. */
  text: string;
  blocks?: KnownBlock[];
}

/** The handful of Slack Web API calls the workflow makes. */
export interface SlackPort {
  postMessage(
    input: SlackMessage & { channel: string; threadTs?: string },
  ): Promise<{ channel: string; ts: string }>;
  updateMessage(input: SlackMessage & { channel: string; ts: string }): Promise<void>;
  postEphemeral(
    input: SlackMessage & { channel: string; user: string; threadTs?: string },
  ): Promise<void>;
  openView(input: { triggerId: string; view: View }): Promise<void>;
}

/** Milliseconds since the epoch; injected so that tests can move time. */
export type Clock = () => number;

export const systemClock: Clock = () => Date.now();

/** A Slack Web API call that failed after the client's own retries; `code` is Slack's error. */
export class SlackCallError extends Error {
  override readonly name = 'SlackCallError';
  constructor(
    readonly method: string,
    readonly code: string,
    options?: ErrorOptions,
  ) {
    super(`Slack ${method} failed: ${code}`, options);
  }
}
