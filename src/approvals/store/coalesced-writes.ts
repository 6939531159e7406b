/**
 * Writes that go out together when they come together: a write goes out at once when none is
 * under way; those that come while one is go together, as one `send`, as soon as it is done.
 * So a lone write waits for nothing, and a burst costs a few round trips rather than one per
 * write. Each caller waits for the send that carried its items, and sees its failure.
 */
export class CoalescedWrites<T> {
  /** The send under way, settled or not: the next batch starts after it. */
  private running: Promise<void> | undefined;
  /** The items waiting for the send under way, and when they are written. */
  private next: { batch: T[]; written: Promise<void> } | undefined;

  constructor(private readonly send: (batch: readonly T[]) => Promise<void>) {}

  write(items: readonly T[]): Promise<void> {
    if (items.length === 0) return Promise.resolve();
    const running = this.running;
    if (running === undefined) return this.start(items);
    if (this.next === undefined) {
      const batch: T[] = [];
      const written = running.then(() => {
        this.next = undefined;
        return this.start(batch);
      });
      this.next = { batch, written };
    }
    this.next.batch.push(...items);
    return this.next.written;
  }

  private start(batch: readonly T[]): Promise<void> {
    const sending = this.send(batch);
    const running: Promise<void> = sending.then(
      () => this.finished(running),
      () => this.finished(running),
    );
    this.running = running;
    return sending;
  }

  private finished(running: Promise<void>): void {
    if (this.running === running) this.running = undefined;
  }
}
