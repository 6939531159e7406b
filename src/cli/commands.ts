import { connectRedis, connectRedisCluster } from '../approvals/store/redis-connection.js';
import { openRedisStore } from '../approvals/store/redis-store.js';
import type { ApprovalStore } from '../approvals/store.js';
import { ConfigError, loadConfig, withEnvFile } from '../config.js';
import { AuditStoreError, runAuditCli } from './audit-cli.js';
import { npmBannerAbove } from './npm-banner.js';
import { type CliOutput, runPolicyCli } from './policy-cli.js';
import { runRunbooksCli } from './runbooks-cli.js';

/**
 * The command-line tools on this process's streams: stdout carries their output and nothing
 * else (a policy's verdicts, an audit export), stderr everything said about it.
 */
const processOutput: CliOutput = {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
};

/** `policy check|explain|test …`; resolves with the exit code. */
export function runPolicyCommand(argv: readonly string[]): Promise<number> {
  return runPolicyCli(argv, processOutput);
}

/** `runbooks check <file>`; resolves with the exit code. */
export function runRunbooksCommand(argv: readonly string[]): Promise<number> {
  return runRunbooksCli(argv, processOutput);
}

/**
 * `audit export|verify …`; resolves with the exit code. `export` reads the store named by
 * REDIS_URL or REDIS_CLUSTER_NODES (and REDIS_KEY_PREFIX), from the environment and `./.env` as
 * the app does; `verify` needs nothing but the file.
 */
export async function runAuditCommand(argv: readonly string[]): Promise<number> {
  let close: (() => Promise<void>) | undefined;
  if (argv[0] === 'export' && npmBannerAbove(process.env) && !process.stdout.isTTY) {
    process.stderr.write(
      'note: npm printed its banner above the export; `npx adk-slack-approvals audit export` (or `npm run --silent audit -- export`) writes the export alone. `verify` skips the banner.\n',
    );
  }
  try {
    return await runAuditCli(argv, {
      ...processOutput,
      now: () => Date.now(),
      store: async () => {
        const store = await openAuditStore();
        close = () => store.lifecycle.close();
        return store;
      },
    });
  } finally {
    await close?.();
  }
}

async function openAuditStore(): Promise<ApprovalStore> {
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig(withEnvFile(process.env, '.env').env);
  } catch (error) {
    if (error instanceof ConfigError) throw new AuditStoreError(error.message);
    throw error;
  }
  if (config.redis === undefined) {
    throw new AuditStoreError(
      'the audit trail is read from Redis: set REDIS_URL (or REDIS_CLUSTER_NODES) and REDIS_KEY_PREFIX as the app has them. An app without them keeps its audit in its own memory, lost when it stops: read that with GET /v1/audit while it runs (docs/audit.md).',
    );
  }
  const redis =
    config.redis.kind === 'cluster'
      ? await connectRedisCluster(config.redis.cluster.nodes, config.redis.cluster)
      : await connectRedis(config.redis.url);
  return openRedisStore({ redis, keyPrefix: config.redis.keyPrefix, ownsClient: true });
}
