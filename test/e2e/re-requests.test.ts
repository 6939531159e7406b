import { createHash, randomBytes } from 'node:crypto';
import { ApprovalsPlugin } from '@adk-slack-approvals/adk-approvals';
import type { SandboxMessage } from '@adk-slack-approvals/slack-sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ACTION_IDS } from '../../src/slack/codecs/action-ids.js';
import { rootAgent as payFlow } from '../agents/pay_flow/agent.js';
import { startConversation } from '../support/adk-conversation.js';
import { CHANNELS, cardText, type Harness, PEOPLE, startHarness } from '../support/app-harness.js';
import { waitForPauseCard } from '../support/pause-card.js';
import {
  type DecisionReceiver,
  pausedOn,
  pluginRunner,
  startDecisionReceiver,
} from '../support/plugin-runs.js';

/**
 * A gated tool ADK asks for again after its approval, instead of running it (ADK JS 2.0's
 * Workflow LlmAgent node re-runs its input on resume: the `pay_flow` test agent), through the
 * paths where the app itself resumes the agent (`/agent`, the approvals API's `adk` mode) and
 * where the agent resumes itself with the plugin (`webhook` here; `poll` is in
 * plugin-pause-kinds.test.ts). One card, a note on it, a notice, and the run stops: never a
 * second card, never a loop of them.
 */
const { alice, bob } = PEOPLE;
const OPS = CHANNELS.ops.id;
const KEY = `key-${randomBytes(12).toString('hex')}`;

const SECRET = randomBytes(24).toString('hex');

let harness: Harness;
let receiver: DecisionReceiver;

beforeAll(async () => {
  receiver = await startDecisionReceiver();
  harness = await startHarness({
    policy: `
defaults:
  approvers: [${bob.id}]
rules:
  - match: { app: pay_flow }
    channel: ${OPS}
    approvers: [${bob.id}]
`,
    apiKeys: `
keys:
  - name: re-requests
    sha256: ${createHash('sha256').update(KEY).digest('hex')}
    apps: [pay_flow]
    webhooks: [${receiver.url}]
    signingSecret: ${SECRET}
`,
  });
}, 120_000);

afterAll(async () => {
  await harness?.stop();
  await receiver?.close();
});

const hasButtons = (message: SandboxMessage) =>
  JSON.stringify(message.blocks).includes(ACTION_IDS.approve);

/** The messages of a thread (its root included) that ask about `pay_vendor`: its cards. */
function payCards(threadTs: string): SandboxMessage[] {
  return harness.sandbox
    .replies(OPS, threadTs)
    .filter((message) => JSON.stringify(message.blocks).includes('pay_vendor'))
    .filter((message) => message.ts !== threadTs || hasButtons(message));
}

/**
 * After the approval: the notice that the run stopped, or a second card asking again (today's
 * loop), whichever comes first.
 */
function stopOrSecondCard(threadTs: string, firstCard: SandboxMessage) {
  return harness.sandbox.waitFor(
    () => {
      const again = payCards(threadTs).find((m) => m.ts !== firstCard.ts && hasButtons(m));
      if (again !== undefined) return { kind: 'second card' as const, message: again };
      const notice = harness.sandbox
        .replies(OPS, threadTs)
        .find((message) => message.text.includes('asked again for'));
      return notice === undefined ? undefined : { kind: 'notice' as const, message: notice };
    },
    { timeoutMs: 15_000 },
  );
}

/** Bob approves the card; then the run must stop on it. */
async function approveAndExpectStop(threadTs: string, card: SandboxMessage): Promise<void> {
  const { adk } = (await harness.pauseOf(card)).pause;
  await harness.sandbox.clickButton({
    user: bob.id,
    channel: OPS,
    messageTs: card.ts,
    actionId: ACTION_IDS.approve,
  });
  const after = await stopOrSecondCard(threadTs, card);
  expect(after.kind).toBe('notice');
  expect(cardText(after.message)).toContain('pay_vendor');
  expect(cardText(after.message)).toContain('nothing ran');
  const noted = await harness.sandbox.waitFor(() => {
    const now = harness.sandbox.message(OPS, card.ts);
    return now !== undefined && cardText(now).includes('asked again') ? now : undefined;
  });
  expect(hasButtons(noted)).toBe(false);
  expect(cardText(noted)).not.toMatch(/approved calls ran/);
  expect(payCards(threadTs).filter(hasButtons)).toEqual([]);
  const session = await harness.adk.getSession('pay_flow', adk.userId, adk.sessionId);
  const paid = session.events.filter((event) =>
    (event.content?.parts ?? []).some(
      (part) =>
        part.functionResponse?.name === 'pay_vendor' &&
        JSON.stringify(part.functionResponse.response).includes('paid'),
    ),
  );
  expect(paid).toEqual([]);
}

describe('a Workflow LlmAgent node whose gated tool ADK asks for again after the approval', () => {
  it('through /agent: one card, a note on it, a notice in the thread, and the run stops', async () => {
    const root = await harness.runAgent(alice.id, OPS, 'pay_flow pay 310');
    const card = await harness.card(OPS, root.ts);
    expect(cardText(card)).toContain('pay_vendor');
    await approveAndExpectStop(root.ts, card);
  });

  it("through the approvals API's adk mode: one card, a note on it, a notice in its thread, and the run stops", async () => {
    const chat = await startConversation(harness.adk, 'pay_flow', 'u-re-request');
    const events = await chat.send('pay 420');
    const created = await fetch(`http://127.0.0.1:${harness.app.port}/v1/pauses`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        app: 'pay_flow',
        userId: chat.userId,
        sessionId: chat.sessionId,
        events,
        resume: { mode: 'adk' },
      }),
    });
    expect(created.status).toBe(201);
    const { id } = z.object({ id: z.string() }).parse(await created.json());
    const card = await waitForPauseCard(harness.sandbox, OPS, id);
    await approveAndExpectStop(card.ts, card);
  });

  it('through the plugin in webhook mode: the receiver resumes its runner, which stops; one card, a note on it', async () => {
    const plugin = new ApprovalsPlugin({
      baseUrl: `http://127.0.0.1:${harness.app.port}`,
      apiKey: KEY,
      signingSecret: SECRET,
      resume: { mode: 'webhook', url: `${receiver.url}decided` },
      attempts: 1,
    });
    const run = await pluginRunner(payFlow, 'pay_flow', plugin, 'u-webhook');
    const posted = await pausedOn(run, 'pay 530');
    const resumed = receiver.resumes(posted.id, run);
    const card = await waitForPauseCard(harness.sandbox, OPS, posted.id);
    await harness.sandbox.clickButton({
      user: bob.id,
      channel: OPS,
      messageTs: card.ts,
      actionId: ACTION_IDS.approve,
    });
    expect(await resumed).toMatchObject({
      kind: 'resumed',
      unsupported: [{ kind: 're_request', tool: 'pay_vendor' }],
    });
    const noted = await harness.sandbox.waitFor(() => {
      const now = harness.sandbox.message(OPS, card.ts);
      return now !== undefined && cardText(now).includes('asked again') ? now : undefined;
    });
    expect(cardText(noted)).toContain('nothing ran');
    const cards = harness.sandbox
      .messages(OPS)
      .filter((message) => JSON.stringify(message.blocks).includes('530'));
    expect(cards.map((message) => message.ts)).toEqual([card.ts]);
  });
});
