import { randomUUID } from 'node:crypto';
import type { Clock } from '../approvals/clock.js';
import type { RunIntentStore, RunProgress } from '../approvals/store-roles/run-intents.js';
import { errorMessage } from '../error-message.js';
import type { Log } from '../log.js';

/** An accepted run whose intent is held in the store; `progress` and `finish` never throw. */
export interface HeldRun {
  readonly runId: string;
  /** The run got its thread: recorded, so that recovery knows where to say so. */
  progress(progress: RunProgress): Promise<void>;
  /** The run ended in a way its requester can see: the intent is dropped. */
  finish(): Promise<void>;
}

export interface RunAcceptance {
  userId: string;
  teamId: string | undefined;
  channelId: string;
  text: string;
}

/**
 * Run intents (issue 11): before an accepted `/agent` command has side effects, the store holds
 * who asked what where, under a lease this replica renews every third of it while the run goes
 * on. A replica killed mid-run stops renewing; the sweeper of any replica then claims the intent
 * and tells the requester (see `RunRecovery`).
 */
export class RunIntents {
  constructor(
    private readonly deps: {
      store: { runs: Pick<RunIntentStore, 'recordRun' | 'advanceRun' | 'finishRun'> };
      clock: Clock;
      log: Log;
      owner: string;
      leaseMs: number;
    },
  ) {}

  /** Records the intent and starts renewing it; undefined when the store could not record it. */
  async accept(input: RunAcceptance): Promise<HeldRun | undefined> {
    const { store, clock, log, owner, leaseMs } = this.deps;
    const runId = randomUUID();
    try {
      await store.runs.recordRun({
        intent: {
          id: runId,
          requester: input.userId,
          ...(input.teamId === undefined ? {} : { teamId: input.teamId }),
          channelId: input.channelId,
          text: input.text,
          acceptedAt: clock(),
        },
        owner,
        now: clock(),
        leaseMs,
      });
    } catch (error) {
      log.warn('could not record the run intent; a crash during this run goes unreported', {
        error: errorMessage(error),
      });
      return undefined;
    }
    let stopped = false;
    const advance = async (progress?: RunProgress) => {
      try {
        const result = await store.runs.advanceRun({
          runId,
          owner,
          now: clock(),
          leaseMs,
          ...(progress === undefined ? {} : { progress }),
        });
        if (result === 'lost' && !stopped) {
          log.warn('the run intent passed to another replica while the run went on', { runId });
          stop();
        }
      } catch (error) {
        log.warn('could not renew the run intent; trying again', {
          runId,
          error: errorMessage(error),
        });
      }
    };
    const timer = setInterval(() => void advance(), Math.max(100, Math.floor(leaseMs / 3)));
    timer.unref();
    const stop = () => {
      stopped = true;
      clearInterval(timer);
    };
    return {
      runId,
      progress: (progress) => (stopped ? Promise.resolve() : advance(progress)),
      async finish() {
        stop();
        try {
          await store.runs.finishRun({ runId, owner });
        } catch (error) {
          log.warn('could not drop the run intent; another replica will say the run died', {
            runId,
            error: errorMessage(error),
          });
        }
      },
    };
  }
}
