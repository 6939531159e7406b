/**
 * Card redraws held while a change to the card is known to be on its way: a decided pause's
 * resume is under way on this replica, and the card it leaves (decided, and the agent resumed,
 * its calls ran) follows within moments. Its redraw waits for that, so that one `chat.update`
 * shows both instead of one each; changes asked for meanwhile merge into it (`CardRefresher`).
 * A hold never lasts longer than `maxWaitMs` from when it began: an agent that answers slowly
 * gets its card drawn decided then, and again once resumed, as without a hold.
 */
export class CardHolds {
  private readonly holds = new Map<string, Promise<void>>();

  constructor(private readonly maxWaitMs: number) {}

  /** Holds `key`'s redraws until `until` settles, or `maxWaitMs` from now. */
  hold(key: string, until: Promise<unknown>): void {
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, this.maxWaitMs);
      timer.unref();
    });
    const released: Promise<void> = Promise.race([
      until.then(
        () => undefined,
        () => undefined,
      ),
      expired,
    ]).then(() => {
      clearTimeout(timer);
      if (this.holds.get(key) === released) this.holds.delete(key);
    });
    this.holds.set(key, released);
  }

  /** Resolves when `key` is not held (at once when it is not). Never rejects. */
  released(key: string): Promise<void> {
    return this.holds.get(key) ?? Promise.resolve();
  }
}
