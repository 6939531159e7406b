/**
 * Who has looked at their App Home lately. Their Home follows every change of a pause that
 * concerns them (a `views.publish` each); anyone else's is drawn afresh when they next open it
 * (`app_home_opened`), so a decision costs no publish for people who are not looking.
 */
export interface HomeViewers {
  opened(userId: string, now: number): Promise<void>;
  /** Of `userIds`, those who opened their Home within `HOME_WATCH_MS` of `now`. */
  watching(userIds: readonly string[], now: number): Promise<Set<string>>;
}

/** Slack says when a Home is opened, never when it is left: an hour is "still looking". */
export const HOME_WATCH_MS = 60 * 60 * 1000;

export class MemoryHomeViewers implements HomeViewers {
  private readonly openedAt = new Map<string, number>();

  async opened(userId: string, now: number): Promise<void> {
    this.openedAt.set(userId, now);
    for (const [user, at] of this.openedAt) {
      if (at <= now - HOME_WATCH_MS) this.openedAt.delete(user);
    }
  }

  async watching(userIds: readonly string[], now: number): Promise<Set<string>> {
    return new Set(
      userIds.filter((id) => (this.openedAt.get(id) ?? -Infinity) > now - HOME_WATCH_MS),
    );
  }
}
