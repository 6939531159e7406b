import { createHash, randomBytes } from 'node:crypto';
import type { SandboxMessage } from '@adk-slack-approvals/slack-sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACTION_IDS } from '../../src/slack/codecs/action-ids.js';
import { startConversation } from '../support/adk-conversation.js';
import { apiCall } from '../support/api-calls.js';
import { CHANNELS, type Harness, PEOPLE, startHarness } from '../support/app-harness.js';

/**
 * A decision is bound to its call and its key (issue 33): a call id used again for another tool
 * is a pause of its own, with its own card and its own decision; another key posting the same
 * session and call gets a pause of its own; an Idempotency-Key holds for its key and its body
 * only. Real app, Redis, the adk api_server's captured events, the Slack sandbox.
 */
const { bob } = PEOPLE;
const OPS = CHANNELS.ops.id;
const sha = (text: string) => createHash('sha256').update(text).digest('hex');
const secret = () => randomBytes(24).toString('hex');
const KEYS = { runbooks: secret(), deploys: secret() };

let harness: Harness;

beforeAll(async () => {
  harness = await startHarness({
    policy: `
rules:
  - match: { app: payments }
    channel: ${OPS}
    approvers: [${bob.id}]
`,
    apiKeys: `
keys:
  - { name: runbooks, sha256: ${sha(KEYS.runbooks)}, apps: [payments], signingSecret: ${secret()} }
  - { name: deploys, sha256: ${sha(KEYS.deploys)}, apps: [payments], signingSecret: ${secret()} }
`,
  });
}, 60_000);
afterAll(async () => {
  await harness?.stop();
});

function api(
  key: keyof typeof KEYS,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
) {
  return apiCall(`http://127.0.0.1:${harness.app.port}`, KEYS[key], path, { body, headers });
}

/** A real paused transfer on the api_server, as the body a plugin posts. */
async function pausedTransfer(amount: number) {
  const chat = await startConversation(
    harness.adk,
    'payments',
    `u-${randomBytes(4).toString('hex')}`,
  );
  const events = await chat.send(`transfer ${amount}`);
  return {
    app: 'payments',
    userId: chat.userId,
    sessionId: chat.sessionId,
    events,
    resume: { mode: 'poll' },
  };
}

const idOf = async (answer: Response) => ((await answer.json()) as { id: string }).id;

function cardsOf(pauseId: string): SandboxMessage[] {
  return harness.sandbox
    .messages(OPS)
    .filter(
      (m) =>
        JSON.stringify(m.blocks).includes(pauseId) &&
        JSON.stringify(m.blocks).includes(ACTION_IDS.approve),
    );
}

describe('a decision is bound to its call and its key', () => {
  it('a later call reusing a call id for delete_account gets its own card, and the approval given to transfer_money does not answer it', async () => {
    const body = await pausedTransfer(40);
    const first = await api('runbooks', '/v1/pauses', body);
    expect(first.status).toBe(201);
    const transfer = await idOf(first);
    const card = await harness.sandbox.waitFor(() => cardsOf(transfer)[0]);
    await harness.sandbox.clickButton({
      user: bob.id,
      channel: OPS,
      messageTs: card.ts,
      actionId: ACTION_IDS.approve,
    });
    const approved = await api('runbooks', `/v1/pauses/${transfer}/decision?wait=10`);
    expect(approved.status).toBe(200);

    // The same events, the same call id, but the gated call is now another tool.
    const reused = JSON.parse(
      JSON.stringify(body.events).replaceAll('transfer_money', 'delete_account'),
    );
    const second = await api('runbooks', '/v1/pauses', { ...body, events: reused });
    expect(second.status).toBe(201);
    const deletion = await idOf(second);
    expect(deletion).not.toBe(transfer);
    const asked = await harness.sandbox.waitFor(() => cardsOf(deletion)[0]);
    expect(JSON.stringify(asked.blocks)).toContain('delete_account');
    const pending = await api('runbooks', `/v1/pauses/${deletion}/decision?wait=1`);
    expect(pending.status).toBe(202);
  });

  it('another key posting the same session and call id gets a pause of its own, and cannot read the first', async () => {
    const body = await pausedTransfer(41);
    const mine = await api('runbooks', '/v1/pauses', body);
    expect(mine.status).toBe(201);
    const theirs = await api('deploys', '/v1/pauses', body);
    expect(theirs.status).toBe(201);
    const [a, c] = [await idOf(mine), await idOf(theirs)];
    expect(c).not.toBe(a);
    await harness.sandbox.waitFor(() =>
      cardsOf(a).length && cardsOf(c).length ? true : undefined,
    );
    expect((await api('deploys', `/v1/pauses/${a}`)).status).toBe(404);
    expect((await api('deploys', `/v1/pauses/${a}/decision?wait=1`)).status).toBe(404);
  });

  it('an Idempotency-Key answers the same pause for the same key and body; another body is 409 naming why; another key is its own', async () => {
    const body = await pausedTransfer(42);
    const key = { 'idempotency-key': `k-${randomBytes(4).toString('hex')}` };
    const first = await api('runbooks', '/v1/pauses', body, key);
    expect(first.status).toBe(201);
    const id = await idOf(first);
    const retry = await api('runbooks', '/v1/pauses', body, key);
    expect(retry.status).toBe(200);
    expect(await idOf(retry)).toBe(id);

    const other = await api('runbooks', '/v1/pauses', { ...body, title: 'another' }, key);
    expect(other.status).toBe(409);
    const why = JSON.stringify(await other.json());
    expect(why).toContain('Idempotency-Key');
    expect(why).toContain('different body');
    expect(why).toContain(id);

    const elsewhere = await api('deploys', '/v1/pauses', body, key);
    expect(elsewhere.status).toBe(201);
    expect(await idOf(elsewhere)).not.toBe(id);
    await harness.sandbox.waitFor(() => cardsOf(id)[0]);
    expect(cardsOf(id)).toHaveLength(1);
  });
});
