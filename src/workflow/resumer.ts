import { randomUUID } from 'node:crypto';
import type { AdkClient } from '../adk/client.js';
import type { AdkError } from '../adk/errors.js';
import type { Clock } from '../approvals/clock.js';
import type { PauseView } from '../approvals/records.js';
import { endedStatus, type RunStatus } from '../approvals/run-status.js';
import type { ApprovalStore } from '../approvals/store.js';
import { correlationId } from '../correlation.js';
import type { Log } from '../log.js';
import type { Metrics } from '../metrics.js';
import {
  renderDecisionsElsewhere,
  renderResumeFailed,
  renderResumeRefused,
  renderRunError,
  renderSentBack,
} from '../slack/render/thread.js';
import type { ApprovalTracing } from '../tracing/approval-tracing.js';
import type { ApprovalChecks, SentBack } from './approval-checks.js';
import type { CardUpdates } from './card-updates.js';
import { startLeaseHeartbeat } from './lease-heartbeat.js';
import { noteReRequests } from './re-requests.js';
import { rejectionFollowUp } from './resume-decisions.js';
import { type ResumerOptions, ResumeSender, type ResumeTiming } from './resume-sender.js';
import { runErrorOf } from './run-errors.js';
import { type RunStatusBoard, runThreadOf } from './run-status-board.js';
import type { RunContext, RunStreamer } from './run-streamer.js';
import type { RunThreads } from './run-thread.js';

export interface ResumerDeps {
  store: Pick<ApprovalStore, 'pauses' | 'leases' | 'reports' | 'notes'>;
  /** The card is redrawn and its Homes follow; never waits on Slack. */
  cards: CardUpdates;
  adk: Pick<AdkClient, 'getSession'>;
  streamer: RunStreamer;
  threads: RunThreads;
  clock: Clock;
  log: Log;
  metrics: Metrics;
  tracing: ApprovalTracing;
  options: ResumerOptions;
  sleep?: (ms: number) => Promise<void>;
  /** Keeps the run's root message saying where the run stands. Absent: it is left alone. */
  runStatus?: RunStatusBoard;
  /** The re-check at the moment of use. Absent: approvals are not re-checked. */
  checks?: Pick<ApprovalChecks, 'recheck'>;
}

/**
 * A resume the vote that decided the pause claimed for this replica (`VoteInput.resumeClaim`):
 * the lease is held from `at` on, as if `claimResume` had answered.
 */
export interface ClaimedResume {
  owner: string;
  view: PauseView;
  attempt: number;
  /** When the lease began (the vote's clock). */
  at: number;
}

/**
 * Step 6 of the flow: once every gate of a pause is decided, one replica claims the resume, sends
 * one message that answers every gate, and streams the continuation into the run's thread.
 * A resume that fails is retried while the request cannot have reached the agent, then shown on
 * the card with a Retry button; it is never dropped.
 */
export class Resumer {
  private readonly sender: ResumeSender;
  /** The leases offered to votes (`leaseAhead`) and not yet resumed under. */
  private readonly offered: OfferedLeases;

  constructor(private readonly deps: ResumerDeps) {
    this.sender = new ResumeSender(deps);
    this.offered = new OfferedLeases(deps.options.leaseMs);
  }

  /** The gates go back to pending; the card and the thread say why. Nothing reaches the agent. */
  private async sendBack(
    view: PauseView,
    context: RunContext,
    owner: string,
    { voter, why, callIds }: SentBack,
  ): Promise<void> {
    const pauseId = view.pause.id;
    const result = await this.deps.store.pauses.reopen({
      pauseId,
      owner,
      callIds,
      voter,
      why,
      now: this.deps.clock(),
    });
    if (result.kind !== 'reopened' || result.callIds.length === 0) {
      this.deps.log.warn('could not send the approval back; nothing was sent', {
        pauseId,
        outcome: result.kind,
      });
      return;
    }
    this.deps.cards.pauseChanged(pauseId);
    const tools = result.view.gates
      .filter((gate) => result.callIds.includes(gate.confirmationCallId))
      .map((gate) => gate.originalCall.name);
    const { channelId, ts } = result.view.pause.card;
    this.setRunStatus(context, {
      kind: 'waiting',
      ...(ts === undefined ? {} : { card: { channelId, ts } }),
    });
    await this.deps.threads.post(context.thread, renderSentBack(voter, tools, why));
  }

