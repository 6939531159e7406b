import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ACTION_IDS } from '../../src/slack/codecs/action-ids.js';
import { startConversation } from '../support/adk-conversation.js';
import {
  buttons,
  CHANNELS,
  cardText,
  type Harness,
  PEOPLE,
  replacePolicy,
  startHarness,
} from '../support/app-harness.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

/**
 * The re-check at the moment of use: an approver removed from the policy between their click
 * and the resume (held up here by an unreachable ADK server, then a Retry) gets nothing sent;
 * the gate is pending again, the card and the thread say why, the audit records it, and an
 * approver who is still allowed decides it, after which the tool runs once. Real Redis, the real
 * ADK api_server behind a proxy the test takes down, the Slack sandbox.
 */
const { alice, bob, carol } = PEOPLE;
const OPS = CHANNELS.ops.id;
/** The sandbox's on-call user group: bob and carol. */
const ONCALL = 'S0ONCALL001';
/** How long the app trusts a group membership it looked up (approver-directory.ts). */
const GROUP_TRUST_MS = 5_000;
const policy = (approvers: readonly string[]) => `
defaults:
  approvers: [${approvers.join(', ')}]
`;

const KEY = `key-${randomBytes(12).toString('hex')}`;
let harness: Harness;
let receiver: WebhookReceiver;

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  harness = await startHarness({
    policy: policy([bob.id, carol.id]),
    adkProxy: true,
    apiKeys: `
keys:
  - name: runbooks
    sha256: ${createHash('sha256').update(KEY).digest('hex')}
    apps: [payments]
    webhooks: [${receiver.url}]
    signingSecret: ${randomBytes(24).toString('hex')}
`,
    webhook: { timeoutMs: 2_000, backoffMs: 1_500, maxBackoffMs: 1_500 },
  });
});
afterAll(async () => {
  harness?.adkProxy?.setDown(false);
  await harness?.stop();
  await receiver?.close();
});

function cardNow(threadTs: string, ts: string) {
  return harness.sandbox.replies(OPS, threadTs).find((message) => message.ts === ts);
}

/** A click the sandbox could make: the button is on the card as it stands. */
async function click(user: string, ts: string, actionId: string) {
  const clicked = await harness.sandbox.clickButton({
    user,
    channel: OPS,
    messageTs: ts,
    actionId,
  });
  if (!clicked.answered) throw new Error(`could not click ${actionId}: ${clicked.reason}`);
}

function adkProxy() {
  const proxy = harness.adkProxy;
  if (proxy === undefined) throw new Error('the harness has no ADK proxy');
  return proxy;
}

/** Bob approves while the ADK server cannot be reached: the resume fails and offers Retry. */
async function bobApprovesWhileAdkIsDown(threadTs: string, cardTs: string) {
  adkProxy().setDown(true);
  await click(bob.id, cardTs, ACTION_IDS.approve);
  await harness.sandbox.waitFor(
    () => {
      const now = cardNow(threadTs, cardTs);
      return now && buttons(now).some((b) => b.action_id === ACTION_IDS.retryResume) && now;
    },
    { timeoutMs: 20_000 },
  );
}

async function aliceRetriesWithAdkBack(cardTs: string) {
  adkProxy().setDown(false);
  await click(alice.id, cardTs, ACTION_IDS.retryResume);
}

