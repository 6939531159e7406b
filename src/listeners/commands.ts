import type { App } from '@slack/bolt';
import type { ListenerDeps } from './deps.js';
import { agentCommandSchema } from './payloads.js';
import { privateReply } from './replies.js';

/**
 * How long the ack of `/agent` waits for its run intent to be recorded. Slack allows 3 s; past
 * this the run goes on without one (a crash during it then goes unreported).
 */
const INTENT_WAIT_MS = 1_000;

/**
 * `/agent [app] <prompt>`: its run intent is recorded, then it is acknowledged, and the run
 * streams into a thread of its own. Recording first means that every acknowledged command whose
 * replica dies is told to its requester by another replica.
 */
export function registerAgentCommand(app: App, { workflow, log }: ListenerDeps): void {
  app.command('/agent', async ({ ack, command, respond }) => {
    const reply = privateReply(respond, log);
    const parsed = agentCommandSchema.safeParse(command);
    if (!parsed.success) {
      await ack();
      log.warn('unreadable slash command payload', { problem: parsed.error.issues[0]?.message });
      await reply({ text: 'Slack sent a command this app could not read; nothing was started.' });
      return;
    }
    const { team_id, channel_id, user_id, text } = parsed.data;
    const input = { teamId: team_id, channelId: channel_id, userId: user_id, text };
    const accepting = workflow.acceptRun(input);
    const held = await Promise.race([
      accepting,
      new Promise<undefined>((resolve) =>
        setTimeout(() => resolve(undefined), INTENT_WAIT_MS).unref(),
      ),
    ]);
    if (held === undefined) {
      // Recorded late, or not at all: a late one is dropped, so that nobody is told twice.
      void accepting.then((late) => late?.finish());
    }
    await ack();
    workflow.startRun(input, reply, held);
  });
}
