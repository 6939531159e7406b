/**
 * Slack's rate limits apply per method and, for posting and updating, per channel ("about one
 * message a second per channel"). A 429 on one channel's `chat.update` says nothing about another
 * channel, or about `views.open`: the window it opens is kept for that method and channel only,
 * instead of pausing every call (what the Web API client does by default).
 */
export class RateLimitWindows {
  private readonly until = new Map<string, number>();

  constructor(private readonly now: () => number = Date.now) {}

  /** Slack asked to wait `retryAfterMs` before calling `method` on `channel` again. */
  note(method: string, channel: string, retryAfterMs: number): void {
    const key = keyOf(method, channel);
    const until = this.now() + retryAfterMs;
    if (until > (this.until.get(key) ?? 0)) this.until.set(key, until);
  }

  /** How long calls of `method` on `channel` must still wait; 0 when they may go. */
  remainingMs(method: string, channel: string): number {
    const key = keyOf(method, channel);
    const until = this.until.get(key);
    if (until === undefined) return 0;
    const remaining = until - this.now();
    if (remaining > 0) return remaining;
    this.until.delete(key);
    return 0;
  }
}

function keyOf(method: string, channel: string): string {
  return `${method} ${channel}`;
}
