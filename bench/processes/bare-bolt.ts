import { App, HTTPReceiver, LogLevel } from '@slack/bolt';
import { z } from 'zod';
import { ACTION_IDS } from '../../src/slack/codecs/action-ids.js';
import { answerCpuQueries } from './cpu-usage.js';
import { tellParent } from './messages.js';
import { stopOnSignal } from './stop-on-signal.js';

/**
 * The baseline: Bolt's HTTP receiver with one action listener that only acknowledges. Set up as
 * the app sets up Bolt (bot token, signing secret, Web API pointed at the sandbox), so that the
 * difference in ack latency is what the app does around and after the ack.
 */
const env = z
  .object({
    SLACK_BOT_TOKEN: z.string().startsWith('xoxb-'),
    SLACK_SIGNING_SECRET: z.string().min(1),
    SLACK_API_URL: z.url(),
  })
  .parse(process.env);

const receiver = new HTTPReceiver({
  signingSecret: env.SLACK_SIGNING_SECRET,
  endpoints: '/slack/events',
});
const app = new App({
  token: env.SLACK_BOT_TOKEN,
  receiver,
  logLevel: LogLevel.WARN,
  clientOptions: { slackApiUrl: env.SLACK_API_URL },
});
app.action(ACTION_IDS.approve, async ({ ack }) => {
  await ack();
});

const server = await receiver.start(0);
const address = server.address();
if (address === null || typeof address === 'string') throw new Error('no TCP port');
answerCpuQueries();
stopOnSignal(() => receiver.stop());
tellParent({ kind: 'ready', port: address.port });
