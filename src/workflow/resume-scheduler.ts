import type { PauseSignals } from '../approvals/pause-signals.js';
import type { PauseView } from '../approvals/records.js';
import { errorMessage } from '../error-message.js';
import type { Log } from '../log.js';
import type { CardRefresher } from './card-refresher.js';
import type { CriticalPath } from './critical-path.js';
import type { ResumeTargets } from './resume-targets.js';
import type { ClaimedResume } from './resumer.js';
import type { KeyedWorkQueue } from './work-queue.js';

/**
 * The port through which whatever decides the last gate of a pause (a vote, an expiry, a
 * withdrawal, a verified vote, the Retry button) has it resumed. Never waits for the resume.
 */
export interface ResumeScheduling {
  /**
   * A lease for the vote about to decide the pause to claim its resume with in the same step
   * (`VoteInput.resumeClaim`); undefined when its target claims it on delivery.
   */
  leaseAhead(view: PauseView): { owner: string; leaseMs: number } | undefined;
  /**
   * `retry`: a person pressed Retry, so a failed resume may be claimed again. `claimed`: the vote
   * claimed the resume with a lease from `leaseAhead`.
   */
  pauseDecided(pauseId: string, options?: { retry?: boolean; claimed?: ClaimedResume }): void;
}

/**
 * Queues the resume of each decided pause on the queue of runs and resumes (long tasks, mostly
 * waiting on a model; one at a time per pause), on the critical path until its decisions are
 * sent, and hands it to the pause's target (`ResumeTargets`). With the approvals API, it also
 * wakes the long-polls of every replica.
 */
export class ResumeScheduler implements ResumeScheduling {
  /**
   * Set once by the composition (`resumeOn`): a resume streams the agent, whose next pause the
   * policy may decide at once, so the targets are built after what decides, which needs this.
   */
  private targets: ResumeTargets | undefined;
  /** When the click being decided on a pause arrived (`performance.now()`), for click → resume. */
  private readonly clickedAt = new Map<string, number>();

  constructor(
    private readonly deps: {
      runs: KeyedWorkQueue;
      criticalPath: CriticalPath;
      /** Wakes long-polls on every replica when a pause is decided. Absent: no approvals API. */
      signals?: PauseSignals;
      /** Holds a decided card's redraw for its resume: decided and resumed in one update. */
      cards?: Pick<CardRefresher, 'holdUntil'>;
      log: Log;
    },
  ) {}

  /** Where resumes go from now on; called once, before any work is taken. */
  resumeOn(targets: ResumeTargets): void {
    if (this.targets !== undefined) throw new Error('the resume targets are set already');
    this.targets = targets;
  }

  /**
   * Runs the decision of a click that arrived at `clickedAt`: a resume it schedules is timed from
   * it. Decisions on one pause run one at a time, so this is the click being decided.
   */
  async timeClick<T>(
    pauseId: string,
    clickedAt: number | undefined,
    task: () => Promise<T>,
  ): Promise<T> {
    if (clickedAt === undefined) return task();
    this.clickedAt.set(pauseId, clickedAt);
    try {
      return await task();
    } finally {
      this.clickedAt.delete(pauseId);
    }
  }

  leaseAhead(view: PauseView): { owner: string; leaseMs: number } | undefined {
    return this.targets?.leaseAhead(view);
  }

  pauseDecided(pauseId: string, options: { retry?: boolean; claimed?: ClaimedResume } = {}): void {
    const { targets } = this;
    if (targets === undefined)
      throw new Error('a resume was scheduled before its targets were set');
    if (this.deps.signals !== undefined) {
      // Long-polls on any replica wake on this: the pause is decided.
      this.deps.signals.notify(pauseId).catch((error: unknown) => {
        this.deps.log.warn('could not signal a decided pause', {
          pauseId,
          error: errorMessage(error),
        });
      });
    }
    const clickedAt = this.clickedAt.get(pauseId);
    // On the critical path from here until the decisions are sent, or not sent after all (the
    // resume ended without sending, or was refused at shutdown).
    const sending = this.deps.criticalPath.begin();
    const resumed = this.deps.runs
      .enqueue(pauseId, 'resume', () =>
        targets.resume(pauseId, {
          ...options,
          sending,
          ...(clickedAt === undefined ? {} : { clickedAt }),
        }),
      )
      .finally(sending);
    this.deps.cards?.holdUntil(pauseId, resumed);
  }
}
