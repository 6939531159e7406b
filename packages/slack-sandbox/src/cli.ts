#!/usr/bin/env node

import { parseArgs } from 'node:util';
import { SLACK_CHANNEL_RATES } from './channel-rates.js';
import { stderrLog } from './log.js';
import { startSandbox } from './server.js';

/**
 * `npm run sandbox`: the Slack sandbox on its own. Prints the page's URL and the environment to
 * give an app. The token and secret are fixed defaults: the sandbox is a local stand-in, and a
 * stable value lets an app's .env survive restarts.
 */
const usage = `Usage: slack-sandbox [--port 3001] [--host 127.0.0.1] [--app-url http://127.0.0.1:3000/slack/events]
                     [--bot-token xoxb-…] [--signing-secret …] [--slack-rate-limits]

  --slack-rate-limits  answer 429 + Retry-After past Slack's one message a second per channel
                       (chat.postMessage and chat.update, burst 3); off by default`;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      port: { type: 'string', default: '3001' },
      host: { type: 'string', default: '127.0.0.1' },
      'app-url': { type: 'string', default: 'http://127.0.0.1:3000/slack/events' },
      'bot-token': { type: 'string', default: 'xoxb-sandbox-0000000000-local' },
      'signing-secret': { type: 'string', default: 'sandbox-signing-secret' },
      'slack-rate-limits': { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(`${usage}\n`);
    return;
  }
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new Error(`--port: expected a port number, got ${values.port}`);
  const sandbox = await startSandbox({
    port,
    host: values.host,
    botToken: values['bot-token'],
    signingSecret: values['signing-secret'],
    appEventsUrl: values['app-url'],
    ...(values['slack-rate-limits'] ? { channelRates: SLACK_CHANNEL_RATES } : {}),
    log: stderrLog('sandbox'),
  });
  const env = sandbox.env();
  if (!['127.0.0.1', 'localhost', '::1'].includes(values.host)) {
    process.stderr.write(
      `Warning: listening on ${values.host}. Anyone who can reach it can act as any sandbox person.\n`,
    );
  }
  process.stdout.write(
    [
      '',
      `  Slack sandbox: ${sandbox.url}`,
      `  Interactions go to ${values['app-url']}`,
      '',
      '  Give the app this environment:',
      ...Object.entries(env).map(([name, value]) => `    ${name}=${value}`),
      '',
    ].join('\n'),
  );
  const stop = () => {
    sandbox.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((error: unknown) => {
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`${message}\n${usage}\n`);
  process.exit(1);
});
