import { StoreError } from '../approvals/store.js';
import { correlationId } from '../correlation.js';
import { errorMessage } from '../error-message.js';
import type { Log } from '../log.js';
import type { SlackMessage } from '../slack/codecs/block-kit.js';
import type { CriticalPath } from './critical-path.js';
import type { DecisionReply } from './decider.js';
import type { ResumeScheduler } from './resume-scheduler.js';
import type { VoteToVerify, VoteVerifier } from './vote-verifier.js';
import { afterPendingIo, KeyedWorkQueue } from './work-queue.js';

/** A later private word to the voter, when the store's answer was lost. */
export type Tell = (message: SlackMessage) => Promise<void>;

export interface DecisionOptions {
  /** When the click arrived (`performance.now()`): a resume it starts is timed from it. */
  clickedAt?: number;
  /** A vote whose outcome may be lost: checked later, and `tell` says what became of it. */
  unknown?: { check: VoteToVerify; tell: Tell | undefined };
}

/**
 * How every decision on a pause is run: one at a time per pause in the order the clicks arrived
 * (clicks on other cards go on in parallel), on the critical path that card redraws wait for,
 * and with its failures worded for the person who clicked. Sweeps that change a pause (an expiry,
 * a missing card) queue here too, in the same order.
 */
export class DecisionQueue {
  private readonly queue: KeyedWorkQueue;

  constructor(
    private readonly deps: {
      criticalPath: Pick<CriticalPath, 'track'>;
      resumes: Pick<ResumeScheduler, 'timeClick'>;
      verifier: Pick<VoteVerifier, 'verify'>;
      log: Log;
      /**
       * Decisions handled at once (short tasks: a vote, its check and store step). Default 8:
       * each starts after the clicks already received are acked, yet 16 let a burst of clicks
       * delay the acks of its last clicks (see bench/app.bench.ts and docs/performance.md).
       */
      concurrency?: number;
    },
  ) {
    this.queue = new KeyedWorkQueue(deps.log.child('decisions'), {
      concurrency: deps.concurrency ?? 8,
      // The acks of a burst's clicks before its decisions (bench/app.bench.ts: ack p99).
      admit: afterPendingIo,
    });
  }

  async decide(
    pauseId: string,
    task: () => Promise<DecisionReply>,
    { clickedAt, unknown }: DecisionOptions = {},
  ): Promise<DecisionReply> {
    const { criticalPath, resumes, log } = this.deps;
    try {
      return await criticalPath.track(() =>
        this.queue.run(pauseId, () => resumes.timeClick(pauseId, clickedAt, task)),
      );
    } catch (error) {
      log.error('decision failed', { pauseId, error: errorMessage(error) });
      // Sent but never answered: the vote may be recorded. Say so, then find out and say that.
      if (error instanceof StoreError && error.reason === 'outcome_unknown' && unknown?.tell) {
        this.deps.verifier.verify(unknown.check, unknown.tell);
        return { kind: 'refused', refusal: { kind: 'outcome_unknown' } };
      }
      return { kind: 'refused', refusal: { kind: 'decision_failed', reference: correlationId() } };
    }
  }

  /** Work on a pause that is no click (a sweep's): in the same order, nobody to answer. */
  enqueue(pauseId: string, label: string, task: () => Promise<void>): Promise<void> {
    return this.queue.enqueue(pauseId, label, task);
  }

  /** Stops taking decisions and waits for those taken, up to `timeoutMs`. */
  drain(timeoutMs: number): Promise<boolean> {
    return this.queue.drain(timeoutMs);
  }
}
