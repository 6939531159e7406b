import { type Config, ConfigError, loadConfig, withEnvFile } from './config.js';
import { errorMessage } from './error-message.js';
import type { Log } from './log.js';

/** What both entry points (`main.ts`, `dev/start.ts`) do around what they start. */

/**
 * The configuration from the environment and `./.env` (the environment wins), or the process
 * exits with what is wrong in it. `envFile` is the file read, if there was one.
 */
export function loadConfigOrExit(env: NodeJS.ProcessEnv): {
  config: Config;
  envFile: string | undefined;
} {
  try {
    const environment = withEnvFile(env, '.env');
    return { config: loadConfig(environment.env), envFile: environment.file };
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`${error.message}\nSee .env.example for every variable.\n`);
    process.exit(1);
  }
}

/** The start log's word on where the configuration came from. */
export function logConfigSource(log: Log, envFile: string | undefined): void {
  log.info(
    envFile === undefined
      ? 'no .env file here: configured from the environment only'
      : `configured from ${envFile} and the environment (the environment wins)`,
  );
}

/** SIGTERM or SIGINT stops it once, then the process exits (1 when stopping failed). */
export function stopOnSignals(running: { stop(): Promise<void> }, log: Log): void {
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info(`${signal} received`);
    running.stop().then(
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

/** The last word of a failed start. */
export function exitOnStartFailure(error: unknown): never {
  process.stderr.write(`adk-slack-approvals failed to start: ${errorMessage(error)}\n`);
  process.exit(1);
}
