import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACTION_IDS } from '../../src/slack/action-ids.js';
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
