import { errorMessage } from '../error-message.js';
import type { Log } from '../log.js';

/** How long the start waits for the ADK server's list of apps. */
const START_CHECK_TIMEOUT_MS = 3_000;

/**
 * At start, asks the ADK server for its apps: one that does not answer is said at once, as a
 * warning naming the variable that points at it (the app still starts: the server may come up
 * later, and `/readyz` says not ready until it does).
 */
export async function checkAdkAtStart(
  adk: { listApps(options: { signal: AbortSignal }): Promise<string[]> },
  where: { variable: string; url: string },
  log: Log,
  timeoutMs = START_CHECK_TIMEOUT_MS,
): Promise<void> {
  try {
    const apps = await adk.listApps({ signal: AbortSignal.timeout(timeoutMs) });
    log.info(`${where.variable} answers`, { url: where.url, apps: apps.join(',') });
  } catch (error) {
    log.warn(
      `${where.variable} (${where.url}) does not answer: ${errorMessage(error)}. /agent runs and resumes fail, and /readyz answers 503, until it does`,
    );
  }
}
