import { AsyncLocalStorage } from 'node:async_hooks';
import { randomBytes } from 'node:crypto';

/**
 * One id per click, command or sweep, carried through everything done for it (across awaits and
 * the work queues, which bind tasks to the context they were queued in). Every log line written
 * meanwhile carries it, and so does any error message shown to a person, so that "reference
 * 3f9a0c1e" in Slack finds the log lines of what went wrong.
 */
const current = new AsyncLocalStorage<string>();

export function newCorrelationId(): string {
  return randomBytes(4).toString('hex');
}

/** Runs `work` (and everything it starts) under `id`. */
export function withCorrelation<T>(id: string, work: () => T): T {
  return current.run(id, work);
}

/** The id of the click, command or sweep being handled; undefined outside one. */
export function correlationId(): string | undefined {
  return current.getStore();
}
