/**
 * Slack's per-channel posting limit, as a token bucket per method and channel: "chat.postMessage
 * generally allows posting one message per second per channel", with "short bursts >1 allowed"
 * (https://docs.slack.dev/apis/web-api/rate-limits). A refused call costs no token and is answered
 * HTTP 429 with `Retry-After` in whole seconds, as Slack sends it.
 */
export interface ChannelRate {
  /** Tokens added per second: calls per second per channel, sustained. */
  perSecond: number;
  /** The most calls a quiet channel takes at once. */
  burst: number;
}

/**
 * Slack's documented posting rate with a small burst. Slack lists `chat.update` as Tier 3 (50+ a
 * minute per workspace) and documents no per-channel figure for it; the app keys its rate-limit
 * windows by method and channel, so the sandbox limits updates the same way, at the posting rate.
 */
export const SLACK_CHANNEL_RATES: Readonly<Record<string, ChannelRate>> = {
  'chat.postMessage': { perSecond: 1, burst: 3 },
  'chat.update': { perSecond: 1, burst: 3 },
};

export class ChannelRateLimits {
  private readonly buckets = new Map<string, { tokens: number; atMs: number }>();

  constructor(
    private readonly rates: Readonly<Record<string, ChannelRate>>,
    private readonly nowMs: () => number,
  ) {
    for (const [method, rate] of Object.entries(rates)) {
      if (!(rate.perSecond > 0) || !(rate.burst >= 1)) {
        throw new RangeError(`channel rate of ${method}: perSecond > 0 and burst >= 1 expected`);
      }
    }
  }

  /** Takes a token for this call; the Retry-After (seconds) when there is none, else undefined. */
  take(method: string, channel: string | undefined): number | undefined {
    const rate = this.rates[method];
    if (rate === undefined || channel === undefined) return undefined;
    const key = `${method} ${channel}`;
    const now = this.nowMs();
    const bucket = this.buckets.get(key) ?? { tokens: rate.burst, atMs: now };
    bucket.tokens = Math.min(
      rate.burst,
      bucket.tokens + ((now - bucket.atMs) / 1_000) * rate.perSecond,
    );
    bucket.atMs = now;
    this.buckets.set(key, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return undefined;
    }
    return Math.max(1, Math.ceil((1 - bucket.tokens) / rate.perSecond));
  }

  clear(): void {
    this.buckets.clear();
  }
}