describe('the re-check before a resume', () => {
  it('an approver removed between the click and the resume: nothing is sent, the card is pending again and says why; an approver still allowed decides', {
    timeout: 60_000,
  }, async () => {
    const root = await harness.runAgent(alice.id, OPS, 'payments transfer 612');
    const card = await harness.card(OPS, root.ts);

    await bobApprovesWhileAdkIsDown(root.ts, card.ts);
    await replacePolicy(harness, policy([carol.id]));
    await aliceRetriesWithAdkBack(card.ts);

    const said = await harness.reply(OPS, root.ts, 'no longer holds');
    expect(cardText(said)).toContain(`<@${bob.id}>`);
    expect(cardText(said)).toContain('nothing was sent to the agent');
    const pending = await harness.sandbox.waitFor(() => {
      const now = cardNow(root.ts, card.ts);
      return now && cardText(now).includes('Sent back for a new decision') && now;
    });
    expect(buttons(pending).map((b) => b.action_id)).toContain(ACTION_IDS.approve);
    const view = await harness.pauseOf(card);
    expect(view.gates[0]).toMatchObject({
      state: 'pending',
      votes: [],
      reopened: { voter: bob.id, why: expect.stringContaining('no longer among the approvers') },
    });
    expect(view.pause.resume.state).toBe('idle');
    const trail = await harness.store.audit.readAudit({ pauseId: view.pause.id });
    expect(trail.map((entry) => entry.event)).toContain('reopened');
    expect(trail.find((entry) => entry.event === 'reopened')?.detail).toContain(bob.id);
    // Nothing reached the agent: its session holds no answer to the confirmation.
    const session = await harness.adk.getSession(
      'payments',
      view.pause.adk.userId,
      view.pause.adk.sessionId,
    );
    expect(JSON.stringify(session.events)).not.toContain('"transferred"');

    // bob may not decide again; carol may, and the tool runs once.
    await click(bob.id, card.ts, ACTION_IDS.approve);
    await click(carol.id, card.ts, ACTION_IDS.approve);
    const answer = await harness.reply(OPS, root.ts, 'Tool transfer_money returned');
    expect(answer.text).toContain('"amount":612');
    const after = await harness.pauseOf(card);
    expect(after.gates[0]?.decision?.by).toBe(carol.id);
    const resumed = await harness.adk.getSession(
      'payments',
      after.pause.adk.userId,
      after.pause.adk.sessionId,
    );
    expect(JSON.stringify(resumed.events).split('"transferred"').length - 1).toBe(1);
  });

  it('webhook mode: an approval that no longer holds at the next delivery attempt is not delivered; the gate waits for a new decision', {
    timeout: 60_000,
  }, async () => {
    await replacePolicy(harness, policy([bob.id, carol.id]));
    const chat = await startConversation(harness.adk, 'payments', 'u-recheck');
    const events = await chat.send('transfer 613');
    const created = await fetch(`http://127.0.0.1:${harness.app.port}/v1/pauses`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        app: 'payments',
        userId: chat.userId,
        sessionId: chat.sessionId,
        events,
        channel: OPS,
        resume: { mode: 'webhook', url: `${receiver.url}payments` },
      }),
    });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };
    const card = await harness.sandbox.waitFor(() =>
      harness.sandbox.messages(OPS).find((m) => JSON.stringify(m.blocks).includes(id)),
    );
    receiver.failNext = 1;
    await click(bob.id, card.ts, ACTION_IDS.approve);
    // The first attempt fails (503); before the next one bob leaves the approvers.
    await vi.waitFor(
      async () => {
        if ((await harness.store.notes.readNotes(id)).delivery?.state !== 'retrying')
          throw new Error('not yet');
      },
      { timeout: 10_000, interval: 50 },
    );
    await replacePolicy(harness, policy([carol.id]));
    const view = await vi.waitFor(
      async () => {
        const now = await harness.store.pauses.getPause(id);
        if (now?.gates[0]?.reopened === undefined) throw new Error('not sent back yet');
        return now;
      },
      { timeout: 15_000, interval: 100 },
    );
    expect(view.gates[0]).toMatchObject({ state: 'pending', reopened: { voter: bob.id } });
    expect(receiver.delivered).not.toContain(id);
    // The card is redrawn after the store step: carol clicks once it offers Approve again.
    await harness.sandbox.waitFor(() => {
      const now = harness.sandbox.message(OPS, card.ts);
      return now && buttons(now).some((b) => b.action_id === ACTION_IDS.approve) && now;
    });
    await click(carol.id, card.ts, ACTION_IDS.approve);
    await vi.waitFor(
      () => {
        if (!receiver.delivered.includes(id)) throw new Error('not delivered yet');
      },
      { timeout: 15_000, interval: 100 },
    );
    expect((await harness.store.pauses.getPause(id))?.gates[0]?.decision?.by).toBe(carol.id);
  });

  it('an approver removed from the approver group between the click and the resume: nothing is sent, the card says why; the group member still in it decides', {
    timeout: 60_000,
  }, async () => {
    await replacePolicy(
      harness,
      `
defaults:
  approvers: [${ONCALL}]
`,
    );
    const root = await harness.runAgent(alice.id, OPS, 'payments transfer 614');
    const card = await harness.card(OPS, root.ts);

    await bobApprovesWhileAdkIsDown(root.ts, card.ts);
    // A workspace admin takes bob out of the on-call group; the app trusts a membership it
    // looked up for GROUP_TRUST_MS, so the Retry comes after that.
    harness.sandbox.setGroupMembers(ONCALL, [carol.id]);
    await new Promise((resolve) => setTimeout(resolve, GROUP_TRUST_MS + 200));
    await aliceRetriesWithAdkBack(card.ts);

    const said = await harness.reply(OPS, root.ts, 'no longer holds');
    expect(cardText(said)).toContain(`<@${bob.id}>`);
    const pending = await harness.sandbox.waitFor(() => {
      const now = cardNow(root.ts, card.ts);
      return (
        now &&
        cardText(now).includes('Sent back for a new decision') &&
        buttons(now).some((b) => b.action_id === ACTION_IDS.approve) &&
        now
      );
    });
    const view = await harness.pauseOf(pending);
    expect(view.gates[0]).toMatchObject({
      state: 'pending',
      votes: [],
      reopened: { voter: bob.id },
    });
    expect(await harness.toolRuns(card, 'transfer_money', 'transferred')).toBe(0);

    await click(carol.id, card.ts, ACTION_IDS.approve);
    const answer = await harness.reply(OPS, root.ts, 'Tool transfer_money returned');
    expect(answer.text).toContain('"amount":614');
    expect((await harness.pauseOf(card)).gates[0]?.decision?.by).toBe(carol.id);
    expect(await harness.toolRuns(card, 'transfer_money', 'transferred')).toBe(1);
  });
});
