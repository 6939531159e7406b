import { EventEmitter } from 'node:events';

/**
 * "This pause changed": told by whichever replica changed it, heard by every replica's long-poll
 * waiters, so that a decision reaches a waiting agent at once rather than at its next poll.
 * A signal carries no state: a waiter re-reads the pause from the store when woken.
 */
export interface PauseSignals {
  notify(pauseId: string): Promise<void>;
  /** Calls `listener` on each signal for the pause until the returned function is called. */
  listen(pauseId: string, listener: () => void): () => void;
  close(): Promise<void>;
}

/** In one process (the in-process store): the signal is an event. */
export class LocalPauseSignals implements PauseSignals {
  private readonly events = new EventEmitter();

  constructor() {
    // One listener per waiting request: thousands of long-polls are expected, not a leak.
    this.events.setMaxListeners(0);
  }

  async notify(pauseId: string): Promise<void> {
    this.events.emit(pauseId);
  }

  listen(pauseId: string, listener: () => void): () => void {
    this.events.on(pauseId, listener);
    return () => this.events.off(pauseId, listener);
  }

  async close(): Promise<void> {
    this.events.removeAllListeners();
  }
}
