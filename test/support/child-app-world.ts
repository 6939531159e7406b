import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Sandbox, startSandbox } from '@adk-slack-approvals/slack-sandbox';
import { inject } from 'vitest';
import { type Child, startChild } from '../../bench/support/child-processes.js';
import { type FakeAdk, startFakeAdk } from '../../bench/support/fake-adk.js';
import { openRedisStore } from '../../src/approvals/store/redis-store.js';
import type { ApprovalStore } from '../../src/approvals/store.js';
import { connectTestRedis, deleteWithPrefix, REDIS_URL, randomPrefix } from './redis.js';
import { type SlackFaultProxy, startSlackFaultProxy } from './slack-fault-proxy.js';

/**
 * What a test needs to run the app as a replica runs it, in child processes it can kill -9: the
 * Slack sandbox, a fake ADK server at the HTTP boundary, real Redis under a random key prefix, a
 * policy and an API keys file, and the environment that joins them.
 */
export interface ChildAppWorld {
  sandbox: Sandbox;
  adk: FakeAdk;
  /** With `slackFaults`: the proxy between the apps and Slack's Web API, to make it misbehave. */
  slackProxy: SlackFaultProxy | undefined;
  /** The apps' records, read as another replica would. */
  store: ApprovalStore;
  /** The sandbox's signing secret: signed clicks (`postApproveClick`) need it. */
  slackSecret: string;
  /** Starts an app process on this world; stopped by `close` if still running. */
  start(label: string): Promise<Child>;
  /** Registers something else to undo at `close`. */
  onClose(cleanup: () => Promise<unknown>): void;
  close(): Promise<void>;
}

/** An API key for `app`, and the API keys file that holds it (one key, `agents`). */
export function oneApiKey(app: string): { apiKey: string; apiKeys: string } {
  const apiKey = randomBytes(24).toString('hex');
  const sha256 = createHash('sha256').update(apiKey).digest('hex');
  const signingSecret = randomBytes(24).toString('hex');
  return {
    apiKey,
    apiKeys: `keys:\n  - name: agents\n    sha256: ${sha256}\n    apps: [${app}]\n    signingSecret: ${signingSecret}\n`,
  };
}

export async function startChildAppWorld(files: {
  policy: string;
  apiKeys: string;
  /** Put a proxy that hangs chosen calls, or loses Slack's answers to them, before the sandbox. */
  slackFaults?: boolean;
}): Promise<ChildAppWorld> {
  // Compiled once for the run by the integration tests' global setup
  // (child-processes-compiled.ts): compiling here raced the other files' running children.
  if (!inject('childProcessesCompiled')) {
    throw new Error(
      'the child processes were not compiled for this run (TEST_CHILD_PROCESSES=none): unset it to run a crash test',
    );
  }
  const cleanups: Array<() => Promise<unknown>> = [];
  const dir = await mkdtemp(join(tmpdir(), 'child-app-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  const policyFile = join(dir, 'policy.yml');
  await writeFile(policyFile, files.policy);
  const keysFile = join(dir, 'api-keys.yml');
  await writeFile(keysFile, files.apiKeys);
  const keyPrefix = randomPrefix();
  const redis = await connectTestRedis();
  cleanups.push(async () => {
    await deleteWithPrefix(redis, keyPrefix);
    await redis.quit();
  });
  const store = openRedisStore({ redis, keyPrefix });
  const slackSecret = randomBytes(16).toString('hex');
  const botToken = `xoxb-test-${randomBytes(6).toString('hex')}`;
  const sandbox = await startSandbox({ port: 0, signingSecret: slackSecret, botToken });
  cleanups.push(() => sandbox.stop());
  const slackProxy = files.slackFaults ? await startSlackFaultProxy(sandbox.apiUrl) : undefined;
  if (slackProxy !== undefined) cleanups.push(() => slackProxy.stop());
  const adk = await startFakeAdk();
  cleanups.push(() => adk.stop());
  const env = {
    SLACK_BOT_TOKEN: botToken,
    SLACK_SIGNING_SECRET: slackSecret,
    SLACK_API_URL: slackProxy?.apiUrl ?? sandbox.apiUrl,
    ADK_BASE_URL: adk.baseUrl,
    REDIS_URL,
    REDIS_KEY_PREFIX: keyPrefix,
    POLICY_FILE: policyFile,
    API_KEYS_FILE: keysFile,
    PORT: '0',
    SWEEP_INTERVAL_MS: '200',
  };
  return {
    sandbox,
    adk,
    slackProxy,
    store,
    slackSecret,
    async start(label) {
      const app = await startChild('app', label, env);
      cleanups.push(() => app.stop());
      return app;
    },
    onClose: (cleanup) => cleanups.push(cleanup),
    async close() {
      for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
    },
  };
}
