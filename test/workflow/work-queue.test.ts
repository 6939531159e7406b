import { describe, expect, it } from 'vitest';
import { correlationId, withCorrelation } from '../../src/correlation.js';
import { createLog } from '../../src/log.js';
import { KeyedWorkQueue } from '../../src/workflow/work-queue.js';

function quietLog() {
  const lines: string[] = [];
  return { log: createLog('debug', 'test', (line) => lines.push(line)), lines };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

/** A promise that settles when `release` is called. */
function latch(): { released: Promise<void>; release: () => void } {
  let release = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  return { released, release };
}

describe('KeyedWorkQueue', () => {
  it("runs each task under its queuer's correlation id, not the id of the task that freed its slot", async () => {
    const queue = new KeyedWorkQueue(quietLog().log, { concurrency: 1 });
    const { released: first, release: releaseFirst } = latch();
    const seen: (string | undefined)[] = [];
    const one = withCorrelation('click-1', () =>
      queue.run('pause-1', async () => {
        await first;
        seen.push(correlationId());
      }),
    );
    // Another key: it waits for the one slot, which the first task frees.
    const two = withCorrelation('click-2', () =>
      queue.run('pause-2', async () => {
        seen.push(correlationId());
      }),
    );
    releaseFirst();
    await Promise.all([one, two]);
    expect(seen).toEqual(['click-1', 'click-2']);
  });

  it('runs the tasks of one key in the order they were queued, even when the first is slower', async () => {
    const queue = new KeyedWorkQueue(quietLog().log, { concurrency: 4 });
    const order: string[] = [];
    const { released: first, release: releaseFirst } = latch();
    void queue.enqueue('pause-1', 'first', async () => {
      await first;
      order.push('first');
    });
    const second = queue.enqueue('pause-1', 'second', async () => {
      order.push('second');
    });
    await tick();
    expect(order).toEqual([]);
    releaseFirst();
    await second;
    expect(order).toEqual(['first', 'second']);
  });

  it('runs different keys in parallel, up to the concurrency', async () => {
    const queue = new KeyedWorkQueue(quietLog().log, { concurrency: 2 });
    let running = 0;
    let peak = 0;
    const tasks = ['a', 'b', 'c', 'd'].map((key) =>
      queue.enqueue(key, key, async () => {
        running += 1;
        peak = Math.max(peak, running);
        await tick();
        running -= 1;
      }),
    );
    await Promise.all(tasks);
    expect(peak).toBe(2);
  });

  it('logs a failed task with its label and goes on with the next task of that key', async () => {
    const { log, lines } = quietLog();
    const queue = new KeyedWorkQueue(log);
    const ran: string[] = [];
    void queue.enqueue('k', 'update card', async () => {
      throw new Error('slack down');
    });
    await queue.enqueue('k', 'next', async () => {
      ran.push('next');
    });
    expect(ran).toEqual(['next']);
    expect(
      lines.some((line) => line.includes('update card failed') && line.includes('slack down')),
    ).toBe(true);
  });

  it('drain waits for queued work, then refuses new work', async () => {
    const queue = new KeyedWorkQueue(quietLog().log);
    let done = false;
    void queue.enqueue('k', 'slow', async () => {
      await tick();
      done = true;
    });
    expect(await queue.drain(5_000)).toBe(true);
    expect(done).toBe(true);
    let late = false;
    await queue.enqueue('k', 'late', async () => {
      late = true;
    });
    expect(late).toBe(false);
  });

  it('drain reports false when work outlasts the timeout', async () => {
    const queue = new KeyedWorkQueue(quietLog().log);
    void queue.enqueue('k', 'stuck', () => new Promise(() => {}));
    expect(await queue.drain(20)).toBe(false);
  });
});

describe('KeyedWorkQueue with admit', () => {
  it('starts no task before it is admitted, and keeps the order of its key', async () => {
    const { released: admitted, release: admit } = latch();
    const queue = new KeyedWorkQueue(quietLog().log, { admit: () => admitted });
    const order: string[] = [];
    const first = queue.enqueue('card-1', 'first', async () => {
      order.push('first');
    });
    const second = queue.enqueue('card-1', 'second', async () => {
      order.push('second');
    });
    await tick();
    expect(order).toEqual([]);
    admit();
    await Promise.all([first, second]);
    expect(order).toEqual(['first', 'second']);
  });

  it('drain waits for tasks still waiting to be admitted', async () => {
    const { released: admitted, release: admit } = latch();
    const queue = new KeyedWorkQueue(quietLog().log, { admit: () => admitted });
    let ran = false;
    void queue.enqueue('card-1', 'refresh', async () => {
      ran = true;
    });
    const drained = queue.drain(5_000);
    admit();
    expect(await drained).toBe(true);
    expect(ran).toBe(true);
  });
});

describe('KeyedWorkQueue.run', () => {
  it('settles with the task result, or its error, in per-key order', async () => {
    const queue = new KeyedWorkQueue(quietLog().log);
    const failing = queue.run('k', async () => {
      throw new Error('boom');
    });
    const value = queue.run('k', async () => 42);
    await expect(failing).rejects.toThrow('boom');
    await expect(value).resolves.toBe(42);
  });

  it('refuses work once draining has begun', async () => {
    const queue = new KeyedWorkQueue(quietLog().log);
    await queue.drain(100);
    await expect(queue.run('k', async () => 1)).rejects.toThrow('shutting down');
  });
});
