import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
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
 * Webhook mode across a crash: the app (a child process, as a replica runs it) is SIGKILLed while
 * its delivery of a decision is in flight; a new app process on the same Redis delivers it, signed.
 * The delivery lives in Redis under the pause's resume lease, so nothing of it is in the process.
 */
const { bob } = PEOPLE;
const OPS = CHANNELS.ops.id;
const slackSecret = randomBytes(16).toString('hex');
const botToken = `xoxb-test-${randomBytes(6).toString('hex')}`;
const apiKey = randomBytes(24).toString('hex');
const attestationSecret = randomBytes(24).toString('hex');
const keyPrefix = randomPrefix();
const cleanups: Array<() => Promise<unknown>> = [];

interface Attempt {
  headers: IncomingMessage['headers'];
  body: string;
  res: ServerResponse;
}
const attempts: Attempt[] = [];
let onAttempt: () => void = () => {};
let webhookUrl: string;
let sandbox: Sandbox;
let adk: FakeAdk;
let env: Record<string, string>;

beforeAll(async () => {
  await compileProcesses();
  const dir = await mkdtemp(join(tmpdir(), 'webhook-restart-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  // The receiver holds the first attempt unanswered (the app dies meanwhile), answers the next.
  const receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      attempts.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), res });
      if (attempts.length > 1) res.writeHead(204).end();
      onAttempt();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  cleanups.push(
    () =>
      new Promise((resolve) => {
        receiver.closeAllConnections();
        receiver.close(resolve);
      }),
  );
  webhookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks/`;
  const policyFile = join(dir, 'policy.yml');
  await writeFile(policyFile, `defaults:\n  approvers: [${bob.id}]\n`);
  const keysFile = join(dir, 'api-keys.yml');
  await writeFile(
    keysFile,
    `keys:\n  - name: hooks\n    sha256: ${createHash('sha256').update(apiKey).digest('hex')}\n    apps: [${FAKE_APP}]\n    webhooks: [${webhookUrl}]\n    signingSecret: ${attestationSecret}\n`,
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

function nextAttempt(count: number): Promise<Attempt> {
  return new Promise((resolve) => {
    const check = () => {
      const attempt = attempts[count - 1];
      if (attempt !== undefined) resolve(attempt);
    };
    onAttempt = check;
    check();
  });
}

async function start(label: string): Promise<Child> {
  const app = await startChild('app', label, env);
  cleanups.push(() => app.stop());
  return app;
}

describe('webhook mode across a crash', () => {
  it('a delivery in flight when the app is killed arrives, signed, from the app started after it', async () => {
    const first = await start('app before the crash');
    const base = `http://127.0.0.1:${first.port}`;
    const { event } = pauseEvent(FAKE_APP, [{ text: 'transfer 300' }]);
    const created = await fetch(`${base}/v1/pauses`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        app: FAKE_APP,
        userId: 'u-hook',
        sessionId: `s-${randomBytes(4).toString('hex')}`,
        events: [event],
        resume: { mode: 'webhook', url: `${webhookUrl}payments` },
        channel: OPS,
      }),
    });
    expect(created.status).toBe(201);
    const { id } = z.object({ id: z.string() }).parse(await created.json());
    const card = await waitForPauseCard(sandbox, OPS, id);
    const click = await postApproveClick({
      appUrl: base,
      card,
      voter: bob,
      sandboxUrl: sandbox.url,
      signingSecret: slackSecret,
    });
    expect(click.status).toBe(200);

    const inFlight = await nextAttempt(1);
    await first.kill();
    inFlight.res.destroy();
    expect(attempts).toHaveLength(1);

    await start('app after the crash');
    const delivered = await nextAttempt(2);
    expect(delivered.headers['x-approvals-delivery']).toBe(id);
    const signature = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(
      String(delivered.headers['x-approvals-signature']),
    );
    expect(signature).not.toBeNull();
    const expected = createHmac('sha256', attestationSecret)
      .update(`${signature?.[1]}.${delivered.body}`)
      .digest();
    expect(timingSafeEqual(Buffer.from(signature?.[2] ?? '', 'hex'), expected)).toBe(true);
    const decision = z
      .object({
        id: z.string(),
        status: z.string(),
        gates: z.array(z.object({ confirmed: z.boolean() })),
      })
      .parse(JSON.parse(delivered.body));
    expect(decision).toMatchObject({ id, status: 'decided', gates: [{ confirmed: true }] });
  }, 60_000);
});
