import type { Event, Runner } from '@google/adk';
import type { ApprovalsPlugin, UnsupportedRequest } from './approvals-plugin.js';

/** The genai `Content` a runner takes, named through the runner so @google/genai stays ADK's. */
type Content = NonNullable<Parameters<Runner['runAsync']>[0]['newMessage']>;

export interface RunWithApprovalsOptions {
  /** A runner that has `plugin` among its plugins. */
  runner: Runner;
  plugin: ApprovalsPlugin;
  userId: string;
  sessionId: string;
  newMessage: Content;
  /** Seconds per long-poll (1–30). Default 30. */
  waitSeconds?: number;
  /** Pauses answered before giving up (a loop that keeps asking). Default 20. */
  maxPauses?: number;
  /** Every event the runs yield, as they come. */
  onEvent?: (event: Event) => void;
  /** Called once per pause, after it is posted and before waiting for its decision. */
  onPause?: (pause: { id: string; tools: string[] }) => void;
  signal?: AbortSignal;
}

export type RunWithApprovalsResult =
  | { kind: 'completed'; events: Event[]; pauses: number }
  | { kind: 'cancelled'; events: Event[]; pauseId: string }
  /**
   * The agent asked for what nobody can answer in Slack (credentials, a confirmation ADK raised
   * no request for): the service posted a notice. Never `completed`.
   */
  | { kind: 'unsupported_pause'; events: Event[]; requests: UnsupportedRequest[] };

/**
 * Drives a run to its end in poll mode: run; if the invocation paused (the plugin posted it),
 * long-poll its decision, hand it to the plugin (which checks it before any tool runs), resume
 * the runner with the decision's ready `newMessage`; repeat. For scripts and runbooks.
 */
export async function runWithApprovals(
  options: RunWithApprovalsOptions,
): Promise<RunWithApprovalsResult> {
  const { runner, plugin, userId, sessionId } = options;
  const events: Event[] = [];
  let newMessage = options.newMessage;
  for (let pauses = 0; ; pauses++) {
    const invocations = new Set<string>();
    for await (const event of runner.runAsync({ userId, sessionId, newMessage })) {
      events.push(event);
      invocations.add(event.invocationId);
      options.onEvent?.(event);
    }
    const unsupported = [...invocations].flatMap((id) => plugin.unsupportedRequests(id));
    const posted = [...invocations].flatMap((id) => plugin.postedPause(id) ?? []).at(-1);
    if (unsupported.length > 0) {
      // A pause posted beside them could only resume a run that still waits for them.
      if (posted !== undefined) {
        await plugin.client.cancel(
          posted.pause.id,
          'the agent also asked for what cannot be answered in Slack',
        );
      }
      return { kind: 'unsupported_pause', events, requests: unsupported };
    }
    if (posted === undefined) return { kind: 'completed', events, pauses };
    if (pauses >= (options.maxPauses ?? 20)) {
      // Nobody will resume this pause: its card must not wait for a decision that leads nowhere.
      await plugin.client.cancel(
        posted.pause.id,
        `the agent's driver gave up after ${pauses} decisions (the agent kept asking)`,
      );
      throw new Error(`runWithApprovals: still pausing after ${pauses} decisions`);
    }
    options.onPause?.({ id: posted.pause.id, tools: posted.pause.gates.map((g) => g.tool) });
    for (;;) {
      options.signal?.throwIfAborted();
      const poll = await plugin.client.decision(posted.pause.id, options.waitSeconds ?? 30);
      // Pending, or held by an undo window: nothing to resume with yet.
      if (poll.kind !== 'decided') continue;
      const { decision } = poll;
      if (decision.status === 'cancelled' || decision.newMessage === undefined) {
        return { kind: 'cancelled', events, pauseId: decision.id };
      }
      plugin.acceptDecision(decision);
      newMessage = decision.newMessage;
      break;
    }
  }
}
