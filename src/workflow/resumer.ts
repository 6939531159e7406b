import { randomUUID } from 'node:crypto';
import type { AdkClient } from '../adk/client.js';
import { AdkError } from '../adk/errors.js';
import { isResumabilityRefusal } from '../adk/resumability.js';
import { type AdkEvent, answeredConfirmationIds, buildResume } from '../adk/wire.js';
import type { Clock } from '../approvals/clock.js';
import type { PauseView } from '../approvals/records.js';
import { endedStatus, type RunStatus } from '../approvals/run-status.js';
import type { ConfirmationStore } from '../approvals/store.js';
import type { ToolOutcome } from '../approvals/tool-outcomes.js';
import { correlationId } from '../correlation.js';
import type { Log } from '../log.js';
import { type Metrics, secondsSince } from '../metrics.js';
import {
  renderDecisionsElsewhere,
  renderResumeFailed,
  renderResumeRefused,
  renderRunError,
  renderSentBack,
} from '../slack/render/thread.js';
import type { ApprovalTracing } from '../tracing/approval-tracing.js';
import type { SentBack } from './decider.js';
import { startLeaseHeartbeat } from './lease-heartbeat.js';
import { noteReRequests } from './re-requests.js';
import { decisionsFor, rejectionFollowUp } from './resume-decisions.js';
import { runErrorOf } from './run-errors.js';
import { type RunStatusBoard, runThreadOf } from './run-status-board.js';
import type { RunContext, RunStreamer, StreamOutcome } from './run-streamer.js';
import type { RunThreads } from './run-thread.js';

export interface ResumerOptions {
  /** This replica's name; each resume attempt adds a suffix of its own for its lease. */
  owner: string;
  /** How long a claim holds: long enough for the continuation to stream. */
  leaseMs: number;
  /**
   * Whether to send `invocationId` (needed by Python apps with resumability): `auto` sends it and
   * learns per app from a refusal; `true` the same, warning that the setting is wrong when
   * refused; `false` never sends it.
   */
  resumable: 'auto' | 'true' | 'false';
  /** Waits between attempts; one attempt more than there are entries. */
  retryDelaysMs: readonly number[];
}

/** A resume's moments others follow. */
export interface ResumeTiming {
  /** `performance.now()` of the click that decided the pause: times click → resume. */
  clickedAt?: number;
  /** Called as the decisions are first sent to the agent. */
  sending?: () => void;
}

/**
 * Step 6 of the flow: once every gate of a pause is decided, one replica claims the resume, sends
 * one message that answers every gate, and streams the continuation into the run's thread.
 * A resume that fails is retried while the request cannot have reached the agent, then shown on
 * the card with a Retry button; it is never dropped.
 */
export class Resumer {
  /** Apps of this ADK target that refused `invocationId`: never sent to them again. */
  private readonly notResumable = new Set<string>();

  constructor(
    private readonly deps: {
      store: ConfirmationStore;
      /** Asks for the card to be re-rendered; never waits on Slack. */
      refreshCard: (
        pauseId: string,
        toolOutcomes?: ReadonlyMap<string, ToolOutcome>,
        view?: PauseView,
      ) => void;
      /**
       * What the resumed calls did, told before the pause is marked resumed: a card refresh
       * already under way that sees that mark shows them too, and the refresh asked for after the
       * mark has nothing new to send.
       */
      knowToolOutcomes: (pauseId: string, toolOutcomes: ReadonlyMap<string, ToolOutcome>) => void;
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
      /** The re-check at the moment of use (`Decider.recheck`). Absent: approvals are not re-checked. */
      recheck?: (view: PauseView) => Promise<SentBack | undefined>;
    },
  ) {}

