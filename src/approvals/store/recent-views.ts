import { type PauseView, viewVersion } from '../records.js';

/** Pauses whose last view a replica keeps: the ones it touched last. */
const RECENT_VIEWS = 1_000;
/**
 * And at most about this much of their records (a pause's tool arguments may be large: an API
 * request can be up to 1 MB), counted as the text the views were decoded from.
 */
const RECENT_VIEW_BYTES = 16 * 1024 * 1024;

/**
 * The pauses as this replica's transitions and reads last showed them, so that a click's check
 * can start from one without reading the pause again (`PauseStore.recentPause`). A view kept
 * here may be stale (another replica may have changed the pause since): a vote made on it
 * carries its gates' version and is refused if a gate moved on. Of two replies that come back
 * out of order, the newer version stays. Views are shared, not copied: nothing may change one.
 */
export class RecentViews {
  private readonly views = new Map<string, { view: PauseView; bytes: number }>();
  private bytes = 0;

  constructor(
    private readonly capacity = RECENT_VIEWS,
    private readonly maxBytes = RECENT_VIEW_BYTES,
  ) {}

  get(pauseId: string): PauseView | undefined {
    return this.views.get(pauseId)?.view;
  }

  /** `bytes`: the size of the records the view was decoded from. */
  remember(view: PauseView, bytes: number): void {
    const id = view.pause.id;
    const kept = this.views.get(id);
    if (kept !== undefined && viewVersion(kept.view) > viewVersion(view)) return;
    this.forget(id);
    if (bytes > this.maxBytes) return;
    this.views.set(id, { view, bytes });
    this.bytes += bytes;
    while (this.views.size > this.capacity || this.bytes > this.maxBytes) {
      const oldest = this.views.keys().next();
      if (oldest.done) break;
      this.forget(oldest.value);
    }
  }

  forget(pauseId: string): void {
    const kept = this.views.get(pauseId);
    if (kept === undefined) return;
    this.views.delete(pauseId);
    this.bytes -= kept.bytes;
  }
}
