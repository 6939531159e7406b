import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CHANNELS, PEOPLE } from '@adk-slack-approvals/slack-sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { FAKE_APP, pauseEvent } from '../../bench/support/fake-adk.js';
import { postApproveClick } from '../../bench/support/signed-approve.js';
import { type ChildAppWorld, startChildAppWorld } from '../support/child-app-world.js';
import { waitForPauseCard } from '../support/pause-card.js';

/**
 * Webhook mode across a crash: the app (a child process, as a replica runs it) is SIGKILLed while
 * its delivery of a decision is in flight; a new app process on the same Redis delivers it, signed.
 * The delivery lives in Redis under the pause's resume lease, so nothing of it is in the process.
 */
const { bob } = PEOPLE;
const OPS = CHANNELS.ops.id;
const apiKey = randomBytes(24).toString('hex');
const attestationSecret = randomBytes(24).toString('hex');

interface Attempt {
  headers: IncomingMessage['headers'];
  body: string;
  res: ServerResponse;
}
const attempts: Attempt[] = [];
let onAttempt: () => void = () => {};
let webhookUrl: string;
let world: ChildAppWorld;

beforeAll(async () => {
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
  webhookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks/`;
  world = await startChildAppWorld({
    policy: `defaults:\n  approvers: [${bob.id}]\n`,
    apiKeys: `keys:\n  - name: hooks\n    sha256: ${createHash('sha256').update(apiKey).digest('hex')}\n    apps: [${FAKE_APP}]\n    webhooks: [${webhookUrl}]\n    signingSecret: ${attestationSecret}\n`,
  });
  world.onClose(
    () =>
      new Promise((resolve) => {
        receiver.closeAllConnections();
        receiver.close(resolve);
      }),
  );
}, 120_000);

afterAll(async () => {
  await world?.close();
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

describe('webhook mode across a crash', () => {
  it('a delivery in flight when the app is killed arrives, signed, from the app started after it', async () => {
    const { sandbox } = world;
    const first = await world.start('app before the crash');
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
      signingSecret: world.slackSecret,
    });
    expect(click.status).toBe(200);

    const inFlight = await nextAttempt(1);
    await first.kill();
    inFlight.res.destroy();
    expect(attempts).toHaveLength(1);

    await world.start('app after the crash');
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
