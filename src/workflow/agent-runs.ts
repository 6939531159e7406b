import type { AdkClient } from '../adk/client.js';
import { AdkError } from '../adk/errors.js';
import type { Clock } from '../approvals/clock.js';
import { canRouteCards, type Policy } from '../approvals/policy.js';
import { correlationId } from '../correlation.js';
import type { Log } from '../log.js';
import type { SlackMessage } from '../slack/codecs/block-kit.js';
import { renderRefusal } from '../slack/render/notices.js';
import { renderRunError } from '../slack/render/thread.js';
import { agentCommandHelp, parseAgentCommand } from './agent-command.js';
import { runErrorOf } from './run-errors.js';
import type { HeldRun } from './run-intents.js';
import type { RunLauncher } from './run-launcher.js';

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
      adk: Pick<AdkClient, 'listApps'>;
      /** Posts the run's root, opens its session and streams it (shared with API runs). */
      launcher: RunLauncher;
      defaultApp: string | undefined;
      /** The policy as it is now: where this run's cards could go. */
      policy: () => Policy;
      clock: Clock;
      log: Log;
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
    const { log } = this.deps;
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
    const { launcher } = this.deps;
    const started = await launcher.open(input.channelId, root);
    if (started.kind === 'refused') {
      await reply(renderRefusal({ kind: 'cannot_post_here', code: started.code }));
      return;
    }
    const { thread } = started;
    // One round trip: the intent learns its thread while the thread's record is begun.
    await Promise.all([
      held?.progress({ threadTs: thread.threadTs }),
      launcher.begin(thread, root),
    ]);
    await launcher.run(thread, {
      app: command.app,
      userId: input.userId,
      requester: input.userId,
      teamId: input.teamId,
      prompt: command.prompt,
    });
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
