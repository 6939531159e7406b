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
  private readonly ends = new Map<string, () => void>();

  constructor(private readonly maxWaitMs: number) {}

  /** Holds `key`'s redraws until `until` settles, or `maxWaitMs` from now. */
  hold(key: string, until: Promise<unknown>): void {
    let timer: NodeJS.Timeout | undefined;
    let end: () => void = () => {};
    const ended = new Promise<void>((resolve) => {
      end = resolve;
      timer = setTimeout(resolve, this.maxWaitMs);
      timer.unref();
    });
    const released: Promise<void> = Promise.race([
      until.then(
        () => undefined,
        () => undefined,
      ),
      ended,
    ]).then(() => {
      clearTimeout(timer);
      if (this.holds.get(key) !== released) return;
      this.holds.delete(key);
      this.ends.delete(key);
    });
    this.holds.set(key, released);
    this.ends.set(key, end);
  }

  /** Ends `key`'s hold now: what it waited for has happened. */
  release(key: string): void {
    this.ends.get(key)?.();
  }

  /** Resolves when `key` is not held (at once when it is not). Never rejects. */
  released(key: string): Promise<void> {
    return this.holds.get(key) ?? Promise.resolve();
  }
}
