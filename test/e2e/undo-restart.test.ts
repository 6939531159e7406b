import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CHANNELS, PEOPLE, type Sandbox, startSandbox } from '@adk-slack-approvals/slack-sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type Child, compileProcesses, startChild } from '../../bench/support/child-processes.js';
import { FAKE_APP, type FakeAdk, pauseEvent, startFakeAdk } from '../../bench/support/fake-adk.js';
import { postApproveClick } from '../../bench/support/signed-approve.js';
import { waitForPauseCard } from '../support/pause-card.js';
import { connectTestRedis, deleteWithPrefix, REDIS_URL, randomPrefix } from '../support/redis.js';

/**
 * The undo window across a crash: the app (a child process, as a replica runs it) is SIGKILLed
 * during a decision's undo window; the hold's end is in Redis, so the app started after it sends
 * the resume once the window passes, exactly once.
 */
const { bob } = PEOPLE;
const OPS = CHANNELS.ops.id;
const slackSecret = randomBytes(16).toString('hex');
const botToken = `xoxb-test-${randomBytes(6).toString('hex')}`;
const apiKey = randomBytes(24).toString('hex');
const keyPrefix = randomPrefix();
const cleanups: Array<() => Promise<unknown>> = [];
let sandbox: Sandbox;
let adk: FakeAdk;
let env: Record<string, string>;

beforeAll(async () => {
  await compileProcesses();
  const dir = await mkdtemp(join(tmpdir(), 'undo-restart-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  const policyFile = join(dir, 'policy.yml');
  await writeFile(policyFile, `defaults:\n  approvers: [${bob.id}]\n  undoWindow: 3s\n`);
  const keysFile = join(dir, 'api-keys.yml');
  await writeFile(
    keysFile,
    `keys:\n  - name: runbooks\n    sha256: ${createHash('sha256').update(apiKey).digest('hex')}\n    apps: [${FAKE_APP}]\n    signingSecret: ${randomBytes(24).toString('hex')}\n`,
  );
  const redis = await connectTestRedis();
  cleanups.push(async () => {
    await deleteWithPrefix(redis, keyPrefix);
    await redis.quit();
  });
  sandbox = await startSandbox({ port: 0, signingSecret: slackSecret, botToken });
  cleanups.push(() => sandbox.stop());
  adk = await startFakeAdk();
  cleanups.push(() => adk.stop());
  env = {
    SLACK_BOT_TOKEN: botToken,
    SLACK_SIGNING_SECRET: slackSecret,
    SLACK_API_URL: sandbox.apiUrl,
    ADK_BASE_URL: adk.baseUrl,
    REDIS_URL,
    REDIS_KEY_PREFIX: keyPrefix,
    POLICY_FILE: policyFile,
    API_KEYS_FILE: keysFile,
    PORT: '0',
    SWEEP_INTERVAL_MS: '200',
  };
}, 120_000);

afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
}, 60_000);

async function start(label: string): Promise<Child> {
  const app = await startChild('app', label, env);
  cleanups.push(() => app.stop());
  return app;
}

describe('the undo window across a crash', () => {
  it('an app killed (kill -9) during the window: the app started after it resumes once the window passes, once', async () => {
    const first = await start('app before the crash');
    const base = `http://127.0.0.1:${first.port}`;
    const { event, confirmationId } = pauseEvent(FAKE_APP, [{ text: 'transfer 702' }]);
    const created = await fetch(`${base}/v1/pauses`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        app: FAKE_APP,
        userId: 'u-undo',
        sessionId: `s-${randomBytes(4).toString('hex')}`,
        events: [event],
        resume: { mode: 'adk' },
        channel: OPS,
      }),
    });
    expect(created.status).toBe(201);
    const { id } = z.object({ id: z.string() }).parse(await created.json());
    const card = await waitForPauseCard(sandbox, OPS, id);
    const clickedAt = Date.now();
    const click = await postApproveClick({
      appUrl: base,
      card,
      voter: bob,
      sandboxUrl: sandbox.url,
      signingSecret: slackSecret,
    });
    expect(click.status).toBe(200);
    // The vote is recorded after the ack: the card in its undo window says it is.
    await sandbox.waitFor(() =>
      sandbox
        .messages(OPS)
        .find((m) => m.ts === card.ts && JSON.stringify(m.blocks).includes('undoes it')),
    );
    await first.kill();
    expect(adk.arrivals(confirmationId)).toEqual([]);

    await start('app after the crash');
    await adk.waitForResumes([confirmationId], 20_000);
    const [arrived] = adk.arrivals(confirmationId);
    expect((arrived ?? 0) - clickedAt).toBeGreaterThanOrEqual(3_000);
    // Once: no second resume comes (two more sweeps' worth).
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(adk.arrivals(confirmationId)).toHaveLength(1);
  }, 60_000);
});
