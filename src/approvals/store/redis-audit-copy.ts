import { errorMessage } from '../../error-message.js';
import type { Log } from '../../log.js';
import { appendToAuditStream, type StreamEntry } from './redis-audit.js';
import type { RedisClient } from './redis-connection.js';

/** The pauses a lost copy's log line names at most (a sweep's batch holds a thousand). */
const LOST_PAUSES_NAMED = 20;

/**
 * The waits before each further try of a copy that failed: past the client's first reconnects
 * (redis-connection.ts), under two seconds in all, which whoever waits on the copy waits too.
 */
export const COPY_RETRY_DELAYS_MS: readonly number[] = [250, 500, 1_000];

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Copies sealed lines into the store-wide audit stream, the one place each line is kept (the
 * pause keeps only its chain head), trying again when a copy fails: a try after the first adds
 * each entry only if an earlier try did not (its answer may be what was lost). A copy that still
 * fails loses the lines: said at error level, naming the pauses and how many lines each lost
 * (never their content, which may quote a tool's arguments), and thrown; `audit verify` names
 * the gap in each chain.
 */
export class AuditStreamCopy {
  constructor(
    private readonly redis: RedisClient,
    private readonly key: string,
    private readonly log: Pick<Log, 'error'> | undefined,
    private readonly sleep: (ms: number) => Promise<void> = defaultSleep,
  ) {}

  async copy(entries: readonly StreamEntry[]): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      try {
        await appendToAuditStream(this.redis, this.key, entries, attempt > 0);
        return;
      } catch (error) {
        const delay = COPY_RETRY_DELAYS_MS[attempt];
        if (delay === undefined) {
          this.reportLost(entries, error);
          throw error;
        }
        await this.sleep(delay);
      }
    }
  }

  private reportLost(entries: readonly StreamEntry[], error: unknown): void {
    const lost = new Map<string, number>();
    for (const { pauseId } of entries) lost.set(pauseId, (lost.get(pauseId) ?? 0) + 1);
    const named = [...lost].slice(0, LOST_PAUSES_NAMED);
    const more = lost.size - named.length;
    this.log?.error('audit lines were not copied to the store-wide audit: they are lost', {
      lines: entries.length,
      tries: COPY_RETRY_DELAYS_MS.length + 1,
      pauses:
        named.map(([pauseId, lines]) => `${pauseId}:${lines}`).join(',') +
        (more > 0 ? ` and ${more} more` : ''),
      error: errorMessage(error),
    });
  }
}
