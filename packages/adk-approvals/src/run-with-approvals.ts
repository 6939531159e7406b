import { type Event, isIntentMismatchError, type Runner } from '@google/adk';
import { ApprovalsApiError } from './approvals-client.js';
import type { ApprovalsPlugin, UnsupportedRequest } from './approvals-plugin.js';
import type { Decision } from './decision.js';

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
  | { kind: 'unsupported_pause'; events: Event[]; requests: UnsupportedRequest[] }
  /**
   * ADK received the decision and refused it (IntentMismatchError, `reason` its message):
   * nothing ran, and the card says so.
   */
  | { kind: 'refused'; events: Event[]; pauseId: string; reason: string };

export interface ResumeWithDecisionOptions {
  /** A runner that has `plugin` among its plugins. */
  runner: Runner;
  plugin: ApprovalsPlugin;
  userId: string;
  sessionId: string;
  /** A decision as the service answers it (a long-poll, a webhook delivery). */
  decision: Decision;
  onEvent?: (event: Event) => void;
}

export type ResumeWithDecisionResult =
  /**
   * `unsupported`: what the resumed run asked that nobody can answer in Slack (as in
   * `unsupported_pause`, e.g. a re-request of the approved call): the run stops there.
   */
  | { kind: 'resumed'; events: Event[]; unsupported: UnsupportedRequest[] }
  /** The pause was cancelled: there is nothing to resume with. */
  | { kind: 'cancelled'; events: Event[] }
  /** ADK refused the decision (IntentMismatchError): nothing ran; the card says so. */
  | { kind: 'refused'; events: Event[]; reason: string };

/**
 * Resumes a runner with a decision (a webhook receiver's, or `runWithApprovals`' own): hands it
 * to the plugin (which checks it before any tool runs) and runs its `newMessage`. A decision ADK
 * refuses is reported to the service, so that its card says nothing ran, and returned.
 */
export async function resumeWithDecision(
  options: ResumeWithDecisionOptions,
): Promise<ResumeWithDecisionResult> {
  const { runner, plugin, userId, sessionId, decision } = options;
  const events: Event[] = [];
  if (decision.status === 'cancelled' || decision.newMessage === undefined) {
    return { kind: 'cancelled', events };
  }
  plugin.acceptDecision(decision);
  try {
    for await (const event of runner.runAsync({
      userId,
      sessionId,
      newMessage: decision.newMessage,
    })) {
      events.push(event);
      options.onEvent?.(event);
    }
  } catch (error) {
    if (!isIntentMismatchError(error)) throw error;
    // ADK stored the answers and refused them: nothing ran, and sending them again cannot help.
    await plugin.reportRefusedDecision(decision, error.message);
    return { kind: 'refused', events, reason: error.message };
  }
  const invocations = new Set(events.map((event) => event.invocationId));
  const unsupported = [...invocations].flatMap((id) => plugin.unsupportedRequests(id));
  return { kind: 'resumed', events, unsupported };
}

/**
 * Drives a run to its end in poll mode: run; if the invocation paused (the plugin posted it),
 * long-poll its decision, resume the runner with it (`resumeWithDecision`); repeat. For scripts
 * and runbooks. A decision that races the driver's own closing of its pause is returned as what
 * happened, never thrown.
 */
export async function runWithApprovals(
  options: RunWithApprovalsOptions,
): Promise<RunWithApprovalsResult> {
  const { runner, plugin, userId, sessionId } = options;
  const events: Event[] = [];
  const invocations = new Set<string>();
  const collect = (event: Event) => {
    events.push(event);
    invocations.add(event.invocationId);
    options.onEvent?.(event);
  };
  for await (const event of runner.runAsync({
    userId,
    sessionId,
    newMessage: options.newMessage,
  })) {
    collect(event);
  }
  for (let pauses = 0; ; pauses++) {
    const unsupported = [...invocations].flatMap((id) => plugin.unsupportedRequests(id));
    const posted = [...invocations].flatMap((id) => plugin.postedPause(id) ?? []).at(-1);
    invocations.clear();
    if (unsupported.length > 0) {
      // A pause posted beside them could only resume a run that still waits for them.
      if (posted !== undefined) {
        await closePause(
          plugin,
          posted.pause.id,
          `the agent also asked for what cannot be answered in Slack (${unsupportedWords(unsupported)})`,
        );
      }
      return { kind: 'unsupported_pause', events, requests: unsupported };
    }
    if (posted === undefined) return { kind: 'completed', events, pauses };
    if (pauses >= (options.maxPauses ?? 20)) {
      // Nobody will resume this pause: its card must not wait for a decision that leads nowhere.
      await closePause(
        plugin,
        posted.pause.id,
        `the agent's driver gave up after ${pauses} decisions (the agent kept asking)`,
      );
      throw new Error(`runWithApprovals: still pausing after ${pauses} decisions`);
    }
    options.onPause?.({ id: posted.pause.id, tools: posted.pause.gates.map((g) => g.tool) });
    const decision = await decisionOf(plugin, posted.pause.id, options);
    const resumed = await resumeWithDecision({
      runner,
      plugin,
      userId,
      sessionId,
      decision,
      onEvent: collect,
    });
    if (resumed.kind === 'cancelled') return { kind: 'cancelled', events, pauseId: decision.id };
    if (resumed.kind === 'refused') {
      return { kind: 'refused', events, pauseId: decision.id, reason: resumed.reason };
    }
  }
}

async function decisionOf(
  plugin: ApprovalsPlugin,
  pauseId: string,
  options: Pick<RunWithApprovalsOptions, 'waitSeconds' | 'signal'>,
): Promise<Decision> {
  for (;;) {
    options.signal?.throwIfAborted();
    const poll = await plugin.client.decision(pauseId, options.waitSeconds ?? 30);
    // Pending, or held by an undo window: nothing to resume with yet.
    if (poll.kind === 'decided') return poll.decision;
  }
}

/**
 * Cancels a pause the driver will not resume. Decided meanwhile (the service answers 409): the
 * decision is not used, and the service is told so (`refused`), so that its card says nothing
 * ran instead of "resumed".
 */
async function closePause(plugin: ApprovalsPlugin, pauseId: string, why: string): Promise<void> {
  try {
    await plugin.client.cancel(pauseId, why);
  } catch (error) {
    if (!(error instanceof ApprovalsApiError) || error.status !== 409) throw error;
    const poll = await plugin.client.decision(pauseId, 0);
    if (poll.kind !== 'decided' || poll.decision.status !== 'decided') return;
    await plugin.reportRefusedDecision(
      poll.decision,
      `decided after the agent's driver stopped: ${why}, so the decision was not used and nothing ran`,
    );
  }
}

/** "credentials for read_calendar, a confirmation of deploy_service ADK raised no request for" */
function unsupportedWords(requests: readonly UnsupportedRequest[]): string {
  return [...new Set(requests.map(unsupportedWord))].join(', ');
}

function unsupportedWord(request: UnsupportedRequest): string {
  switch (request.kind) {
    case 'credential':
      return `credentials for ${request.tool}`;
    case 'unraised_confirmation':
      return `a confirmation of ${request.tool} ADK raised no request for`;
    case 're_request':
      return `${request.tool} again`;
  }
}
