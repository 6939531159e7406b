import { App, HTTPReceiver, type Logger, LogLevel } from '@slack/bolt';
import type { Sandbox } from '../src/index.js';
import { BOT_TOKEN, SIGNING_SECRET } from './sandbox-fixture.js';

const silent: Logger = {
  debug: () => {},
  info: () => {},
  warn: () => {},
  error: () => {},
  setLevel: () => {},
  getLevel: () => LogLevel.ERROR,
  setName: () => {},
};

export interface RunningBoltApp {
  app: App;
  /** The app's `/slack/events` URL. */
  url: string;
  stop: () => Promise<void>;
}

/**
 * A real Bolt app with its real HTTPReceiver (signature verification on) on a free loopback
 * port, its Web API client pointed at the sandbox, and the sandbox's interactions pointed at it.
 */
export async function startBoltApp(
  sandbox: Sandbox,
  register: (app: App) => void,
): Promise<RunningBoltApp> {
  const receiver = new HTTPReceiver({ signingSecret: SIGNING_SECRET, logger: silent });
  const app = new App({
    token: BOT_TOKEN,
    receiver,
    logger: silent,
    clientOptions: { slackApiUrl: sandbox.apiUrl, retryConfig: { retries: 0 } },
  });
  register(app);
  const server = await app.start({ port: 0, host: '127.0.0.1' });
  const address = server.address();
  if (address === null || typeof address === 'string')
    throw new Error('Bolt did not get a TCP port');
  const url = `http://127.0.0.1:${address.port}/slack/events`;
  sandbox.setAppEventsUrl(url);
  return { app, url, stop: async () => void (await app.stop()) };
}
