import type { AdkClient, RunRequest } from '../adk/client.js';
import { AdkError } from '../adk/errors.js';
import type { Gate } from '../adk/gate.js';
import { type AdkEvent, eventText, parseGates, toolResults } from '../adk/wire.js';
import { errorMessage } from '../error-message.js';
import type { Log } from '../log.js';
import {
  renderAgentReply,
  renderStreamWarning,
  renderToolSummary,
  type ToolRun,
} from '../slack/thread.js';
import type { RunThreads, ThreadRef } from './run-thread.js';

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
}

export type StreamOutcome =
  | { kind: 'completed'; pauses: number }
  /** `delivered`: the server had started answering, so the request itself reached the agent. */
  | { kind: 'failed'; error: AdkError; delivered: boolean };

export interface RunStreamerDeps {
  adk: Pick<AdkClient, 'runSse'>;
  threads: RunThreads;
  /** Records a pause and posts its card. */
  onPause: (context: RunContext, gates: Gate[], invocationId: string | undefined) => Promise<void>;
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

  async stream(context: RunContext, request: RunRequest): Promise<StreamOutcome> {
    const { log } = this.deps;
    let delivered = false;
    const output = new ThreadOutput(context, this.deps.threads, (gates, invocationId) =>
      this.recordPause(context, gates, invocationId),
    );

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
      await output.flushToolSummary();
      return { kind: 'completed', pauses: output.pauses };
    } catch (error) {
      await output.flushToolSummary().catch(() => {});
      if (!(error instanceof AdkError)) throw error;
      log.warn('agent run failed', {
        app: context.appName,
        reason: error.reason,
        error: error.message,
      });
      return { kind: 'failed', error, delivered };
    }
  }

  /**
   * Posts events that already happened (read back from the session) as `stream` would have:
   * what the agent said and did after answers that another replica sent and could not report.
   * Recording a pause again is a no-op, so a card is never posted twice.
   */
  async replay(context: RunContext, events: readonly AdkEvent[]): Promise<{ pauses: number }> {
    const output = new ThreadOutput(context, this.deps.threads, (gates, invocationId) =>
      this.recordPause(context, gates, invocationId),
    );
    for (const event of events) await this.handle(context, output, event);
    await output.flushToolSummary();
    return { pauses: output.pauses };
  }

  private async handle(context: RunContext, output: ThreadOutput, event: AdkEvent): Promise<void> {
    if (event.partial) return;
    // A rejected call did not run; its card already says so.
    for (const result of toolResults(event)) {
      if (result.status !== 'rejected') output.ranTool(result.name, result.status === 'ok');
    }

    const found = parseGates(event);
    if (found.kind === 'invalid') {
      this.deps.log.error('the agent asked for a confirmation this app cannot read', {
        app: context.appName,
        event: found.eventId,
        problems: found.problems.join('; '),
      });
      await output.flushToolSummary();
      await this.deps.threads.post(
        context.thread,
        renderStreamWarning(
          `The agent asked for a confirmation that could not be read (${found.problems.join('; ')}). It cannot be approved from Slack.`,
        ),
      );
    } else if (found.kind === 'pause') {
      await output.flushToolSummary();
      await output.pause(found.gates, event.invocationId);
    }

    const text = eventText(event);
    if (text !== undefined) {
      await output.flushToolSummary();
      await this.deps.threads.post(context.thread, renderAgentReply({ text }));
    }
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
      await this.deps.onPause(context, gates, invocationId);
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

/** What one run has put in its thread so far: tools not yet summarized, pauses recorded. */
class ThreadOutput {
  pauses = 0;
  private ranTools: ToolRun[] = [];

  constructor(
    private readonly context: RunContext,
    private readonly threads: RunThreads,
    private readonly onPause: (gates: Gate[], invocationId: string | undefined) => Promise<void>,
  ) {}

  ranTool(name: string, ok: boolean): void {
    this.ranTools.push({ name, ok });
  }

  async pause(gates: Gate[], invocationId: string | undefined): Promise<void> {
    this.pauses += 1;
    await this.onPause(gates, invocationId);
  }

  async flushToolSummary(): Promise<void> {
    if (this.ranTools.length === 0) return;
    const summary = renderToolSummary(this.ranTools);
    this.ranTools = [];
    await this.threads.post(this.context.thread, summary);
  }
}
