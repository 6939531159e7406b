import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACTION_IDS } from '../../src/slack/codecs/action-ids.js';
import { CHANNELS, cardText, type Harness, PEOPLE, startHarness } from '../support/app-harness.js';

const { alice, bob } = PEOPLE;
const OPS = CHANNELS.ops.id;
const PAYMENTS = CHANNELS.payments.id;

const POLICY = `
defaults:
  approvers: [${bob.id}]
rules:
  - match: { tool: transfer_money }
    channel: ${PAYMENTS}
`;

let harness: Harness;

beforeAll(async () => {
  harness = await startHarness({ policy: POLICY });
});
afterAll(async () => {
  await harness?.stop();
});

describe('a policy that sends cards to another channel', () => {
  it("posts the card there, points to it from the run's thread, and answers in the run's thread", async () => {
    const root = await harness.runAgent(alice.id, OPS, 'payments transfer 64');
    const pointer = await harness.reply(OPS, root.ts, 'Approval needed');
    expect(JSON.stringify(pointer.blocks)).toContain(`<#${PAYMENTS}>`);

    const card = await harness.sandbox.waitFor(() =>
      harness.sandbox
        .messages(PAYMENTS)
        .find((message) => JSON.stringify(message.blocks).includes(ACTION_IDS.approve)),
    );
    expect(card.threadTs).toBeUndefined();
    await harness.sandbox.clickButton({
      user: bob.id,
      channel: PAYMENTS,
      messageTs: card.ts,
      actionId: ACTION_IDS.approve,
    });
    const answer = await harness.reply(OPS, root.ts, 'Tool transfer_money returned');
    expect(answer.text).toContain('"amount":64');
    await harness.sandbox.waitFor(() => {
      const now = harness.sandbox.message(PAYMENTS, card.ts);
      return now && cardText(now).includes('Agent resumed');
    });
  });
});

describe('a run started in a direct message, which no approver can see', () => {
  it('is refused before it runs when the policy names no channel for it, saying why', async () => {
    const result = await harness.sandbox.slashCommand({
      user: alice.id,
      channel: alice.dmId,
      command: '/agent',
      text: 'payments transfer 66',
    });
    expect(result).toMatchObject({ answered: true, status: 200 });
    const refusal = await harness.sandbox.waitFor(() =>
      harness.sandbox
        .ephemerals(alice.id)
        .find((message) => message.text.includes('Approvers cannot see this conversation')),
    );
    expect(refusal.text).toContain('approvalsChannel');
    // Nothing ran: no thread was started in the DM.
    expect(harness.sandbox.messages(alice.dmId)).toEqual([]);
  });
});

describe('a cross-channel card', () => {
  it('carries the prompt and a link to the run; the run thread gets a link to the card and the decision', async () => {
    const root = await harness.runAgent(alice.id, OPS, 'payments transfer 65');
    const pointer = await harness.reply(OPS, root.ts, 'Approval needed');
    expect(JSON.stringify(pointer.blocks)).toMatch(
      /<http:[^|>]+\/archives\/C0PAYMENTS1\/p\d+\|Open the request>/,
    );
    const card = await harness.sandbox.waitFor(() =>
      harness.sandbox
        .messages(PAYMENTS)
        .find((message) => cardText(message).includes('transfer 65')),
    );
    const text = cardText(card);
    expect(text).toContain(`requested by <@${alice.id}> in <#${OPS}>`);
    expect(text).toMatch(/\|open the run>/);
    await harness.sandbox.clickButton({
      user: bob.id,
      channel: PAYMENTS,
      messageTs: card.ts,
      actionId: ACTION_IDS.approve,
    });
    const decided = await harness.reply(OPS, root.ts, 'The approvers decided');
    expect(JSON.stringify(decided.blocks)).toContain(`Approved by <@${bob.id}>`);
  });
});
