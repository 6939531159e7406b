import { randomBytes } from 'node:crypto';
import {
  DEMO_DEFAULT_APP,
  DEMO_PROMPTS,
  demoAgents,
  demoPolicyFile,
  LocalAdkServerError,
  startLocalAdkServer,
} from '@adk-slack-approvals/demo';
import { type Sandbox, startSandbox } from '@adk-slack-approvals/slack-sandbox';
import { type RunningApp, startApp } from '../app.js';
import type { Config } from '../config.js';
import { isAddressInUse, PortInUseError } from '../error-message.js';
import type { LineLogger } from '../log.js';
import type { SlackTransport } from '../slack/transport/bolt-app.js';

export interface RunningStack {
  app: RunningApp;
  /** The sandbox page to open, when the sandbox stands in for Slack. */
  sandboxUrl: string | undefined;
  stop(): Promise<void>;
}

/**
 * The app plus whatever stands in for what is not configured: the local Slack sandbox without
 * SLACK_BOT_TOKEN, the demo agents on a local `adk api_server` without ADK_BASE_URL. With both
 * configured it is just the app. The app talks to the stand-ins exactly as to the real things.
 */
export async function startStack(config: Config, log: LineLogger): Promise<RunningStack> {
  const stops: Array<() => Promise<void>> = [];
  const stopAll = async () => {
    for (const stop of stops.reverse()) {
      await stop().catch((error: unknown) => log.error('stop failed', { error: String(error) }));
    }
  };

  try {
    let appConfig = config;
    let sandbox: Sandbox | undefined;
    let transport: SlackTransport;
    if (config.slack.mode === 'sandbox') {
      // Fresh secrets per start: the sandbox and the app are the only parties.
      const signingSecret = randomBytes(16).toString('hex');
      const botToken = `xoxb-sandbox-${randomBytes(8).toString('hex')}`;
      // The demo's prompts fit the demo agents and the demo policy only.
      const demo = config.adk.baseUrl === undefined && config.policyFile === undefined;
      sandbox = await startSandbox({
        port: config.sandboxPort,
        signingSecret,
        botToken,
        ...(demo ? { suggestions: DEMO_PROMPTS } : {}),
        log: log.child('sandbox'),
      }).catch((error: unknown) => {
        throw isAddressInUse(error)
          ? new PortInUseError('SANDBOX_PORT', config.sandboxPort, { cause: error })
          : error;
      });
      stops.push(() => (sandbox ? sandbox.stop() : Promise.resolve()));
      transport = { mode: 'http', botToken, signingSecret, apiUrl: sandbox.apiUrl };
      if (config.policyFile === undefined) {
        appConfig = { ...appConfig, policyFile: demoPolicyFile() };
        log.info('POLICY_FILE is not set: using the demo policy for the sandbox people');
      }
    } else {
      transport = config.slack;
    }

    // After the sandbox, which takes a second: a port taken there is said before the agents load.
    let adkBaseUrl = config.adk.baseUrl;
    if (adkBaseUrl === undefined) {
      log.info('ADK_BASE_URL is not set: serving the demo agents on a local adk api_server');
      const server = await startLocalAdkServer({
        ...demoAgents(),
        ...(config.demoAdkPort === 0 ? {} : { port: config.demoAdkPort }),
        log: log.child('adk-server'),
      }).catch((error: unknown) => {
        throw error instanceof LocalAdkServerError && error.portTaken
          ? new PortInUseError('DEMO_ADK_PORT', config.demoAdkPort, { cause: error })
          : error;
      });
      stops.push(() => server.stop());
      adkBaseUrl = server.baseUrl;
      log.info('demo agents ready', { url: adkBaseUrl, ms: server.startupMs });
      // `/agent restart payments-api` should just work: the runbook agent is the default.
      if (config.adk.defaultApp === undefined) {
        appConfig = { ...appConfig, adk: { ...appConfig.adk, defaultApp: DEMO_DEFAULT_APP } };
      }
    }

    const app = await startApp(appConfig, { adkBaseUrl, slack: transport }, log);
    stops.push(() => app.stop());
    sandbox?.setAppEventsUrl(`http://127.0.0.1:${app.port}/slack/events`);
    return { app, sandboxUrl: sandbox?.url, stop: stopAll };
  } catch (error) {
    await stopAll();
    throw error;
  }
}
