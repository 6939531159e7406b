import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import {
  CHANNELS,
  PEOPLE,
  type Sandbox,
  type SandboxMessage,
  startSandbox,
} from '@adk-slack-approvals/slack-sandbox';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { z } from 'zod';
import { connectRedis } from '../src/approvals/store/redis-connection.js';
import { waitForPauseCard } from '../test/support/pause-card.js';
import { deleteWithPrefix, REDIS_URL, randomPrefix } from '../test/support/redis.js';
import { type Child, compileProcesses, startChild } from './support/child-processes.js';
import { FAKE_APP, type FakeAdk, pauseEvent, startFakeAdk } from './support/fake-adk.js';
import { ms, spread, table } from './support/figures.js';
import { postApproveClick } from './support/signed-approve.js';

/**
 * The approvals API, with the app in a child process as a replica runs it (real Redis, the Slack
 * sandbox, a fake ADK server it never needs here): pauses created per second through
 * `POST /v1/pauses` (each posts its card), the long-poll's answer after the deciding vote's ack,
 * and a webhook's arrival after it. Prints figures; asserts nothing.
 */

const CREATES = 200;
const CREATE_CONCURRENCY = 16;
const DECISIONS = 20;
const { bob } = PEOPLE;
const OPS = CHANNELS.ops.id;

const signingSecret = randomBytes(16).toString('hex');
const botToken = `xoxb-bench-${randomBytes(6).toString('hex')}`;
const apiKey = randomBytes(24).toString('hex');
const attestationSecret = randomBytes(24).toString('hex');
const cleanups: Array<() => Promise<unknown>> = [];
let sandbox: Sandbox;
let adk: FakeAdk;
let redis: Redis;
let app: Child;
let base: string;
let webhookUrl: string;
/** When each webhook delivery arrived (`performance.now()`), by pause id. */
const webhookArrivals = new Map<string, number>();
let webhookArrived: () => void = () => {};

function print(line: string): void {
  process.stdout.write(`[bench api] ${line}\n`);
}

beforeAll(async () => {
  await compileProcesses();
  const dir = await mkdtemp(join(tmpdir(), 'bench-api-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  const webhooks: Server = createServer((req, res) => {
    const id = req.headers['x-approvals-delivery'];
    req.resume();
    req.on('end', () => {
      if (typeof id === 'string') webhookArrivals.set(id, performance.now());
      res.writeHead(204).end();
      webhookArrived();
    });
  });
  await new Promise<void>((resolve) => webhooks.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise((resolve) => webhooks.close(resolve)));
  webhookUrl = `http://127.0.0.1:${(webhooks.address() as AddressInfo).port}/hooks/`;

  const policyFile = join(dir, 'policy.yml');
  await writeFile(policyFile, `defaults:\n  approvers: [${bob.id}]\n  expiresIn: 1h\n`);
  const keysFile = join(dir, 'api-keys.yml');
  await writeFile(
    keysFile,
    `keys:\n  - name: bench\n    sha256: ${createHash('sha256').update(apiKey).digest('hex')}\n    apps: [${FAKE_APP}]\n    webhooks: [${webhookUrl}]\n    signingSecret: ${attestationSecret}\n`,
  );
  redis = await connectRedis(REDIS_URL);
  cleanups.push(() => redis.quit());
  const keyPrefix = randomPrefix();
  cleanups.push(() => deleteWithPrefix(redis, keyPrefix));
  sandbox = await startSandbox({ port: 0, signingSecret, botToken });
  cleanups.push(() => sandbox.stop());
  adk = await startFakeAdk();
  cleanups.push(() => adk.stop());
  app = await startChild('app', 'app process', {
    SLACK_BOT_TOKEN: botToken,
    SLACK_SIGNING_SECRET: signingSecret,
    SLACK_API_URL: sandbox.apiUrl,
    ADK_BASE_URL: adk.baseUrl,
    REDIS_URL,
    REDIS_KEY_PREFIX: keyPrefix,
    POLICY_FILE: policyFile,
    API_KEYS_FILE: keysFile,
    PORT: '0',
    LOG_LEVEL: 'warn',
  });
  cleanups.push(() => app.stop());
  base = `http://127.0.0.1:${app.port}`;
  print(
    `note: figures are from a shared ${availableParallelism()}-core machine; the app, Redis, the sandbox and this process all run on it`,
  );
}, 120_000);

