import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  PEOPLE,
  type Sandbox,
  type SandboxOptions,
  startSandbox,
} from '@adk-slack-approvals/slack-sandbox';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import { connectRedis } from '../../src/approvals/store/redis-connection.js';
import { deleteWithPrefix, REDIS_URL, randomPrefix } from '../../test/support/redis.js';
import { type Child, compileProcesses, startChild } from './child-processes.js';
import { FAKE_APP, type FakeAdk, pauseEvent, startFakeAdk } from './fake-adk.js';

/**
 * The app in a child process as a replica runs it, with the approvals API on (one key for the
 * fake ADK app, Bob the approver of everything), real Redis under a random key prefix, the Slack
 * sandbox and a fake ADK server. For benchmarks that post pauses through `POST /v1/pauses`.
 */
export interface ApiApp {
  sandbox: Sandbox;
  adk: FakeAdk;
  /** An admin connection to the app's Redis. */
  redis: Redis;
  app: Child;
  /** `http://127.0.0.1:<port>` of the app. */
  base: string;
  keyPrefix: string;
  signingSecret: string;
  /** The API key (`bench`, with `runs: true`): its bearer token. */
  apiKey: string;
  /** Posts one pause of one gate to `channel`; resolves with the HTTP status and its call id. */
  createPause(channel: string): Promise<{ status: number; id?: string; callId: string }>;
  stop(): Promise<void>;
}

const createdSchema = z.object({ id: z.string() });

export async function startApiApp(
  options: {
    sandbox?: Partial<SandboxOptions>;
    keyPrefix?: string;
    /** `RUNBOOKS_FILE`, as YAML: alerts start runs. */
    runbooks?: string;
  } = {},
): Promise<ApiApp> {
  const cleanups: Array<() => Promise<unknown>> = [];
  const stop = async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
  };
  try {
    await compileProcesses();
    const signingSecret = randomBytes(16).toString('hex');
    const botToken = `xoxb-bench-${randomBytes(6).toString('hex')}`;
    const apiKey = randomBytes(24).toString('hex');
    const dir = await mkdtemp(join(tmpdir(), 'bench-api-app-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    const policyFile = join(dir, 'policy.yml');
    await writeFile(policyFile, `defaults:\n  approvers: [${PEOPLE.bob.id}]\n  expiresIn: 1h\n`);
    const keysFile = join(dir, 'api-keys.yml');
    await writeFile(
      keysFile,
      `keys:\n  - name: bench\n    sha256: ${createHash('sha256').update(apiKey).digest('hex')}\n    apps: [${FAKE_APP}]\n    signingSecret: ${randomBytes(24).toString('hex')}\n    runs: true\n`,
    );
    const runbooksFile = join(dir, 'runbooks.yml');
    if (options.runbooks !== undefined) await writeFile(runbooksFile, options.runbooks);
    const redis = await connectRedis(REDIS_URL);
    cleanups.push(() => redis.quit());
    const keyPrefix = options.keyPrefix ?? randomPrefix();
    cleanups.push(() => deleteWithPrefix(redis, keyPrefix));
    const sandbox = await startSandbox({ port: 0, signingSecret, botToken, ...options.sandbox });
    cleanups.push(() => sandbox.stop());
    const adk = await startFakeAdk();
    cleanups.push(() => adk.stop());
    const app = await startChild('app', 'app process', {
      SLACK_BOT_TOKEN: botToken,
      SLACK_SIGNING_SECRET: signingSecret,
      SLACK_API_URL: sandbox.apiUrl,
      ADK_BASE_URL: adk.baseUrl,
      REDIS_URL,
      REDIS_KEY_PREFIX: keyPrefix,
      POLICY_FILE: policyFile,
      API_KEYS_FILE: keysFile,
      ...(options.runbooks === undefined ? {} : { RUNBOOKS_FILE: runbooksFile }),
      PORT: '0',
      LOG_LEVEL: 'error',
    });
    cleanups.push(() => app.stop());
    const base = `http://127.0.0.1:${app.port}`;
    // Slash commands and clicks in the sandbox reach this app.
    sandbox.setAppEventsUrl(`${base}/slack/events`);
    let sessions = 0;
    const createPause = async (channel: string) => {
      sessions += 1;
      const { event, confirmationId } = pauseEvent(FAKE_APP, [{ text: `transfer ${sessions}` }]);
      const response = await fetch(`${base}/v1/pauses`, {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          app: FAKE_APP,
          userId: 'bench',
          sessionId: `s-${sessions}-${randomBytes(4).toString('hex')}`,
          events: [event],
          resume: { mode: 'poll' },
          channel,
        }),
      });
      const body: unknown = await response.json().catch(() => undefined);
      const created = createdSchema.safeParse(body);
      return {
        status: response.status,
        callId: confirmationId,
        ...(created.success ? { id: created.data.id } : {}),
      };
    };
    return { sandbox, adk, redis, app, base, keyPrefix, signingSecret, apiKey, createPause, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