  /** The gates go back to pending; the card and the thread say why. Nothing reaches the agent. */
  private async sendBack(
    view: PauseView,
    context: RunContext,
    owner: string,
    { voter, why, callIds }: SentBack,
  ): Promise<void> {
    const pauseId = view.pause.id;
    const result = await this.deps.store.reopen({
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
    this.deps.refreshCard(pauseId);
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
   * `retry`: a person pressed Retry, so a failed resume may be claimed again. `sending` is not
   * called when nothing is sent (not claimed, sent back, answered before).
   */
  async resume(
    pauseId: string,
    { retry = false, ...timing }: { retry?: boolean } & ResumeTiming = {},
  ): Promise<void> {
    const { store, log, options } = this.deps;
    // A lease is never shared, not even by one replica's click handler and its sweeper: each
    // attempt has an owner of its own.
    const owner = `${options.owner}:${randomUUID().slice(0, 8)}`;
    const claim = await store.claimResume({
      pauseId,
      owner,
      now: this.deps.clock(),
      leaseMs: options.leaseMs,
      retryFailed: retry,
    });
    if (claim.kind !== 'claimed') {
      log.debug('resume not claimed', { pauseId, outcome: claim.kind });
      return;
    }
    const heartbeat = startLeaseHeartbeat(this.deps, { pauseId, owner, leaseMs: options.leaseMs });
    try {
      await this.resumeClaimed(claim, owner, timing);
    } finally {
      heartbeat.stop();
    }
  }

  private async resumeClaimed(
    { view, attempt, retried }: { view: PauseView; attempt: number; retried: boolean },
    owner: string,
    timing: ResumeTiming,
  ): Promise<void> {
    const { store, refreshCard, log } = this.deps;
    const pauseId = view.pause.id;
    log.info('resuming', { pauseId, attempt, app: view.pause.adk.appName });
    // A first attempt follows the card update of the decision itself, which already says "the
    // agent resumes shortly": showing "resuming" too would cost a chat.update and two store reads
    // per decision (the bench's CPU profile). Retries and takeovers do show it.
    if (attempt > 1) refreshCard(pauseId);

    const context = runContextOf(view);
    if (attempt > 1) {
      const earlier = await this.earlierAnswer(view);
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
        await store.markResumed({ pauseId, owner, now: this.deps.clock() });
        refreshCard(pauseId, toolOutcomes);
        return;
      }
    }
    // The moment of use: an approval that no longer holds sends nothing.
    const sentBack = await this.deps.recheck?.(view);
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
    const { outcome, tries } = await this.sendWithRetries(view, context, timing);
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
      outcome.kind === 'failed' && !outcome.delivered ? await this.earlierAnswer(view) : undefined;
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
      const finish = await store.markResumeFailed({
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
      refreshCard(pauseId);
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
    if (toolOutcomes !== undefined) this.deps.knowToolOutcomes(pauseId, toolOutcomes);
    const finish = await store.markResumed({ pauseId, owner, now });
    if (finish.kind === 'lost_lease') {
      log.warn('resume finished after the lease passed to another replica', { pauseId });
    }
    refreshCard(pauseId, toolOutcomes, finish.kind === 'not_found' ? undefined : finish.view);
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
    const finish = await this.deps.store.markResumeRefused({
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
    this.deps.refreshCard(pauseId);
    this.setRunStatus(context, { kind: 'failed' });
    await this.deps.threads.post(
      context.thread,
      renderResumeRefused(error === undefined ? undefined : runErrorOf(error), correlationId()),
    );
  }

  /**
   * A resume taken over from a replica that died, retried after a failure, or whose request
   * timed out may have reached the agent already. Answering again runs nothing but costs a model
   * turn, and what the agent said after the answers would never reach the thread; so the session
   * is read first. The events after the answers when every gate is answered there; undefined when
   * not, or when the session cannot be read (the answers are then sent: ADK would not run a tool
   * twice).
   */
  private async earlierAnswer(view: PauseView): Promise<AdkEvent[] | undefined> {
    const { appName, userId, sessionId } = view.pause.adk;
    try {
      const session = await this.deps.adk.getSession(appName, userId, sessionId);
      const answered = answeredConfirmationIds(session.events);
      if (!view.gates.every((gate) => answered.has(gate.confirmationCallId))) return undefined;
      const ids = new Set(view.gates.map((gate) => gate.confirmationCallId));
      const last = session.events.findLastIndex((event) =>
        [...answeredConfirmationIds([event])].some((id) => ids.has(id)),
      );
      return session.events.slice(last + 1);
    } catch (error) {
      if (!(error instanceof AdkError)) throw error;
      this.deps.log.warn('could not read the session to look for earlier answers', {
        pauseId: view.pause.id,
        error: error.message,
      });
      return undefined;
    }
  }

  private async sendWithRetries(
    view: PauseView,
    context: RunContext,
    timing: ResumeTiming,
  ): Promise<SentResume> {
    const { appName } = view.pause.adk;
    const withInvocation = this.sendsInvocationId(view);
    const first = await this.sendWithRetriesAs(view, context, withInvocation, timing);
    const { outcome } = first;
    if (withInvocation && outcome.kind === 'failed' && isResumabilityRefusal(outcome.error)) {
      // Refused before the message was stored: resending without it answers nothing twice.
      this.notResumable.add(appName);
      const fields = { pauseId: view.pause.id, app: appName };
      if (this.deps.options.resumable === 'true') {
        this.deps.log.warn(
          'ADK_RESUMABLE=true, but the ADK app refused invocationId; resending without it',
          fields,
        );
      } else {
        this.deps.log.info('the ADK app refused invocationId; resending without it', fields);
      }
      const again = await this.sendWithRetriesAs(view, context, false, {});
      return { outcome: again.outcome, tries: first.tries + again.tries };
    }
    return first;
  }

  private sendsInvocationId(view: PauseView): boolean {
    const { options } = this.deps;
    if (options.resumable === 'false' || this.notResumable.has(view.pause.adk.appName)) {
      return false;
    }
    const invocations = new Set(view.gates.map((gate) => gate.invocationId));
    const shared = invocations.size === 1 && !invocations.has(undefined);
    if (!shared && options.resumable === 'true') {
      this.deps.log.warn('ADK_RESUMABLE=true, but the gates share no invocation id to send', {
        pauseId: view.pause.id,
      });
    }
    return shared;
  }

  private async sendWithRetriesAs(
    view: PauseView,
    context: RunContext,
    resumable: boolean,
    timing: ResumeTiming,
  ): Promise<SentResume> {
    const { options, streamer } = this.deps;
    const sleep = this.deps.sleep ?? defaultSleep;
    let message: ReturnType<typeof buildResume>;
    try {
      message = buildResume(view.gates, decisionsFor(view), { resumable });
    } catch (error) {
      // Nothing was sent: a failure the card shows, never a resume stuck in "resuming".
      if (!(error instanceof AdkError)) throw error;
      return { outcome: { kind: 'failed', error, delivered: false }, tries: 0 };
    }
    const { newMessage, invocationId } = message;
    // Not `...view.pause.adk`: that holds the invocation id whether or not it may be sent.
    const { appName, userId, sessionId } = view.pause.adk;
    const request = {
      appName,
      userId,
      sessionId,
      newMessage,
      ...(invocationId === undefined ? {} : { invocationId }),
    };
    timing.sending?.();
    if (timing.clickedAt !== undefined) {
      this.deps.metrics.clickToResume(secondsSince(timing.clickedAt));
    }
    let outcome = await streamer.stream(context, request, view);
    let tries = 1;
    for (let retry = 0; ; retry += 1) {
      if (outcome.kind !== 'failed' || outcome.delivered) return { outcome, tries };
      // A timeout or a broken connection says nothing about whether the request arrived.
      if (mayHaveArrived(outcome.error)) {
        const earlier = await this.earlierAnswer(view);
        if (earlier !== undefined) {
          this.deps.log.info('the request timed out but reached the agent; not sending it again', {
            pauseId: view.pause.id,
            reason: outcome.error.reason,
          });
          const replayed = await streamer.replay(context, earlier, view);
          return { outcome: { kind: 'completed', ...replayed, toolOutcomes: new Map() }, tries };
        }
      }
      const delay = options.retryDelaysMs[retry];
      if (delay === undefined || !isRetryable(outcome.error)) return { outcome, tries };
      this.deps.log.warn('resume attempt failed; retrying', {
        pauseId: view.pause.id,
        reason: outcome.error.reason,
        inMs: delay,
      });
      await sleep(delay);
      this.deps.metrics.resumeRetried();
      outcome = await streamer.stream(context, request, view);
      tries += 1;
    }
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

/** A resume's last outcome, and how many times it was sent (retries and a resend included). */
interface SentResume {
  outcome: StreamOutcome;
  tries: number;
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

/** Failures after which the request may or may not have reached the agent. */
function mayHaveArrived(error: AdkError): boolean {
  return error.reason === 'network' || error.reason === 'timeout';
}

/** Failures worth another attempt (after `mayHaveArrived` ones found the session unanswered). */
function isRetryable(error: AdkError): boolean {
  switch (error.reason) {
    case 'network':
    case 'timeout':
      return true;
    case 'http':
      return error.status === undefined || error.status >= 500 || error.status === 429;
    default:
      return false;
  }
}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
