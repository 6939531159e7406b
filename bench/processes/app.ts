import { startApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createLog } from '../../src/log.js';
import { answerCpuQueries } from './cpu-usage.js';
import { tellParent } from './messages.js';
import { stopOnSignal } from './stop-on-signal.js';
import { answerProfileRequests } from './window-profile.js';

/**
 * The app as a replica runs it, configured from the environment (`SLACK_BOT_TOKEN`,
 * `SLACK_SIGNING_SECRET`, `SLACK_API_URL`, `ADK_BASE_URL`, `REDIS_URL`, `POLICY_FILE`, `PORT`),
 * as `main.ts` does when everything is configured. Tells the benchmark its port once listening.
 */
const config = loadConfig(process.env);
if (config.slack.mode !== 'http' || config.adk.baseUrl === undefined) {
  throw new Error('the benchmark app needs SLACK_BOT_TOKEN, SLACK_SIGNING_SECRET and ADK_BASE_URL');
}
const log = createLog(config.logLevel);
const app = await startApp(config, { adkBaseUrl: config.adk.baseUrl, slack: config.slack }, log);
answerCpuQueries();
answerProfileRequests();
stopOnSignal(() => app.stop());
tellParent({ kind: 'ready', port: app.port });
