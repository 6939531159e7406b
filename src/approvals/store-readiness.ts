import { errorMessage } from '../error-message.js';
import type { Log } from '../log.js';
import type { ApprovalStore } from './store.js';

/** How long `/readyz` keeps saying that the store lost its data, once the loss was found. */
export const STORE_LOSS_WARNING_MS = 24 * 60 * 60 * 1_000;

/**
 * The store's part of `/readyz`. A store that lost its data (Redis restarted without
 * persistence, flushed, evicted: its marker key is gone) still works for everything new, so
 * readiness does not hold it against the replicas: taking every one of them out of service
 * would lose no less and stop the new pauses too. The first check to find the marker gone logs
 * the loss as an error and places the marker again, which both proves that the store takes
 * writes and records when the loss was found; from then on every replica's `/readyz` answers
 * 200 and names the loss under `warnings` for a day. The check fails (503) only when the store
 * cannot be read or, having lost its data, cannot be written: the message says which.
 */
export class StoreReadiness {
  private lossFoundAt: number | undefined;

  constructor(
    private readonly deps: {
      store: Pick<ApprovalStore, 'lifecycle'>;
      clock: () => number;
      log: Log;
    },
  ) {}

  /** The readiness check: resolves when the store is usable, else throws saying why not. */
  readonly check = async (): Promise<void> => {
    const { store, clock, log } = this.deps;
    const marker = await store.lifecycle.readMarker();
    if (marker.kind === 'present') {
      this.lossFoundAt = marker.lossFoundAt;
      return;
    }
    const now = clock();
    log.error(
      'the store has lost its data (its marker key is gone): approvals pending then are lost; their cards say so when clicked',
    );
    try {
      await store.lifecycle.placeMarker({ now, lossFoundAt: now });
    } catch (error) {
      throw new Error(
        `the store has lost its data (its marker key is gone) and does not take writes: ${errorMessage(error)}`,
      );
    }
    // Another replica may have placed it first; its time of finding is as good as this one.
    this.lossFoundAt = now;
  };

  /** The warning `/readyz` shows while the loss is recent; undefined otherwise. */
  warning(): string | undefined {
    const found = this.lossFoundAt;
    if (found === undefined || this.deps.clock() - found > STORE_LOSS_WARNING_MS) return undefined;
    return `the store lost its data (its marker key was gone, found ${new Date(found).toISOString()}): approvals pending then are lost; their cards say so when clicked`;
  }
}
