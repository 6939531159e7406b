import type { PauseView } from '../approvals/records.js';
import type { ToolOutcome } from '../approvals/tool-outcomes.js';
import type { Log } from '../log.js';
import { CardHolds } from './card-holds.js';
import type { ApprovalCards } from './cards.js';
import type { CriticalPath } from './critical-path.js';
import { KeyedWorkQueue } from './work-queue.js';

export interface CardRefresherOptions {
  /** Cards re-rendered at once. Default 16. */
  concurrency?: number;
  /** Waits before trying a failed update again (a rate limit's own wait replaces an entry, capped by the last). */
  retryDelaysMs?: readonly number[];
  /** Longest a card's redraw waits for its pause's resume (`holdUntil`). Default 1 s. */
  resumeHoldMs?: number;
}

const DEFAULT_RETRY_DELAYS_MS = [1_000, 5_000, 15_000, 30_000, 60_000];
/**
 * As long as a redraw waits for the critical path (`REDRAW_MAX_WAIT_MS`): an agent that answers
 * within it (the bench's, the test agents') has its card drawn once per decision, decided and
 * resumed; a slower one's card shows the decision this much later, then the resume.
 */
const DEFAULT_RESUME_HOLD_MS = 1_000;

/**
 * Keeps cards in sync off the decision's critical path: a decision records the vote, schedules
 * the resume and asks for a refresh here, without waiting on Slack. Requests for one card are
 * coalesced (one render of the latest state: with `quiet`, requests made while a burst of
 * decisions is under way wait for it and merge), a failed update is tried again later (after
 * Slack's `Retry-After` when rate limited), and a hung or rate-limited channel holds at most
 * its own cards' slots — never a decision's or a resume's.
 */
export class CardRefresher {
  private readonly queue: KeyedWorkQueue;
  private readonly queued = new Set<string>();
  /** What a resume learned about its calls, for the next render of their card. */
  private readonly toolOutcomes = new Map<string, ReadonlyMap<string, ToolOutcome>>();
  /**
   * The view the change that asked for a refresh returned, while no later change asked: the
   * refresh renders it without reading the pause first (it still reads it after, to catch any
   * change made meanwhile by another replica).
   */
  private readonly latestViews = new Map<string, PauseView>();
  private readonly failures = new Map<string, number>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly retryDelaysMs: readonly number[];
  private readonly holds: CardHolds;

  /** `criticalPath`: each refresh waits for its quiet; default none. */
  constructor(
    private readonly deps: {
      cards: ApprovalCards;
      log: Log;
      options?: CardRefresherOptions;
      criticalPath?: Pick<CriticalPath, 'quiet'>;
    },
  ) {
    const holds = new CardHolds(deps.options?.resumeHoldMs ?? DEFAULT_RESUME_HOLD_MS);
    this.holds = holds;
    const { criticalPath } = deps;
    this.queue = new KeyedWorkQueue(deps.log, {
      concurrency: deps.options?.concurrency ?? 16,
      admit: async (pauseId) => {
        await holds.released(pauseId);
        await criticalPath?.quiet();
      },
    });
    this.retryDelaysMs = deps.options?.retryDelaysMs ?? DEFAULT_RETRY_DELAYS_MS;
  }

  /**
   * Re-render this pause's card soon, with what the resume learned of its calls when given.
   * `view`: the pause as the change returned it, when the caller has it. Never waits and never
   * throws.
   */
  request(
    pauseId: string,
    toolOutcomes?: ReadonlyMap<string, ToolOutcome>,
    view?: PauseView,
  ): void {
    if (toolOutcomes !== undefined) this.toolOutcomes.set(pauseId, toolOutcomes);
    if (view === undefined) this.latestViews.delete(pauseId);
    else this.latestViews.set(pauseId, view);
    // The resume marked the pause resumed: what the hold waits for. The card is drawn now, not
    // after the rest of the resume (a rejection's reasons, sent to the agent as one more turn).
    if (view?.pause.resume.state === 'resumed') this.holds.release(pauseId);
    if (this.queued.has(pauseId)) return;
    this.queued.add(pauseId);
    void this.queue.enqueue(pauseId, 'card refresh', async () => {
      this.queued.delete(pauseId);
      const latest = this.latestViews.get(pauseId);
      this.latestViews.delete(pauseId);
      const outcome = await this.deps.cards.refresh(pauseId, {
        toolOutcomes: () => this.toolOutcomes.get(pauseId),
        ...(latest === undefined ? {} : { known: latest }),
        // A change asked for meanwhile has its own refresh queued behind this one (none is
        // taken once draining began).
        superseded: () => this.queued.has(pauseId) && this.queue.open,
      });
      if (outcome.kind === 'done') {
        this.failures.delete(pauseId);
        // Kept for a refresh still queued; a later resume's request brings its own again.
        if (!this.queued.has(pauseId)) this.toolOutcomes.delete(pauseId);
        return;
      }
      this.retryLater(pauseId, outcome.retryAfterMs);
    });
  }

  /**
   * The pause's resume is under way until `resumed` settles: its card's redraws wait for it (at
   * most `resumeHoldMs`, and no longer than until a refresh brings the view of the pause marked
   * resumed), and the redraw asked for by the decision and the one asked for by the resume are one
   * `chat.update`.
   */
  holdUntil(pauseId: string, resumed: Promise<unknown>): void {
    this.holds.hold(pauseId, resumed);
  }

  /**
   * What a resume learned of its calls, before it marks the pause resumed: the next render of the
   * card (one under way included) shows it. Asks for no refresh: the mark's own request does.
   */
  knowToolOutcomes(pauseId: string, toolOutcomes: ReadonlyMap<string, ToolOutcome>): void {
    this.toolOutcomes.set(pauseId, toolOutcomes);
  }

  /** Stops retrying and waits for the refreshes under way, up to `timeoutMs`. */
  async drain(timeoutMs: number): Promise<boolean> {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    return this.queue.drain(timeoutMs);
  }

  private retryLater(pauseId: string, retryAfterMs: number | undefined): void {
    const failures = (this.failures.get(pauseId) ?? 0) + 1;
    const delay = this.retryDelaysMs[failures - 1];
    if (delay === undefined) {
      this.failures.delete(pauseId);
      this.deps.log.warn('gave up updating the card; the next change renders it again', {
        pauseId,
        attempts: failures,
      });
      return;
    }
    this.failures.set(pauseId, failures);
    const cap = this.retryDelaysMs.at(-1) ?? delay;
    const wait = retryAfterMs === undefined ? delay : Math.min(retryAfterMs, cap);
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      this.request(pauseId);
    }, wait);
    timer.unref();
    this.timers.add(timer);
  }
}
