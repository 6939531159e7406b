import { describe, expect, it, vi } from 'vitest';
import { CriticalPath } from '../../src/workflow/critical-path.js';

const tick = () => new Promise((resolve) => setImmediate(resolve));

/** Whether `promise` has settled after the pending callbacks ran. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(() => {
    done = true;
  });
  await tick();
  return done;
}

describe('CriticalPath', () => {
  it('is quiet at once when no critical work is under way', async () => {
    const path = new CriticalPath(60_000);
    expect(await settled(path.quiet())).toBe(true);
  });

  it('keeps waiters until every piece of critical work has ended', async () => {
    const path = new CriticalPath(60_000);
    const endVote = path.begin();
    const endResume = path.begin();
    const quiet = path.quiet();
    endVote();
    // Ending one twice does not end the other.
    endVote();
    expect(await settled(quiet)).toBe(false);
    endResume();
    expect(await settled(quiet)).toBe(true);
  });

  it('tracks work until it settles, failed or not', async () => {
    const path = new CriticalPath(60_000);
    let fail = () => {};
    const work = path.track(
      () =>
        new Promise<void>((_, reject) => {
          fail = () => reject(new Error('store down'));
        }),
    );
    const quiet = path.quiet();
    expect(await settled(quiet)).toBe(false);
    fail();
    await expect(work).rejects.toThrow('store down');
    expect(await settled(quiet)).toBe(true);
  });

  it('lets a waiter go after the longest wait, however busy the path still is', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const path = new CriticalPath(1_000);
      path.begin();
      const quiet = path.quiet();
      vi.advanceTimersByTime(999);
      expect(await settled(quiet)).toBe(false);
      vi.advanceTimersByTime(1);
      expect(await settled(quiet)).toBe(true);
    } finally {
      vi.useRealTimers();
    }
  });
});
