import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ACTION_IDS } from '../../src/slack/codecs/action-ids.js';
import { startConversation } from '../support/adk-conversation.js';
import { apiCall } from '../support/api-calls.js';
import { CHANNELS, type Harness, PEOPLE, startHarness } from '../support/app-harness.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

/**
 * Scoped grants for agents that run elsewhere, and `GET/DELETE /v1/grants`: Bob's "for 1 hour"
 * on a card of a pause posted through the API decides Alice's next call in another session at
 * once (the long-poll answers, decided by the grant, no card); keys list and revoke only what
 * they are allowed to; after the revocation the next call gets a card. Real app, Redis and ADK
 * api_server.
 */
const { alice, bob } = PEOPLE;
const OPS = CHANNELS.ops.id;
const sha = (text: string) => createHash('sha256').update(text).digest('hex');
const secret = () => randomBytes(24).toString('hex');
const KEYS = { runbooks: secret(), auditor: secret(), billing: secret(), deploys: secret() };

let harness: Harness;
let receiver: WebhookReceiver;

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  harness = await startHarness({
    policy: `
defaults:
  channel: ${OPS}
  approvers: [${bob.id}]
rules:
  - name: transfers
    match: { app: payments, tool: transfer_money }
    grants: [1h]
`,
    apiKeys: `
keys:
  - { name: runbooks, sha256: ${sha(KEYS.runbooks)}, apps: [payments], signingSecret: ${secret()}, grants: true, webhooks: ["${receiver.url}"] }
  - { name: auditor, sha256: ${sha(KEYS.auditor)}, apps: [payments], signingSecret: ${secret()} }
  - { name: billing, sha256: ${sha(KEYS.billing)}, apps: [billing], signingSecret: ${secret()}, grants: true }
  - { name: deploys, sha256: ${sha(KEYS.deploys)}, apps: [payments], signingSecret: ${secret()}, grants: true }
`,
    webhook: { timeoutMs: 2_000, backoffMs: 1_500, maxBackoffMs: 1_500 },
  });
}, 60_000);
afterAll(async () => {
  await harness?.stop();
  await receiver?.close();
});

function api(key: keyof typeof KEYS, path: string, method = 'GET', body?: unknown) {
  return apiCall(`http://127.0.0.1:${harness.app.port}`, KEYS[key], path, { method, body });
}

/** A real paused session on the api_server, posted for Alice as a plugin would (poll mode). */
async function postPause(
  amount: number,
  resume: object = { mode: 'poll' },
  key: keyof typeof KEYS = 'runbooks',
): Promise<string> {
  const chat = await startConversation(
    harness.adk,
    'payments',
    `u-${randomBytes(4).toString('hex')}`,
  );
  const events = await chat.send(`transfer ${amount}`);
  const created = await api(key, '/v1/pauses', 'POST', {
    app: 'payments',
    userId: chat.userId,
    sessionId: chat.sessionId,
    events,
    resume,
    requestedBy: { slackUserId: alice.id },
  });
  expect(created.status).toBe(201);
  return ((await created.json()) as { id: string }).id;
}

const cardOf = (id: string) =>
  harness.sandbox
    .messages(OPS)
    .find(
      (m) =>
        JSON.stringify(m.blocks).includes(id) &&
        JSON.stringify(m.blocks).includes(ACTION_IDS.approve),
    );

interface Decision {
  status: string;
  gates: { confirmed: boolean; decidedBy: Record<string, unknown> }[];
}

async function decisionOf(
  id: string,
  wait: number,
  key: keyof typeof KEYS = 'runbooks',
): Promise<{ status: number; body: Decision }> {
  const answered = await api(key, `/v1/pauses/${id}/decision?wait=${wait}`);
  return { status: answered.status, body: (await answered.json()) as Decision };
}

/** Bob gives a 1-hour grant on the card of the pause. */
async function grantOnCard(pauseId: string): Promise<void> {
  const card = await harness.sandbox.waitFor(() => cardOf(pauseId));
  await harness.sandbox.clickButton({
    user: bob.id,
    channel: OPS,
    messageTs: card.ts,
    actionId: ACTION_IDS.grantTime,
  });
}

