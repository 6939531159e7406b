import type { AdkClient, RunRequest } from '../adk/client.js';
import { AdkError } from '../adk/errors.js';
import type { Gate } from '../adk/gate.js';
import { type AdkEvent, eventText, isFinalResponse, toolResults } from '../adk/wire.js';
import type { PauseView } from '../approvals/records.js';
import type { ToolOutcome } from '../approvals/tool-outcomes.js';
import { errorMessage } from '../error-message.js';
import type { Log } from '../log.js';
import type { SlackMessage } from '../slack/codecs/block-kit.js';
import { foldMessages } from '../slack/render/folded-messages.js';
import { renderReRequest } from '../slack/render/re-request-notice.js';
import {
  renderCredentialRequest,
  renderUnraisedConfirmation,
} from '../slack/render/request-notices.js';
import {
  renderAgentReply,
  renderStreamWarning,
  renderToolSummary,
  type ToolRun,
} from '../slack/render/thread.js';
import { type ReRequest, splitReRequests } from './re-requests.js';
import type { RunThreads, ThreadRef } from './run-thread.js';
import { StreamRequests } from './stream-requests.js';

/** Where a run's output goes, and whose run it is. */
export interface RunContext {
  appName: string;
  /** The ADK user id (the Slack user who started the run). */
  userId: string;
  sessionId: string;
  /** The Slack user who started the run. */
  requester: string;
  teamId: string | undefined;
  thread: ThreadRef;
  /** What the person asked, for cards posted away from the run. */
  prompt?: string;
}

export type StreamOutcome =
  /**
   * `toolOutcomes`: what each call that answered did, by call id (a resume's approved calls).
   * `reRequests`: approved calls the agent asked for again instead of running (re-requests.ts).
   */
  | {
      kind: 'completed';
      pauses: number;
      toolOutcomes: Map<string, ToolOutcome>;
      reRequests: ReRequest[];
    }
  /** `delivered`: the server had started answering, so the request itself reached the agent. */
  | { kind: 'failed'; error: AdkError; delivered: boolean };

/**
 * Where the pauses a stream meets go: recorded, with their cards posted (`PauseRecorder`).
 * Declared here, on the stream's side, because recording a pause may decide it (the policy's
 * `allow`) and so start the next resume, which streams again: the loop of the flow.
 */
export interface RunPauses {
  record(context: RunContext, gates: Gate[], invocationId: string | undefined): Promise<unknown>;
}

export interface RunStreamerDeps {
  adk: Pick<AdkClient, 'runSse'>;
  threads: RunThreads;
  pauses: RunPauses;
  log: Log;
}

/**
 * Streams one `/run_sse` call into a Slack thread: the agent's texts as replies, a brief summary
 * of the tools that ran, every pause as a card. The stream is read to the end: closing it early
 * would abort the run on the ADK server. A failed run is returned, not posted: the caller knows
 * whether it will retry.
 */
export class RunStreamer {
  constructor(private readonly deps: RunStreamerDeps) {}

  /** `answers`: the pause whose decisions this stream sends (a resume), if it is one. */
  async stream(
    context: RunContext,
    request: RunRequest,
    answers?: PauseView,
  ): Promise<StreamOutcome> {
    const { log } = this.deps;
    let delivered = false;
    const output = new ThreadOutput(context, this.deps.threads);

    try {
      for await (const item of this.deps.adk.runSse(request)) {
        delivered = true;
        if (item.type === 'malformed') {
          log.warn('unreadable event from the agent', {
            app: context.appName,
            error: item.error.message,
          });
          await this.deps.threads.post(context.thread, renderStreamWarning(item.error.message));
          continue;
        }
        await this.handle(context, output, item.event);
      }
      const { pauses, reRequests } = await this.finish(context, output, answers);
      if (endedEarly(output)) {
        // Never a silent success: ADK Java ends a failed run's stream with no error frame.
        const error = new AdkError(
          'ended_early',
          output.lastEvent === undefined
            ? 'the agent stream ended without any event'
            : 'the agent stream ended before its final event, with no error',
        );
        log.warn('agent run failed', { app: context.appName, reason: error.reason });
        return { kind: 'failed', error, delivered };
      }
      return { kind: 'completed', pauses, toolOutcomes: output.toolOutcomes, reRequests };
    } catch (error) {
      await output.flushToolSummary().catch(() => {});
      if (!(error instanceof AdkError)) throw error;
      log.warn('agent run failed', {
        app: context.appName,
        reason: error.reason,
        error: error.message,
      });
      // Whatever the stream raised before it broke off is still waiting on the ADK server.
      await this.askPeople(context, output, answers);
      return { kind: 'failed', error, delivered };
    }
  }

  /**
   * Posts events that already happened (read back from the session) as `stream` would have:
   * what the agent said and did after answers that another replica sent and could not report.
   * Recording a pause again is a no-op, so a card is never posted twice.
   */
  async replay(
    context: RunContext,
    events: readonly AdkEvent[],
    answers?: PauseView,
  ): Promise<{ pauses: number; reRequests: ReRequest[] }> {
    const output = new ThreadOutput(context, this.deps.threads);
    for (const event of events) await this.handle(context, output, event);
    return this.finish(context, output, answers);
  }

