import type { AdkClient } from '../adk/client.js';
import { AdkError } from '../adk/errors.js';
import { isResumabilityRefusal } from '../adk/resumability.js';
import { type AdkEvent, answeredConfirmationIds, buildResume } from '../adk/wire.js';
import type { PauseView } from '../approvals/records.js';
import type { Log } from '../log.js';
import { type Metrics, secondsSince } from '../metrics.js';
import { decisionsFor } from './resume-decisions.js';
import type { RunContext, RunStreamer, StreamOutcome } from './run-streamer.js';

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
 * How a resume reaches one ADK target: the message that answers every gate, sent and streamed,
 * retried while it cannot have reached the agent; and the session read first when it may have
 * (answering twice runs nothing but costs a model turn). Learns per app whether it takes
 * `invocationId`.
 */
export class ResumeSender {
  /** Apps of this ADK target that refused `invocationId`: never sent to them again. */
  private readonly notResumable = new Set<string>();

  constructor(
    private readonly deps: {
      adk: Pick<AdkClient, 'getSession'>;
      streamer: RunStreamer;
      log: Log;
      metrics: Metrics;
      options: ResumerOptions;
      sleep?: (ms: number) => Promise<void>;
    },
  ) {}

  /**
   * A resume taken over from a replica that died, retried after a failure, or whose request
   * timed out may have reached the agent already. Answering again runs nothing but costs a model
   * turn, and what the agent said after the answers would never reach the thread; so the session
   * is read first. The events after the answers when every gate is answered there; undefined when
   * not, or when the session cannot be read (the answers are then sent: ADK would not run a tool
   * twice).
   */
  async earlierAnswer(view: PauseView): Promise<AdkEvent[] | undefined> {
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

  /**
   * Sends the decisions, retried while the request cannot have reached the agent, and once more
   * without `invocationId` when the app refuses it. `timing.sending` is called as they are first
   * sent.
   */
  async send(view: PauseView, context: RunContext, timing: ResumeTiming): Promise<SentResume> {
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
}

/** A resume's last outcome, and how many times it was sent (retries and a resend included). */
export interface SentResume {
  outcome: StreamOutcome;
  tries: number;
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
