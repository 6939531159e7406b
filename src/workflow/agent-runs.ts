import type { AdkClient } from '../adk/client.js';
import { AdkError } from '../adk/errors.js';
import type { Clock } from '../approvals/clock.js';
import { canRouteCards, type Policy } from '../approvals/policy.js';
import type { ThreadSessions } from '../approvals/thread-sessions.js';
import { correlationId } from '../correlation.js';
import { errorMessage } from '../error-message.js';
import type { Log } from '../log.js';
import type { SlackMessage } from '../slack/codecs/block-kit.js';
import { renderRefusal } from '../slack/render/notices.js';
import { renderRunError, renderThreadRoot } from '../slack/render/thread.js';
import { agentCommandHelp, parseAgentCommand } from './agent-command.js';
import { runErrorOf } from './run-errors.js';
import type { HeldRun } from './run-intents.js';
import type { RunStatusBoard } from './run-status-board.js';
import type { RunContext, RunStreamer } from './run-streamer.js';
import type { RunThreads } from './run-thread.js';

export interface AgentCommandInput {
  teamId: string | undefined;
  channelId: string;
  userId: string;
  /** The command text as Slack sent it (`&`, `<`, `>` escaped). */
  text: string;
}

/** How long the list of ADK apps is trusted before asking the server again. */
const APPS_TTL_MS = 60_000;

/**
 * Step 1 of the flow: `/agent [app] <prompt>` starts a run in a new thread. One Slack thread is
 * one ADK session; the run's output, cards and continuations all land in it.
 */
export class AgentRuns {
  private apps: { names: string[]; fetchedAt: number } | undefined;

  constructor(
    private readonly deps: {
      adk: Pick<AdkClient, 'listApps' | 'createSession'>;
      threads: RunThreads;
      /** Where the thread's session is kept, so that replies in the thread continue it. */
      sessions: ThreadSessions;
      streamer: RunStreamer;
      defaultApp: string | undefined;
      /** The policy as it is now: where this run's cards could go. */
      policy: () => Policy;
      clock: Clock;
      log: Log;
      /** Keeps the run's root message saying where the run stands. Absent: it is left alone. */
      runStatus?: RunStatusBoard;
    },
  ) {}

  /**
   * Runs the command. `reply` answers the person privately (help, usage errors, or why the run
   * could not start); everything else goes into the run's thread.
   */
  async start(
    input: AgentCommandInput,
    reply: (message: SlackMessage) => Promise<void>,
    held?: HeldRun,
  ): Promise<void> {
    try {
      await this.run(input, reply, held);
    } finally {
      // Every way out of `run` has told the person something (or a card was posted).
      await held?.finish();
    }
  }

  private async run(
    input: AgentCommandInput,
    reply: (message: SlackMessage) => Promise<void>,
    held: HeldRun | undefined,
  ): Promise<void> {
    const { threads, log } = this.deps;
    let apps: string[];
    try {
      apps = await this.listApps();
    } catch (error) {
      if (!(error instanceof AdkError)) throw error;
      log.error('could not list ADK apps', { reason: error.reason, error: error.message });
      await reply(renderRunError(runErrorOf(error), correlationId()));
      return;
    }
    const command = parseAgentCommand(unescapeSlackText(input.text), apps, this.deps.defaultApp);
    if (command.kind === 'help') {
      await reply({ text: agentCommandHelp(apps, this.deps.defaultApp) });
      return;
    }
    if (command.kind === 'invalid') {
      await reply({ text: command.problem });
      return;
    }

    if (!canRouteCards(this.deps.policy(), command.app, input.channelId)) {
      await reply({ text: NO_CARD_CHANNEL });
      return;
    }

    const root = {
      userId: input.userId,
      appName: command.app,
      prompt: command.prompt,
      ...(command.defaulted ? { defaulted: true } : {}),
    };
    const started = await threads.start(input.channelId, renderThreadRoot(root));
    if (started.kind === 'refused') {
      await reply(renderRefusal({ kind: 'cannot_post_here', code: started.code }));
      return;
    }
    const { thread } = started;
    const board = this.deps.runStatus;
    // One round trip: the intent learns its thread while the thread's record is begun.
    await Promise.all([held?.progress({ threadTs: thread.threadTs }), board?.begin(thread, root)]);

    let sessionId: string;
    try {
      const session = await this.deps.adk.createSession(command.app, input.userId, {
        state: { slack: { channel: thread.channelId, thread: thread.threadTs } },
      });
      sessionId = session.id;
    } catch (error) {
      if (!(error instanceof AdkError)) throw error;
      log.error('could not create an ADK session', { app: command.app, error: error.message });
      board?.set(thread, { kind: 'failed' });
      await threads.post(thread, renderRunError(runErrorOf(error), correlationId()));
      return;
    }

    log.info('run started', { app: command.app, user: input.userId, sessionId });
    // The thread's record holds the session: replies continue it, and recovery replays it.
    try {
      await this.deps.sessions.save({
        channelId: thread.channelId,
        threadTs: thread.threadTs,
        appName: command.app,
        userId: input.userId,
        sessionId,
        requester: input.userId,
        ...(input.teamId === undefined ? {} : { teamId: input.teamId }),
      });
    } catch (error) {
      // The run itself does not need it; replies in its thread will go unanswered, and a crash
      // from here on is told as one before the agent started.
      log.error('could not remember the run thread; replies in it will be ignored', {
        sessionId,
        error: errorMessage(error),
      });
    }
    const context: RunContext = {
      appName: command.app,
      userId: input.userId,
      sessionId,
      requester: input.userId,
      teamId: input.teamId,
      thread,
      prompt: command.prompt,
    };
    const outcome = await this.deps.streamer.stream(context, {
      appName: command.app,
      userId: input.userId,
      sessionId,
      newMessage: { role: 'user', parts: [{ text: command.prompt }] },
    });
    if (outcome.kind === 'failed') {
      board?.set(thread, { kind: 'failed' });
      await threads.post(thread, renderRunError(runErrorOf(outcome.error), correlationId()));
    } else if (outcome.pauses === 0) {
      board?.set(thread, { kind: 'done' });
    }
  }

  private async listApps(): Promise<string[]> {
    const now = this.deps.clock();
    if (this.apps && now - this.apps.fetchedAt < APPS_TTL_MS) return this.apps.names;
    const names = await this.deps.adk.listApps();
    this.apps = { names, fetchedAt: now };
    return names;
  }
}

/** Why a run from a direct message is refused when the policy has nowhere to put its cards. */
export const NO_CARD_CHANNEL =
  'Approvers cannot see this conversation, and the approval policy names no channel for requests from it, so a card could not reach anyone. Run `/agent` in a channel with the approvers, or ask an admin to set `approvalsChannel` in the policy file.';

/** Slack escapes `&`, `<` and `>` in command text; the agent should see what the person typed. */
export function unescapeSlackText(text: string): string {
  return text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
}
