import { AsyncResource } from 'node:async_hooks';
import PQueue from 'p-queue';
import { errorMessage } from '../error-message.js';
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
  private readonly admit: ((key: string) => Promise<void>) | undefined;

  /**
   * `admit`: awaited before each task takes a slot (after the tasks of its key before it), for
   * work that should wait for other work first (`CriticalPath.quiet`, a card's `CardHolds`).
   * Never rejects.
   */
  constructor(
    private readonly log: Log,
    options: { concurrency?: number; admit?: (key: string) => Promise<void> } = {},
  ) {
    this.queue = new PQueue({ concurrency: options.concurrency ?? 32 });
    this.admit = options.admit;
  }

  /** Whether it still takes new work (`drain` has not begun). */
  get open(): boolean {
    return this.accepting;
  }

  /**
   * Runs `task` after every earlier task with the same key and settles with its outcome.
   * Refused with `QueueClosedError` once `drain` has begun.
   */
  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    if (!this.accepting) return Promise.reject(new QueueClosedError());
    const previous = this.tails.get(key) ?? Promise.resolve();
    // The queue starts a task from whichever task finished before it: run in a resource made
    // here, the task runs in the context of whoever queued it (its correlation id, see
    // correlation.ts). Not `AsyncResource.bind`: it wraps two deprecation shims per call.
    const resource = new AsyncResource('KeyedWorkQueue');
    const admit = this.admit;
    const admitted = admit === undefined ? previous : previous.then(() => admit(key));
    const result = admitted.then(() => this.queue.add(() => resource.runInAsyncScope(task)));
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

  /**
   * Like `run`, for work nobody waits for (handed off after an ack): a failure is logged with
   * its label, and the returned promise never rejects.
   */
  enqueue(key: string, label: string, task: () => Promise<void>): Promise<void> {
    return this.run(key, task).catch((error: unknown) => {
      if (error instanceof QueueClosedError) {
        this.log.warn('work refused while shutting down', { key, task: label });
      } else {
        this.log.error(`${label} failed`, { key, error: errorMessage(error) });
      }
    });
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

/**
 * An `admit` that lets whatever I/O has arrived go first: the task starts on the event loop's
 * next check phase, after the requests already received (a burst's other clicks) were read.
 */
export const afterPendingIo = (): Promise<void> =>
  new Promise((resolve) => {
    setImmediate(resolve);
  });

export class QueueClosedError extends Error {
  override readonly name = 'QueueClosedError';
  constructor() {
    super('the app is shutting down and takes no new work');
  }
}
