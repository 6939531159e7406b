import type { HomeViewers } from '../approvals/home-viewers.js';

interface Waiting {
  userIds: readonly string[];
  resolve: (watching: Set<string>) => void;
  reject: (error: unknown) => void;
}

/**
 * `HomeViewers` whose `watching` questions asked in the same turn of the event loop, or while a
 * read is under way, go to the store as one (one ZMSCORE on Redis instead of one per changed
 * pause: a burst's pause changes are admitted together, four at a time). Each question is still
 * answered by a read sent after it was asked, so a Home opened before a change is never missed; a
 * failed read fails every question it answered (`AppHomes` then refreshes them all, as before).
 */
export class BatchedHomeViewers implements HomeViewers {
  private waiting: Waiting[] = [];
  private latest = 0;
  /** A read is under way: questions wait for the one after it. */
  private reading = false;
  /** The next read is due at the next turn of the event loop. */
  private scheduled = false;

  constructor(private readonly viewers: HomeViewers) {}

  opened(userId: string, now: number): Promise<void> {
    return this.viewers.opened(userId, now);
  }

  watching(userIds: readonly string[], now: number): Promise<Set<string>> {
    if (userIds.length === 0) return Promise.resolve(new Set());
    return new Promise((resolve, reject) => {
      this.waiting.push({ userIds, resolve, reject });
      this.latest = Math.max(this.latest, now);
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.reading || this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.ask();
    });
  }

  private ask(): void {
    const batch = this.waiting;
    const now = this.latest;
    if (batch.length === 0) return;
    this.waiting = [];
    this.latest = 0;
    this.reading = true;
    const everyone = [...new Set(batch.flatMap((question) => question.userIds))];
    this.viewers
      .watching(everyone, now)
      .then(
        (watching) => {
          for (const { userIds, resolve } of batch) {
            resolve(new Set(userIds.filter((id) => watching.has(id))));
          }
        },
        (error: unknown) => {
          for (const { reject } of batch) reject(error);
        },
      )
      .finally(() => {
        this.reading = false;
        if (this.waiting.length > 0) this.schedule();
      });
  }
}
