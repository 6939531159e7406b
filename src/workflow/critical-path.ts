/**
 * The work of this process on a decision's critical path: a click's vote, and a resume until its
 * request to the agent is sent. Work that only shows a change (card, run root and Home redraws)
 * waits for it with `quiet()`, so that in a burst of clicks the agents are resumed first and a
 * card changed twice meanwhile (decided, then resumed) is redrawn once, with its latest state.
 * A redraw never waits longer than `maxWaitMs`: under a steady stream of clicks, cards still
 * follow, that much later.
 */
export class CriticalPath {
  private active = 0;
  private readonly waiters = new Set<() => void>();

  constructor(private readonly maxWaitMs: number) {}

  /** Work on the critical path begins; call the returned function when it ends (once is enough). */
  begin(): () => void {
    this.active += 1;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.active -= 1;
      if (this.active === 0) for (const wake of [...this.waiters]) wake();
    };
  }

  /** Runs `work` on the critical path. */
  async track<T>(work: () => Promise<T>): Promise<T> {
    const end = this.begin();
    try {
      return await work();
    } finally {
      end();
    }
  }

  /** Resolves when no critical work is under way, or after `maxWaitMs` at most. Never rejects. */
  quiet(): Promise<void> {
    if (this.active === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.waiters.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, this.maxWaitMs);
      timer.unref();
      this.waiters.add(wake);
    });
  }
}
