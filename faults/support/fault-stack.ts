import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PEOPLE, type Sandbox, startSandbox } from '@adk-slack-approvals/slack-sandbox';
import { type Child, compileProcesses, startChild } from '../../bench/support/child-processes.js';
import { openRedisStore } from '../../src/approvals/store/redis-store.js';
import type { ApprovalStore } from '../../src/approvals/store.js';
import {
  connectTestRedis,
  deleteWithPrefix,
  REDIS_URL,
  randomPrefix,
} from '../../test/support/redis.js';

/** The run-intent lease the replicas run with: short, so that trials need not wait long. */
export const RUN_LEASE_MS = 1_500;

export interface FaultStack {
  sandbox: Sandbox;
  /** The app's records, read as another replica would. */
  store: ApprovalStore;
  /** Starts the app as a child process (a replica) and points the sandbox at it. */
  startReplica(label: string): Promise<Child>;
  stop(): Promise<void>;
}

/**
 * What the fault trials run the app against: the Slack sandbox, real Redis under a random key
 * prefix, the `adk api_server` at `adkBaseUrl`, and a policy where Bob approves; the app itself
 * runs as child processes configured from the environment, so that it can be killed with -9.
 */
export async function startFaultStack(
  adkBaseUrl: string,
  sweepIntervalMs: number,
): Promise<FaultStack> {
  await compileProcesses();
  const signingSecret = randomBytes(16).toString('hex');
  const botToken = `xoxb-faults-${randomBytes(6).toString('hex')}`;
  const sandbox = await startSandbox({ port: 0, signingSecret, botToken });
  const dir = await mkdtemp(join(tmpdir(), 'approvals-faults-'));
  const policyFile = join(dir, 'policy.yml');
  await writeFile(policyFile, `defaults:\n  approvers: [${PEOPLE.bob.id}]\nrules: []\n`);
  const keyPrefix = randomPrefix();
  const redis = await connectTestRedis();
  const store = openRedisStore({ redis, keyPrefix });
  const env = {
    SLACK_BOT_TOKEN: botToken,
    SLACK_SIGNING_SECRET: signingSecret,
    SLACK_API_URL: sandbox.apiUrl,
    ADK_BASE_URL: adkBaseUrl,
    REDIS_URL,
    REDIS_KEY_PREFIX: keyPrefix,
    POLICY_FILE: policyFile,
    PORT: '0',
    SWEEP_INTERVAL_MS: String(sweepIntervalMs),
    // A run whose replica is killed is told of within this and a sweep (default 10 s).
    RUN_LEASE_MS: String(RUN_LEASE_MS),
    LOG_LEVEL: 'warn',
  };
  return {
    sandbox,
    store,
    async startReplica(label) {
      const child = await startChild('app', label, env);
      sandbox.setAppEventsUrl(`http://127.0.0.1:${child.port}/slack/events`);
      return child;
    },
    async stop() {
      await sandbox.stop();
      await deleteWithPrefix(redis, keyPrefix);
      await store.lifecycle.close();
      redis.disconnect();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