afterAll(async () => {
  for (const cleanup of cleanups.reverse()) {
    await cleanup().catch((error: unknown) => print(`cleanup failed: ${String(error)}`));
  }
}, 120_000);

const createdSchema = z.object({ id: z.string() });

async function createPause(n: number, resume: object): Promise<string> {
  const { event } = pauseEvent(FAKE_APP, [{ text: `transfer ${n}` }]);
  const response = await fetch(`${base}/v1/pauses`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      app: FAKE_APP,
      userId: 'bench',
      sessionId: `s-${n}-${randomBytes(4).toString('hex')}`,
      events: [event],
      resume,
      channel: OPS,
    }),
  });
  if (response.status !== 201) throw new Error(`create answered ${response.status}`);
  return createdSchema.parse(await response.json()).id;
}

/** Bob's Approve click; resolves with when it was acked (`performance.now()`). */
async function approve(card: SandboxMessage): Promise<number> {
  const response = await postApproveClick({
    appUrl: base,
    card,
    voter: bob,
    sandboxUrl: sandbox.url,
    signingSecret,
  });
  if (!response.ok) throw new Error(`click answered ${response.status}`);
  return performance.now();
}

describe('the approvals API', () => {
  it('creates per second, long-poll and webhook latency after the deciding vote', async () => {
    // Warm-up, then the measured creates, CREATE_CONCURRENCY at a time.
    for (let i = 0; i < 20; i++) await createPause(i, { mode: 'poll' });
    let next = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: CREATE_CONCURRENCY }, async () => {
        while (next < CREATES) {
          next += 1;
          await createPause(1000 + next, { mode: 'poll' });
        }
      }),
    );
    const createMs = performance.now() - started;

    const pollLatency: number[] = [];
    for (let i = 0; i < DECISIONS; i++) {
      const id = await createPause(5000 + i, { mode: 'poll' });
      const card = await waitForPauseCard(sandbox, OPS, id);
      const answered = fetch(`${base}/v1/pauses/${id}/decision?wait=30`, {
        headers: { authorization: `Bearer ${apiKey}` },
      }).then(async (response) => {
        await response.body?.cancel();
        if (response.status !== 200) throw new Error(`long-poll answered ${response.status}`);
        return performance.now();
      });
      const acked = await approve(card);
      pollLatency.push((await answered) - acked);
    }

    const webhookLatency: number[] = [];
    for (let i = 0; i < DECISIONS; i++) {
      const id = await createPause(6000 + i, { mode: 'webhook', url: `${webhookUrl}${i}` });
      const card = await waitForPauseCard(sandbox, OPS, id);
      const arrived = new Promise<number>((resolve) => {
        webhookArrived = () => {
          const at = webhookArrivals.get(id);
          if (at !== undefined) resolve(at);
        };
      });
      const acked = await approve(card);
      webhookLatency.push((await arrived) - acked);
    }

    const poll = spread(pollLatency);
    const hook = spread(webhookLatency);
    for (const line of [
      `${CREATES} pauses created (${CREATE_CONCURRENCY} at a time, each posting its card) in ${ms(createMs)} ms: ${((CREATES * 1000) / createMs).toFixed(0)} creates/s`,
      ...table(
        ['after the deciding click is acked (ms)', 'p50', 'p99', 'max'],
        [
          ['long-poll answers', ms(poll.p50), ms(poll.p99), ms(poll.max)],
          ['webhook arrives', ms(hook.p50), ms(hook.p99), ms(hook.max)],
        ],
      ),
    ]) {
      print(line);
    }
  }, 240_000);
});
