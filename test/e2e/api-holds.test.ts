import { createHash, randomBytes } from 'node:crypto';
import { ApprovalsPlugin, runWithApprovals } from '@adk-slack-approvals/adk-approvals';
import type { SandboxMessage } from '@adk-slack-approvals/slack-sandbox';
import { getFunctionResponses, InMemoryRunner } from '@google/adk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ACTION_IDS } from '../../src/slack/codecs/action-ids.js';
import { rootAgent as paymentsAgent } from '../agents/payments/agent.js';
import { startConversation } from '../support/adk-conversation.js';
import { apiCall } from '../support/api-calls.js';
import { buttons, CHANNELS, type Harness, PEOPLE, startHarness } from '../support/app-harness.js';
import { waitForPauseCard } from '../support/pause-card.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

/**
 * A rule's undo window means "not yet" for agents that run elsewhere too: while it holds an
 * approval, the approvals API answers `held` with `holdUntil` (never the decision), sends no
 * webhook and refuses the claim; the decision comes once the window ends, or `pending` again
 * after an Undo. Real Redis, the real adk api_server (the paused sessions), the Slack sandbox,
 * and the real ADK JS runner with the plugin.
 */
const { bob } = PEOPLE;
const OPS = CHANNELS.ops.id;
const KEY = `key-${randomBytes(12).toString('hex')}`;
const SECRET = randomBytes(24).toString('hex');
const UNDO_WINDOW_MS = 3_000;

let harness: Harness;
let base: string;
let receiver: WebhookReceiver;

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  harness = await startHarness({
    policy: `
rules:
  - match: { app: payments }
    channel: ${OPS}
    approvers: [${bob.id}]
    undoWindow: ${UNDO_WINDOW_MS / 1000}s
`,
    apiKeys: `
keys:
  - name: agents
    sha256: ${createHash('sha256').update(KEY).digest('hex')}
    apps: [payments]
    webhooks: [${receiver.url}]
    signingSecret: ${SECRET}
`,
  });
  base = `http://127.0.0.1:${harness.app.port}`;
}, 60_000);

afterAll(async () => {
  await harness?.stop();
  await receiver?.close();
});

function api(path: string, body?: unknown) {
  return apiCall(base, KEY, path, { body });
}

const heldSchema = z.strictObject({
  id: z.string(),
  status: z.literal('held'),
  holdUntil: z.iso.datetime(),
});
const createdSchema = z.object({
  id: z.string(),
  gates: z.array(z.object({ callId: z.string() })),
});

/** A real paused session's events, posted as a pause in `resume` mode. */
async function postedTransfer(amount: number, resume: object) {
  const chat = await startConversation(harness.adk, 'payments', 'u-holds');
  const events = await chat.send(`transfer ${amount}`);
  const created = await api('/v1/pauses', {
    app: 'payments',
    userId: chat.userId,
    sessionId: chat.sessionId,
    events,
    resume,
  });
  expect(created.status).toBe(201);
  const { id, gates } = createdSchema.parse(await created.json());
  const callId = gates[0]?.callId ?? '';
  return { id, callId, card: await waitForPauseCard(harness.sandbox, OPS, id) };
}

function click(card: SandboxMessage, actionId: string) {
  return harness.sandbox.clickButton({
    user: bob.id,
    channel: OPS,
    messageTs: card.ts,
    actionId,
  });
}