  private setRunStatus(context: RunContext, status: RunStatus): void {
    const thread = runThreadOf(context.thread);
    if (thread !== undefined) this.deps.runStatus?.set(thread, status);
  }

  /**
   * A lease for a resume by this resumer, for the vote that decides the pause to claim in the
   * same step. A lease is never shared, not even by one replica's click handler and its sweeper:
   * each attempt has an owner of its own.
   */
  leaseAhead(): { owner: string; leaseMs: number } {
    const owner = this.newOwner();
    this.offered.note(owner, this.deps.clock());
    return { owner, leaseMs: this.deps.options.leaseMs };
  }

  private newOwner(): string {
    return `${this.deps.options.owner}:${randomUUID().slice(0, 8)}`;
  }

  /**
   * `retry`: a person pressed Retry, so a failed resume may be claimed again. `claimed`: the vote
   * that decided the pause claimed it already. `sending` is not called when nothing is sent (not
   * claimed, sent back, answered before).
   */
  async resume(
    pauseId: string,
    {
      retry = false,
      claimed,
      ...timing
    }: { retry?: boolean; claimed?: ClaimedResume } & ResumeTiming = {},
  ): Promise<void> {
    // A lease offered to a vote is resumed under once in this process: by the task its vote
    // scheduled, or by a claim that finds the lease of a vote whose answer was lost.
    if (claimed !== undefined && this.offered.take(claimed.owner) === undefined) {
      this.deps.log.debug('resume not claimed', { pauseId, outcome: 'resumed under already' });
      return;
    }
    const held =
      claimed === undefined ? await this.claim(pauseId, retry) : { ...claimed, retried: false };
    if (held === undefined || !(await this.stillHeld(pauseId, held))) return;
    const { owner } = held;
    const heartbeat = startLeaseHeartbeat(this.deps, {
      pauseId,
      owner,
      leaseMs: this.deps.options.leaseMs,
    });
    try {
      await this.resumeClaimed(held, owner, timing);
    } finally {
      heartbeat.stop();
    }
  }

  private async claim(
    pauseId: string,
    retry: boolean,
  ): Promise<(ClaimedResume & { retried: boolean }) | undefined> {
    // Not an offered lease: a claim made here is resumed under by this call alone.
    const owner = this.newOwner();
    const { leaseMs } = this.deps.options;
    const now = this.deps.clock();
    const claim = await this.deps.store.leases.claimResume({
      pauseId,
      owner,
      now,
      leaseMs,
      retryFailed: retry,
    });
    if (claim.kind === 'leased') {
      // Leased by a vote this resumer offered a lease to, whose answer never came back (the vote
      // was applied, its claim with it): that lease is this resume's.
      const { leaseOwner, attempts } = claim.view.pause.resume;
      const offeredAt = leaseOwner === undefined ? undefined : this.offered.take(leaseOwner);
      if (leaseOwner !== undefined && offeredAt !== undefined) {
        this.deps.log.info('resuming under the lease its deciding vote claimed', { pauseId });
        return {
          owner: leaseOwner,
          view: claim.view,
          attempt: attempts,
          retried: false,
          at: offeredAt,
        };
      }
    }
    if (claim.kind !== 'claimed') {
      this.deps.log.debug('resume not claimed', { pauseId, outcome: claim.kind });
      return undefined;
    }
    const { view, attempt, retried } = claim;
    return { owner, view, attempt, retried, at: now };
  }

  /**
   * Whether the lease is still this resume's: a lease claimed ahead by a vote may have waited in
   * the queue; past half its length it is renewed before anything is sent, so that a lease that
   * lapsed meanwhile (and may have been taken over) sends nothing.
   */
  private async stillHeld(pauseId: string, held: ClaimedResume): Promise<boolean> {
    const { leaseMs } = this.deps.options;
    const now = this.deps.clock();
    if (now - held.at < leaseMs / 2) return true;
    const renewed = await this.deps.store.leases.renewLease({
      pauseId,
      owner: held.owner,
      now,
      leaseMs,
    });
    if (renewed.kind === 'renewed') return true;
    this.deps.log.warn('the resume’s lease lapsed before it started; another replica resumes it', {
      pauseId,
      outcome: renewed.kind,
    });
    return false;
  }

