import PQueue from 'p-queue';
import type { Log } from '../log.js';

/**
 * Work done after Slack has been acknowledged: bounded concurrency overall, strict order per key
 * (a pause), so that two clicks on one card are applied and rendered in the order they arrived
 * while clicks on other cards go on in parallel. A task waiting for its predecessor takes no slot.
 */
export class KeyedWorkQueue {
  private readonly queue: PQueue;
  private readonly tails = new Map<string, Promise<void>>();
  private accepting = true;

  constructor(
    private readonly log: Log,
    options: { concurrency?: number } = {},
  ) {
    this.queue = new PQueue({ concurrency: options.concurrency ?? 32 });
  }

  /**
   * Runs `task` after every earlier task with the same key. The returned promise settles when
   * the task has run; it never rejects: a failure is logged with its label, since nobody awaits
   * work handed off after an ack.
   */
  enqueue(key: string, label: string, task: () => Promise<void>): Promise<void> {
    if (!this.accepting) {
      this.log.warn('refused work while shutting down', { key, task: label });
      return Promise.resolve();
    }
    const previous = this.tails.get(key) ?? Promise.resolve();
    const run = previous
      .then(() => this.queue.add(task))
      .catch((error: unknown) => {
        this.log.error(`${label} failed`, { key, error: errorMessage(error) });
      });
    this.tails.set(key, run);
    void run.then(() => {
      if (this.tails.get(key) === run) this.tails.delete(key);
    });
    return run;
  }

  /** Tasks queued or running. */
  get size(): number {
    return this.queue.size + this.queue.pending + this.tails.size;
  }

  /**
   * Stops taking new work and waits for what was taken, up to `timeoutMs`.
   * Resolves true when everything finished in time.
   */
  async drain(timeoutMs: number): Promise<boolean> {
    this.accepting = false;
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), timeoutMs);
    });
    const finished = Promise.all([...this.tails.values()]).then(() => this.queue.onIdle());
    const result = await Promise.race([finished.then(() => true as const), timedOut]);
    clearTimeout(timer);
    return result;
  }
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
