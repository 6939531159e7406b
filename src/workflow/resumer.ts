import { randomUUID } from 'node:crypto';
import type { AdkClient } from '../adk/client.js';
import { AdkError } from '../adk/errors.js';
import { type AdkEvent, answeredConfirmationIds, buildResume } from '../adk/wire.js';
import type { Clock } from '../approvals/clock.js';
import type { PauseView } from '../approvals/records.js';
import type { ConfirmationStore } from '../approvals/store.js';
import type { Log } from '../log.js';
import { renderResumeFailed, renderRunError } from '../slack/thread.js';
import { startLeaseHeartbeat } from './lease-heartbeat.js';
import { decisionsFor, rejectionFollowUp } from './resume-decisions.js';
import { runErrorOf } from './run-errors.js';
import type { RunContext, RunStreamer, StreamOutcome } from './run-streamer.js';
import type { RunThreads } from './run-thread.js';

export interface ResumerOptions {
  /** This replica's name; each resume attempt adds a suffix of its own for its lease. */
  owner: string;
  /** How long a claim holds without renewal; renewed every third of it while the resume streams. */
  leaseMs: number;
  /** Send `invocationId` (Python ADK resumable apps). */
  resumable: boolean;
  /** Waits between attempts; one attempt more than there are entries. */
  retryDelaysMs: readonly number[];
}

/**
 * Step 6 of the flow: once every gate of a pause is decided, one replica claims the resume, sends
 * one message that answers every gate, and streams the continuation into the run's thread.
 * A resume that fails is retried while the request cannot have reached the agent, then shown on
 * the card with a Retry button; it is never dropped.
 */
export class Resumer {
  constructor(
    private readonly deps: {
      store: ConfirmationStore;
      /** Asks for the card to be re-rendered; never waits on Slack. */
      refreshCard: (pauseId: string) => void;
      adk: Pick<AdkClient, 'getSession'>;
      streamer: RunStreamer;
      threads: RunThreads;
      clock: Clock;
      log: Log;
      options: ResumerOptions;
      sleep?: (ms: number) => Promise<void>;
    },
  ) {}

  /** `retry`: a person pressed Retry, so a failed resume may be claimed again. */
  async resume(pauseId: string, { retry = false }: { retry?: boolean } = {}): Promise<void> {
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
      await this.resumeClaimed(claim.view, claim.attempt, owner);
    } finally {
      heartbeat.stop();
    }
  }

  private async resumeClaimed(view: PauseView, attempt: number, owner: string): Promise<void> {
    const { store, refreshCard, log } = this.deps;
    const pauseId = view.pause.id;
    log.info('resuming', { pauseId, attempt, app: view.pause.adk.appName });
    refreshCard(pauseId);

    const context = runContextOf(view);
    if (attempt > 1) {
      const earlier = await this.earlierAnswer(view);
      if (earlier !== undefined) {
        log.info('the agent already has these decisions; posting what it said after them', {
          pauseId,
          events: earlier.length,
        });
        // Posted before the pause is marked resumed: a crash in between posts it twice rather
        // than never.
        await this.deps.streamer.replay(context, earlier);
        await store.markResumed({ pauseId, owner, now: this.deps.clock() });
        refreshCard(pauseId);
        return;
      }
    }
    const outcome = await this.sendWithRetries(view, context);
    const now = this.deps.clock();
    if (outcome.kind === 'failed' && !outcome.delivered) {
      const finish = await store.markResumeFailed({
        pauseId,
        owner,
        now,
        error: outcome.error.message,
      });
      log.error('resume failed', {
        pauseId,
        reason: outcome.error.reason,
        error: outcome.error.message,
        recorded: finish.kind,
      });
      refreshCard(pauseId);
      await this.deps.threads.post(context.thread, renderResumeFailed(runErrorOf(outcome.error)));
      return;
    }

    // Delivered: the agent has the decisions, even if its answer broke off.
    const finish = await store.markResumed({ pauseId, owner, now });
    if (finish.kind === 'lost_lease') {
      log.warn('resume finished after the lease passed to another replica', { pauseId });
    }
    refreshCard(pauseId);
    if (outcome.kind === 'failed') {
      await this.deps.threads.post(context.thread, renderRunError(runErrorOf(outcome.error)));
      return;
    }
    await this.sendRejectionFollowUp(view, context);
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

  private async sendWithRetries(view: PauseView, context: RunContext): Promise<StreamOutcome> {
    const { options, streamer } = this.deps;
    const sleep = this.deps.sleep ?? defaultSleep;
    const { newMessage, invocationId } = buildResume(view.gates, decisionsFor(view), {
      resumable: options.resumable,
    });
    const request = {
      ...view.pause.adk,
      newMessage,
      ...(invocationId === undefined ? {} : { invocationId }),
    };
    let outcome = await streamer.stream(context, request);
    for (let retry = 0; ; retry += 1) {
      if (outcome.kind !== 'failed' || outcome.delivered) return outcome;
      // A timeout or a broken connection says nothing about whether the request arrived.
      if (mayHaveArrived(outcome.error)) {
        const earlier = await this.earlierAnswer(view);
        if (earlier !== undefined) {
          this.deps.log.info('the request timed out but reached the agent; not sending it again', {
            pauseId: view.pause.id,
            reason: outcome.error.reason,
          });
          return { kind: 'completed', pauses: (await streamer.replay(context, earlier)).pauses };
        }
      }
      const delay = options.retryDelaysMs[retry];
      if (delay === undefined || !isRetryable(outcome.error)) return outcome;
      this.deps.log.warn('resume attempt failed; retrying', {
        pauseId: view.pause.id,
        reason: outcome.error.reason,
        inMs: delay,
      });
      await sleep(delay);
      outcome = await streamer.stream(context, request);
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
      await this.deps.threads.post(context.thread, renderRunError(runErrorOf(outcome.error)));
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