  private async resumeClaimed(
    { view, attempt, retried }: { view: PauseView; attempt: number; retried: boolean },
    owner: string,
    timing: ResumeTiming,
  ): Promise<void> {
    const { store, cards, log } = this.deps;
    const pauseId = view.pause.id;
    log.info('resuming', { pauseId, attempt, app: view.pause.adk.appName });
    // A first attempt follows the card update of the decision itself, which already says "the
    // agent resumes shortly": showing "resuming" too would cost a chat.update and two store reads
    // per decision (the bench's CPU profile). Retries and takeovers do show it.
    if (attempt > 1) cards.pauseChanged(pauseId);

    const context = runContextOf(view);
    if (attempt > 1) {
      const earlier = await this.sender.earlierAnswer(view);
      if (earlier !== undefined && retried && earlier.length === 0) {
        // The failed attempt reached the agent, which did nothing with the answers (ADK refused
        // them): a Retry never turns that into "resumed".
        await this.markRefused(view, context, owner, undefined);
        return;
      }
      if (earlier !== undefined) {
        log.info('the agent already has these decisions; posting what it said after them', {
          pauseId,
          events: earlier.length,
        });
        // Posted before the pause is marked resumed: a crash in between posts it twice rather
        // than never.
        const { reRequests } = await this.deps.streamer.replay(context, earlier, view);
        const toolOutcomes = await noteReRequests(this.deps, pauseId, owner, reRequests);
        await store.leases.markResumed({ pauseId, owner, now: this.deps.clock() });
        cards.pauseChanged(pauseId, { toolOutcomes });
        return;
      }
    }
    // The moment of use: an approval that no longer holds sends nothing.
    const sentBack = await this.deps.checks?.recheck(view);
    if (sentBack !== undefined) {
      await this.sendBack(view, context, owner, sentBack);
      return;
    }
    // A card in another channel: the run's thread learns the decisions there, once.
    const elsewhere = attempt === 1 ? renderDecisionsElsewhere(view) : undefined;
    if (elsewhere !== undefined) await this.deps.threads.post(context.thread, elsewhere);
    // No "running" on the root while the answer streams: it would cost a chat.update per
    // decision; the root goes from waiting to how the run ended (or to the next pause).
    const sentAt = this.deps.clock();
    const { outcome, tries } = await this.sender.send(view, context, timing);
    this.deps.tracing.resumeSent(view, {
      how: 'adk',
      startedAt: sentAt,
      attempt,
      ...(outcome.kind === 'failed' ? { error: outcome.error.reason } : {}),
    });
    if (outcome.kind === 'failed' && outcome.error.intentMismatch !== undefined) {
      // ADK stored the answers, then refused them (IntentMismatchError): nothing ran.
      await this.markRefused(view, context, owner, outcome.error);
      return;
    }
    // A failure before any answer came back: the agent may still hold the decisions (it stored
    // them, then failed). Retry is offered only when its session does not.
    const received =
      outcome.kind === 'failed' && !outcome.delivered
        ? await this.sender.earlierAnswer(view)
        : undefined;
    if (outcome.kind === 'failed' && received !== undefined) {
      if (received.length === 0) {
        await this.markRefused(view, context, owner, outcome.error);
        return;
      }
      // It acted on them before failing: what it said is posted, and the failure below.
      await this.deps.streamer.replay(context, received, view);
    }
    const now = this.deps.clock();
    if (outcome.kind === 'failed' && !outcome.delivered && received === undefined) {
      const finish = await store.leases.markResumeFailed({
        pauseId,
        owner,
        now,
        // The card counts claims (Retry presses); the tries within this one are said here.
        error: tries > 1 ? `${tries} tries: ${outcome.error.message}` : outcome.error.message,
      });
      this.deps.metrics.resumeFailed(outcome.error.reason);
      log.error('resume failed', {
        pauseId,
        reason: outcome.error.reason,
        error: outcome.error.message,
        recorded: finish.kind,
      });
      cards.pauseChanged(pauseId);
      this.setRunStatus(context, { kind: 'failed' });
      // Said once in the thread; a failed Retry only updates the card, which shows the error.
      if (attempt === 1) {
        await this.deps.threads.post(
          context.thread,
          renderResumeFailed(runErrorOf(outcome.error), correlationId()),
        );
      }
      return;
    }

    // Delivered: the agent has the decisions, even if its answer broke off.
    const toolOutcomes =
      outcome.kind === 'completed'
        ? await noteReRequests(this.deps, pauseId, owner, outcome.reRequests, outcome.toolOutcomes)
        : undefined;
    if (toolOutcomes !== undefined) cards.knowToolOutcomes(pauseId, toolOutcomes);
    const finish = await store.leases.markResumed({ pauseId, owner, now });
    if (finish.kind === 'lost_lease') {
      log.warn('resume finished after the lease passed to another replica', { pauseId });
    }
    cards.pauseChanged(pauseId, {
      ...(toolOutcomes === undefined ? {} : { toolOutcomes }),
      ...(finish.kind === 'not_found' ? {} : { view: finish.view }),
    });
    if (outcome.kind === 'failed') {
      this.setRunStatus(context, { kind: 'failed' });
      await this.deps.threads.post(
        context.thread,
        renderRunError(runErrorOf(outcome.error), correlationId()),
      );
      return;
    }
    // A new pause set "waiting" itself while the answer streamed; a re-request stopped the run.
    if (outcome.reRequests.length > 0) this.setRunStatus(context, { kind: 'failed' });
    else if (outcome.pauses === 0) this.setRunStatus(context, endedStatus(view));
    await this.sendRejectionFollowUp(view, context);
  }

