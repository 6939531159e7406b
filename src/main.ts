import { ConfigError, loadConfig } from './config.js';
import { errorMessage } from './error-message.js';
import { startStack } from './local-stack.js';
import { createLog } from './log.js';
import { guardAgainstUnhandledRejections } from './process-guard.js';

/** Wiring only: configuration → the stack → signals. */
async function main(): Promise<void> {
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig(process.env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`${error.message}\nSee .env.example for every variable.\n`);
    process.exit(1);
  }
  const log = createLog(config.logLevel);
  guardAgainstUnhandledRejections(process, log.child('process'));
  const stack = await startStack(config, log);
  if (stack.sandboxUrl !== undefined) {
    process.stdout.write(
      `\n  adk-slack-approvals is running with the local Slack sandbox.\n  Open ${stack.sandboxUrl} and type: /agent restart payments-api\n  (Ctrl-C stops everything.)\n\n`,
    );
  }

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info(`${signal} received`);
    stack.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        log.error('shutdown failed', { error: errorMessage(error) });
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

main().catch((error: unknown) => {
  process.stderr.write(`adk-slack-approvals failed to start: ${errorMessage(error)}\n`);
  process.exit(1);
});
