import { errorMessage } from './error-message.js';
import type { Log } from './log.js';

/** The part of `process` the guard listens on. */
export interface ProcessEvents {
  on(event: 'unhandledRejection', listener: (reason: unknown) => void): unknown;
}

/**
 * Keeps serving after a promise rejection nobody handled. Node's default ends the process,
 * and with it every click and resume in flight, for what is usually one bad request (a library
 * throwing in a detached async function). The rejection is logged as an error — its message
 * only: a reason can carry a request's payload — so that it is seen and fixed.
 */
export function guardAgainstUnhandledRejections(target: ProcessEvents, log: Log): void {
  target.on('unhandledRejection', (reason) => {
    log.error('unhandled promise rejection; still serving', {
      error: errorMessage(reason),
      ...(reason instanceof Error ? { type: reason.name } : {}),
    });
  });
}