  /**
   * The agent holds the answers and did not act on them: no Retry, since sending them again
   * cannot help. `error`: this attempt's failure; undefined when only an earlier one is known.
   */
  private async markRefused(
    view: PauseView,
    context: RunContext,
    owner: string,
    error: AdkError | undefined,
  ): Promise<void> {
    const pauseId = view.pause.id;
    const lastError =
      error?.message ?? view.pause.resume.lastError ?? 'the agent did not act on the decisions';
    const finish = await this.deps.store.leases.markResumeRefused({
      pauseId,
      owner,
      now: this.deps.clock(),
      error: lastError,
    });
    this.deps.metrics.resumeFailed('refused');
    this.deps.log.warn('the agent received the decisions and did not act on them', {
      pauseId,
      ...(error?.intentMismatch ? { adkReason: error.intentMismatch.reason } : {}),
      ...(error === undefined ? {} : { reason: error.reason }),
      recorded: finish.kind,
    });
    this.deps.cards.pauseChanged(pauseId);
    this.setRunStatus(context, { kind: 'failed' });
    await this.deps.threads.post(
      context.thread,
      renderResumeRefused(error === undefined ? undefined : runErrorOf(error), correlationId()),
    );
  }

  /** ADK drops text sent beside the function responses, so the reasons follow as a message. */
  private async sendRejectionFollowUp(view: PauseView, context: RunContext): Promise<void> {
    const text = rejectionFollowUp(view);
    if (text === undefined) return;
    const outcome = await this.deps.streamer.stream(context, {
      appName: view.pause.adk.appName,
      userId: view.pause.adk.userId,
      sessionId: view.pause.adk.sessionId,
      newMessage: { role: 'user', parts: [{ text }] },
    });
    if (outcome.kind === 'failed') {
      await this.deps.threads.post(
        context.thread,
        renderRunError(runErrorOf(outcome.error), correlationId()),
      );
    }
  }
}

/** Where the continuation of a pause is streamed. */
export function runContextOf(view: PauseView): RunContext {
  const { pause } = view;
  // A card outside any thread gathers the continuation in its own thread.
  const threadTs = pause.card.threadTs ?? pause.card.ts;
  const thread = pause.runThread ?? {
    channelId: pause.card.channelId,
    ...(threadTs === undefined ? {} : { threadTs }),
  };
  return {
    appName: pause.adk.appName,
    userId: pause.adk.userId,
    sessionId: pause.adk.sessionId,
    requester: pause.requester,
    teamId: pause.card.teamId,
    thread,
    ...(pause.origin?.prompt === undefined ? {} : { prompt: pause.origin.prompt }),
  };
}

/**
 * Lease owners this resumer handed to votes, each with when: a vote's claim whose answer was lost
 * is still recognised as this resumer's. Kept one lease long (the claim lapses after it anyway).
 */
class OfferedLeases {
  private readonly at = new Map<string, number>();

  constructor(private readonly leaseMs: number) {}

  note(owner: string, now: number): void {
    for (const [earlier, when] of this.at) {
      if (now - when < this.leaseMs) break;
      this.at.delete(earlier);
    }
    this.at.set(owner, now);
  }

  /** When `owner` was offered, if this resumer offered it and nobody resumed under it yet. */
  take(owner: string): number | undefined {
    const when = this.at.get(owner);
    this.at.delete(owner);
    return when;
  }
}
