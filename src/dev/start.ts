import { createLog } from '../log.js';
import { guardAgainstUnhandledRejections } from '../process-guard.js';
import {
  exitOnStartFailure,
  loadConfigOrExit,
  logConfigSource,
  stopOnSignals,
} from '../process-lifecycle.js';
import { startStack } from './local-stack.js';

/**
 * `npm start`: the app plus local stand-ins for whatever is not configured (the Slack sandbox,
 * the demo agents). The only entry that imports the development packages.
 */
async function start(): Promise<void> {
  const { config, envFile } = loadConfigOrExit(process.env);
  const log = createLog(config.logLevel, 'app', undefined, config.logFormat);
  logConfigSource(log, envFile);
  guardAgainstUnhandledRejections(process, log.child('process'));
  const stack = await startStack(config, log);
  if (stack.sandboxUrl !== undefined) {
    process.stdout.write(
      `\n  adk-slack-approvals is running with the local Slack sandbox.\n  Open ${stack.sandboxUrl} and type: /agent restart payments-api\n  (Ctrl-C stops everything.)\n\n`,
    );
  }
  stopOnSignals(stack, log);
}

start().catch(exitOnStartFailure);