/** The `held` answer once the approval is recorded (the vote follows the click's ack). */
async function heldAnswer(pauseId: string): Promise<z.infer<typeof heldSchema>> {
  for (let i = 0; i < 100; i++) {
    const response = await api(`/v1/pauses/${pauseId}/decision`);
    const body: unknown = await response.json();
    const held = heldSchema.safeParse(body);
    if (response.status === 202 && held.success) return held.data;
    expect(response.status).toBe(202);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('the decision was never held');
}

describe('an undo window holds the decision from an agent that runs elsewhere', () => {
  it('poll mode: held with holdUntil (never the decision), the claim refused, and the decision only once the window ended', async () => {
    const pause = await postedTransfer(510, { mode: 'poll' });
    await click(pause.card, ACTION_IDS.approve);
    const held = await heldAnswer(pause.id);
    const holdUntil = Date.parse(held.holdUntil);
    const decidedAt = (await harness.pauseOf(pause.card)).gates[0]?.decision?.at ?? 0;
    expect(holdUntil).toBe(decidedAt + UNDO_WINDOW_MS);

    const claim = await api(`/v1/pauses/${pause.id}/claim`, { callId: pause.callId });
    expect(claim.status).toBe(409);
    expect(await claim.json()).toMatchObject({
      error: 'held',
      status: 'held',
      holdUntil: held.holdUntil,
      problems: [expect.stringContaining('undo window')],
    });

    // A long-poll waiting through the window answers the decision once it has ended.
    const decided = await api(`/v1/pauses/${pause.id}/decision?wait=10`);
    const answeredAt = Date.now();
    expect(decided.status).toBe(200);
    expect(await decided.json()).toMatchObject({
      status: 'decided',
      gates: [{ confirmed: true }],
      newMessage: { role: 'user' },
    });
    expect(answeredAt).toBeGreaterThanOrEqual(holdUntil);
    const after = await api(`/v1/pauses/${pause.id}/claim`, { callId: pause.callId });
    expect(after.status).toBe(200);
  });

  it('poll mode: Undo within the window gives pending again, also to a long-poll that waits past the window', async () => {
    const pause = await postedTransfer(520, { mode: 'poll' });
    await click(pause.card, ACTION_IDS.approve);
    const held = await heldAnswer(pause.id);
    const waiting = api(`/v1/pauses/${pause.id}/decision?wait=${UNDO_WINDOW_MS / 1000 + 2}`);
    await harness.sandbox.waitFor(() => {
      const now = harness.sandbox.message(OPS, pause.card.ts);
      return now && buttons(now).some((b) => b.action_id === ACTION_IDS.undo) && now;
    });
    await click(pause.card, ACTION_IDS.undo);
    await expect
      .poll(async () => (await harness.pauseOf(pause.card)).gates[0]?.state)
      .toBe('pending');
    const now = await api(`/v1/pauses/${pause.id}/decision`);
    expect(now.status).toBe(202);
    expect(await now.json()).toEqual({ id: pause.id, status: 'pending' });
    const waited = await waiting;
    expect(Date.now()).toBeGreaterThan(Date.parse(held.holdUntil));
    expect(waited.status).toBe(202);
    expect(await waited.json()).toEqual({ id: pause.id, status: 'pending' });
  });

  it('webhook mode: nothing is delivered during the window, and one delivery after it', async () => {
    const pause = await postedTransfer(530, { mode: 'webhook', url: `${receiver.url}p` });
    const arrivals = () =>
      receiver.deliveredAt.filter((_, i) => receiver.delivered[i] === pause.id);
    await click(pause.card, ACTION_IDS.approve);
    const holdUntil = Date.parse((await heldAnswer(pause.id)).holdUntil);
    // Until just before the window ends: nothing delivered.
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, holdUntil - Date.now() - 300)));
    expect(arrivals()).toEqual([]);
    await expect.poll(() => arrivals().length, { timeout: 10_000 }).toBe(1);
    expect(arrivals()[0]).toBeGreaterThanOrEqual(holdUntil);
    // Once: no second delivery follows.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(arrivals()).toHaveLength(1);
  });

  it('runWithApprovals (the TypeScript plugin, the real ADK runner) keeps waiting while the decision is held, then resumes once, after the window', async () => {
    const plugin = new ApprovalsPlugin({ baseUrl: base, apiKey: KEY, signingSecret: SECRET });
    const runner = new InMemoryRunner({
      agent: paymentsAgent,
      appName: 'payments',
      plugins: [plugin],
    });
    const session = await runner.sessionService.createSession({
      appName: 'payments',
      userId: 'u-holds-plugin',
    });
    let paused: (id: string) => void = () => {};
    const pauseId = new Promise<string>((resolve) => (paused = resolve));
    const toolRanAt: number[] = [];
    const run = runWithApprovals({
      runner,
      plugin,
      userId: session.userId,
      sessionId: session.id,
      newMessage: { role: 'user', parts: [{ text: 'transfer 540' }] },
      waitSeconds: 1,
      onPause: (pause) => paused(pause.id),
      onEvent: (event) => {
        if (getFunctionResponses(event).some((r) => r.name === 'transfer_money')) {
          toolRanAt.push(Date.now());
        }
      },
    });
    const id = await pauseId;
    const card = await waitForPauseCard(harness.sandbox, OPS, id);
    await click(card, ACTION_IDS.approve);
    const result = await run;
    expect(result).toMatchObject({ kind: 'completed', pauses: 1 });
    const decidedAt = (await harness.pauseOf(card)).gates[0]?.decision?.at ?? 0;
    expect(toolRanAt).toHaveLength(1);
    expect(toolRanAt[0]).toBeGreaterThanOrEqual(decidedAt + UNDO_WINDOW_MS);
  });
});
