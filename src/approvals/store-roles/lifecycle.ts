/** The store as a whole: whether it still holds its data, and its connection. */
export interface StoreLifecycle {
  /**
   * Sets the marker that tells a store that lost its data from one that holds it (at start;
   * kept if it is there already). Redis restarted without persistence, flushed or evicted: the
   * marker is gone with everything else, and `readMarker` says so. Placed again after a loss,
   * it keeps when that loss was found (`lossFoundAt`), for every replica to report.
   */
  placeMarker(input: { now: number; lossFoundAt?: number }): Promise<void>;
  readMarker(): Promise<StoreMarker>;
  close(): Promise<void>;
}

/**
 * The store's marker: gone (the store lost its data), or there since `placedAt`; `lossFoundAt`
 * when it was placed again after a loss found then.
 */
export type StoreMarker =
  | { kind: 'missing' }
  | { kind: 'present'; placedAt: number; lossFoundAt?: number };
