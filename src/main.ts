import { startApp } from './app.js';
import { createLog } from './log.js';
import { guardAgainstUnhandledRejections } from './process-guard.js';
import {
  exitOnStartFailure,
  loadConfigOrExit,
  logConfigSource,
  stopOnSignals,
} from './process-lifecycle.js';

/**
 * The production entry: configuration → the app → signals. It needs a real Slack and ADK
 * server; the local stand-ins for them are development packages, started by `npm start`.
 */
async function main(): Promise<void> {
  const { config, envFile } = loadConfigOrExit(process.env);
  const slack = config.slack;
  const adkBaseUrl = config.adk.baseUrl;
  if (slack.mode === 'sandbox' || adkBaseUrl === undefined) {
    process.stderr.write(
      [
        'adk-slack-approvals needs Slack and an ADK server: set SLACK_BOT_TOKEN (with SLACK_SIGNING_SECRET, or SLACK_APP_TOKEN for Socket Mode) and ADK_BASE_URL.',
        'To try it without them, run `npm start` in a checkout: it starts a local Slack sandbox and demo agents in their place.',
        'See .env.example for every variable.',
        '',
      ].join('\n'),
    );
    process.exit(1);
  }
  const log = createLog(config.logLevel, 'app', undefined, config.logFormat);
  logConfigSource(log, envFile);
  guardAgainstUnhandledRejections(process, log.child('process'));
  const app = await startApp(config, { adkBaseUrl, slack }, log);
  stopOnSignals(app, log);
}

main().catch(exitOnStartFailure);