  private async handle(context: RunContext, output: ThreadOutput, event: AdkEvent): Promise<void> {
    if (event.partial) return;
    output.lastEvent = event;
    // A rejected call did not run; its card already says so.
    for (const result of toolResults(event)) {
      if (result.status !== 'rejected') {
        output.ranTool(result.name, result.callId, result.status === 'ok');
      }
    }

    const unreadable = output.requests.add(event);
    if (unreadable !== undefined) {
      this.deps.log.error('the agent asked for a confirmation this app cannot read', {
        app: context.appName,
        event: unreadable.eventId,
        problems: unreadable.problems.join('; '),
      });
      await output.flushToolSummary();
      await this.deps.threads.post(
        context.thread,
        renderStreamWarning(
          `The agent asked for a confirmation that could not be read (${unreadable.problems.join('; ')}). It cannot be approved from Slack.`,
        ),
      );
    }

    const text = eventText(event);
    if (text !== undefined) await output.reply(renderAgentReply({ text }));
  }

  /** The end of a stream (or a replay): the last tool summary, then what waits for people. */
  private async finish(
    context: RunContext,
    output: ThreadOutput,
    answers: PauseView | undefined,
  ): Promise<{ pauses: number; reRequests: ReRequest[] }> {
    await output.flushToolSummary();
    return this.askPeople(context, output, answers);
  }

  /**
   * Once the stream has ended: one pause for all its gates, and a notice for each request that
   * gets no card. A request for a call `answers` approved that did not run is no new pause:
   * the run stops, with a notice (re-requests.ts). Returns how many pauses were recorded (0 or 1).
   */
  private async askPeople(
    context: RunContext,
    output: ThreadOutput,
    answers: PauseView | undefined,
  ): Promise<{ pauses: number; reRequests: ReRequest[] }> {
    const summary = output.requests.summary();
    const { threads } = this.deps;
    if (summary.credentialTools.length > 0) {
      await threads.post(context.thread, renderCredentialRequest(summary.credentialTools));
    }
    for (const unraised of summary.unraisedConfirmations) {
      this.deps.log.warn('a tool asked for a confirmation the agent server did not raise', {
        app: context.appName,
        tool: unraised.tool,
      });
      await threads.post(context.thread, renderUnraisedConfirmation(unraised));
    }
    const ran = new Set(output.toolOutcomes.keys());
    const { asked, again } = splitReRequests(summary.gates, answers, ran);
    if (again.length > 0) {
      this.deps.log.warn('the agent asked again for approved calls instead of running them', {
        app: context.appName,
        pauseId: answers?.pause.id,
        tools: again.map(({ again: gate }) => gate.originalCall.name).join(','),
      });
      await threads.post(
        context.thread,
        renderReRequest(again.map(({ again: gate }) => gate.originalCall.name)),
      );
    }
    if (asked.length === 0) return { pauses: 0, reRequests: again };
    await this.recordPause(context, asked, asked[0]?.invocationId ?? summary.invocationId);
    return { pauses: 1, reRequests: again };
  }

  /**
   * A pause that cannot be recorded or shown is reported in the thread and the stream goes on:
   * breaking off would abort the run, and the agent is waiting anyway.
   */
  private async recordPause(
    context: RunContext,
    gates: Gate[],
    invocationId: string | undefined,
  ): Promise<void> {
    try {
      await this.deps.pauses.record(context, gates, invocationId);
    } catch (error) {
      this.deps.log.error('could not record or post an approval card', {
        app: context.appName,
        sessionId: context.sessionId,
        error: errorMessage(error),
      });
      await this.deps.threads.post(
        context.thread,
        renderStreamWarning(
          'The agent is waiting for an approval, but its card could not be recorded or posted. Ask an administrator to check the app.',
        ),
      );
    }
  }
}

/**
 * A stream that asked nothing of people and whose last event could not end a run (a tool's
 * answer the model never got to, or no event at all) was cut off, whatever its HTTP status said.
 */
function endedEarly(output: ThreadOutput): boolean {
  const { gates, credentialTools, unraisedConfirmations } = output.requests.summary();
  if (gates.length + credentialTools.length + unraisedConfirmations.length > 0) return false;
  return output.lastEvent === undefined || !isFinalResponse(output.lastEvent);
}

/** What one stream has put in its thread so far, and what it asks of people. */
class ThreadOutput {
  readonly requests = new StreamRequests();
  /** The last complete (non-partial) event: whether the run got to its end. */
  lastEvent: AdkEvent | undefined;
  /** What each call that answered did, by call id. */
  readonly toolOutcomes = new Map<string, ToolOutcome>();
  private ranTools: ToolRun[] = [];

  constructor(
    private readonly context: RunContext,
    private readonly threads: RunThreads,
  ) {}

  ranTool(name: string, callId: string | undefined, ok: boolean): void {
    this.ranTools.push({ name, ok });
    if (callId !== undefined) this.toolOutcomes.set(callId, ok ? 'ran' : 'failed');
  }

  async flushToolSummary(): Promise<void> {
    if (this.ranTools.length === 0) return;
    const summary = renderToolSummary(this.ranTools);
    this.ranTools = [];
    await this.threads.post(this.context.thread, summary);
  }

  /** The agent's answer, after the tools that ran before it: one message when they fit in one. */
  async reply(answer: SlackMessage): Promise<void> {
    const messages =
      this.ranTools.length === 0
        ? [answer]
        : foldMessages(renderToolSummary(this.ranTools), answer);
    this.ranTools = [];
    for (const message of messages) await this.threads.post(this.context.thread, message);
  }
}
