/**
 * Remembers lookups for a while and shares one lookup among everyone asking for the same key at
 * once. Failures are not remembered: the next caller tries again.
 */
export interface LookupCacheOptions {
  /** How long a result is used before it is looked up again. */
  ttlMs: number;
  /** The clock, in milliseconds (tests pass their own). */
  now: () => number;
  /** Results kept at most; the oldest go first. */
  maxEntries: number;
}

export class LookupCache<V> {
  private readonly entries = new Map<string, { value: V; expiresAt: number }>();
  private readonly inFlight = new Map<string, Promise<V>>();

  constructor(private readonly options: LookupCacheOptions) {}

  get(key: string, load: () => Promise<V>): Promise<V> {
    const entry = this.entries.get(key);
    if (entry && entry.expiresAt > this.options.now()) return Promise.resolve(entry.value);
    if (entry) this.entries.delete(key);

    const pending = this.inFlight.get(key);
    if (pending) return pending;
    // `then(load)`: a loader that throws at once fails this lookup like one that rejects.
    const lookup = Promise.resolve()
      .then(load)
      .then(
        (value) => {
          this.inFlight.delete(key);
          this.remember(key, value);
          return value;
        },
        (error: unknown) => {
          this.inFlight.delete(key);
          throw error;
        },
      );
    this.inFlight.set(key, lookup);
    return lookup;
  }

  private remember(key: string, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, { value, expiresAt: this.options.now() + this.options.ttlMs });
    for (const oldest of this.entries.keys()) {
      if (this.entries.size <= this.options.maxEntries) break;
      this.entries.delete(oldest);
    }
  }
}
