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

/**
 * Calls of one method on one channel, one at a time in arrival order once Slack has refused one
 * of them. Without it, a hundred card posts refused together all wake when the window ends: one
 * is let through, the rest are refused again and give up. In a lane each waits its turn, then
 * the window, and the channel posts at Slack's rate. Other channels and methods are not held.
 */
export class RateLimitLanes {
  private readonly tails = new Map<string, Promise<void>>();

  /** Whether calls of `method` on `channel` are queued or running in a lane. */
  busy(method: string, channel: string): boolean {
    return this.tails.has(keyOf(method, channel));
  }

  /** Runs `task` after every task queued before it for this method and channel. */
  run<T>(method: string, channel: string, task: () => Promise<T>): Promise<T> {
    const key = keyOf(method, channel);
    const previous = this.tails.get(key) ?? Promise.resolve();
    const result = previous.then(task);
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return result;
  }
}