describe('grants for pauses posted through the API', () => {
  it('a 1-hour grant decides the next call in another session; keys list and revoke only what they may; then a card again', {
    timeout: 90_000,
  }, async () => {
    const first = await postPause(71);
    await grantOnCard(first);
    const decided = await decisionOf(first, 10);
    expect(decided.body.gates[0]).toMatchObject({
      confirmed: true,
      decidedBy: { kind: 'person', id: bob.id },
    });

    const second = await postPause(72);
    const covered = await decisionOf(second, 10);
    expect(covered.status).toBe(200);
    const decidedBy = covered.body.gates[0]?.decidedBy as { kind: string; id: string };
    expect(decidedBy.kind).toBe('grant');
    expect(decidedBy.id).toMatch(/^gr_[0-9a-f]{12}$/);
    expect(cardOf(second)).toBeUndefined();
    const grantId = decidedBy.id;

    const listed = await api('runbooks', '/v1/grants?app=payments');
    expect(listed.status).toBe(200);
    expect(((await listed.json()) as { grants: unknown[] }).grants).toEqual([
      expect.objectContaining({
        id: grantId,
        app: 'payments',
        tool: 'transfer_money',
        requester: alice.id,
        granter: bob.id,
        scope: 'time',
        durationMs: 3_600_000,
        uses: 1,
        pauseId: first,
      }),
    ]);
    expect((await api('auditor', '/v1/grants')).status).toBe(403);
    expect(
      ((await (await api('billing', '/v1/grants')).json()) as { grants: unknown[] }).grants,
    ).toEqual([]);
    expect((await api('billing', `/v1/grants/${grantId}`, 'DELETE')).status).toBe(404);
    expect((await api('auditor', `/v1/grants/${grantId}`, 'DELETE')).status).toBe(403);

    // Another key of the same app, naming the same requester: the grant was given on the
    // runbooks key's pause, so it neither covers this key's call nor shows to it.
    const elsewhere = await postPause(74, { mode: 'poll' }, 'deploys');
    expect((await decisionOf(elsewhere, 1, 'deploys')).status).toBe(202);
    await harness.sandbox.waitFor(() => cardOf(elsewhere));
    expect(
      ((await (await api('deploys', '/v1/grants')).json()) as { grants: unknown[] }).grants,
    ).toEqual([]);
    expect((await api('deploys', `/v1/grants/${grantId}`, 'DELETE')).status).toBe(404);

    const revoked = await api('runbooks', `/v1/grants/${grantId}`, 'DELETE');
    expect(revoked.status).toBe(200);
    expect(await revoked.json()).toMatchObject({ id: grantId, revoked: true });
    expect((await api('runbooks', `/v1/grants/${grantId}`, 'DELETE')).status).toBe(404);

    const third = await postPause(73);
    expect((await decisionOf(third, 1)).status).toBe(202);
    await harness.sandbox.waitFor(() => cardOf(third));

    const trail = await harness.store.audit.readAudit({ pauseId: first });
    expect(trail.filter((e) => e.event.startsWith('grant'))).toEqual([
      expect.objectContaining({ event: 'granted', actor: bob.id }),
      expect.objectContaining({ event: 'grant_revoked', actor: 'api:runbooks' }),
    ]);
  });

  it('a grant revoked between its decision and the resume: nothing is sent, and the call waits on a card', {
    timeout: 60_000,
  }, async () => {
    const first = await postPause(81);
    await grantOnCard(first);
    expect((await decisionOf(first, 10)).body.status).toBe('decided');

    // Covered by the grant, resumed by webhook: the first delivery fails, and meanwhile the
    // grant is revoked; the re-check before the next delivery finds it gone.
    receiver.failNext = 1;
    const second = await postPause(82, { mode: 'webhook', url: `${receiver.url}second` });
    await vi.waitFor(
      () => {
        if (receiver.failNext > 0) throw new Error('no delivery attempted yet');
      },
      { timeout: 10_000, interval: 20 },
    );
    const grants = (await (await api('runbooks', '/v1/grants')).json()) as {
      grants: { id: string; pauseId: string }[];
    };
    const grant = grants.grants.find((g) => g.pauseId === first);
    expect((await api('runbooks', `/v1/grants/${grant?.id}`, 'DELETE')).status).toBe(200);

    const asked = await harness.sandbox.waitFor(() => cardOf(second), { timeoutMs: 15_000 });
    expect(JSON.stringify(asked.blocks)).toContain('revoked');
    const view = await harness.store.pauses.getPause(second);
    expect(view?.gates[0]?.state).toBe('pending');
    expect(receiver.delivered).not.toContain(second);
    const trail = await harness.store.audit.readAudit({ pauseId: second });
    expect(trail.map((e) => e.event)).toContain('reopened');
  });
});
