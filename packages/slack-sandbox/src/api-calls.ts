import type { JsonObject } from './json.js';

/** One Web API call the app made, for assertions in tests and the page's call log. */
export interface ApiCall {
  method: string;
  /** The arguments, with `blocks`, `view` and other JSON-string arguments parsed, token removed. */
  args: JsonObject;
  /** 200, or 429 when a simulated rate limit answered. */
  status: number;
  ok: boolean;
  error: string | undefined;
  atMs: number;
}

/** Simulated rate limits: the next N calls of a method answer HTTP 429 with `Retry-After`. */
export class RateLimits {
  private readonly pending = new Map<string, { calls: number; retryAfterSec: number }>();

  limit(method: string, calls: number, retryAfterSec: number): void {
    if (calls <= 0) this.pending.delete(method);
    else this.pending.set(method, { calls, retryAfterSec });
  }

  /** The Retry-After for this call when it is to be refused, else undefined. */
  take(method: string): number | undefined {
    const limit = this.pending.get(method);
    if (!limit) return undefined;
    limit.calls -= 1;
    if (limit.calls <= 0) this.pending.delete(method);
    return limit.retryAfterSec;
  }

  clear(): void {
    this.pending.clear();
  }
}
