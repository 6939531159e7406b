import { type PauseView, viewVersion } from '../records.js';

/** Pauses whose last view a replica keeps: the ones it touched last. */
const RECENT_VIEWS = 1_000;

/**
 * The pauses as this replica's transitions and reads last showed them, so that a click's check
 * can start from one without reading the pause again (`PauseStore.recentPause`). A view kept
 * here may be stale (another replica may have changed the pause since): a vote made on it
 * carries its gates' version and is refused if a gate moved on. Of two replies that come back
 * out of order, the newer version stays. Views are shared, not copied: nothing may change one.
 */
export class RecentViews {
  private readonly views = new Map<string, PauseView>();

  constructor(private readonly capacity = RECENT_VIEWS) {}

  get(pauseId: string): PauseView | undefined {
    return this.views.get(pauseId);
  }

  remember(view: PauseView): void {
    const id = view.pause.id;
    const kept = this.views.get(id);
    if (kept !== undefined && viewVersion(kept) > viewVersion(view)) return;
    this.views.delete(id);
    this.views.set(id, view);
    if (this.views.size > this.capacity) {
      const oldest = this.views.keys().next();
      if (!oldest.done) this.views.delete(oldest.value);
    }
  }

  forget(pauseId: string): void {
    this.views.delete(pauseId);
  }
}
