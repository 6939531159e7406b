import type { App } from '@slack/bolt';
import type { ListenerDeps } from './deps.js';
import { agentCommandSchema } from './payloads.js';
import { privateReply } from './replies.js';

/** `/agent [app] <prompt>`: acknowledged at once; the run streams into a thread of its own. */
export function registerAgentCommand(app: App, { workflow, log }: ListenerDeps): void {
  app.command('/agent', async ({ ack, command, respond }) => {
    await ack();
    const reply = privateReply(respond, log);
    const parsed = agentCommandSchema.safeParse(command);
    if (!parsed.success) {
      log.warn('unreadable slash command payload', { problem: parsed.error.issues[0]?.message });
      await reply({ text: 'Slack sent a command this app could not read; nothing was started.' });
      return;
    }
    const { team_id, channel_id, user_id, text } = parsed.data;
    workflow.startRun({ teamId: team_id, channelId: channel_id, userId: user_id, text }, reply);
  });
}
