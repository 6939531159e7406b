import { performance } from 'node:perf_hooks';

/**
 * Wall-clock milliseconds with the monotonic clock's resolution. Processes on one machine share
 * the wall clock, so a click's send time (clicker) and a resume's arrival (fake ADK, in the
 * benchmark) can be subtracted.
 */
export function epochMs(monotonicMs = performance.now()): number {
  return performance.timeOrigin + monotonicMs;
}
