import type { SandboxMessage } from '@adk-slack-approvals/slack-sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACTION_IDS } from '../../src/slack/codecs/action-ids.js';
import {
  buttons,
  CHANNELS,
  cardText,
  type Harness,
  PEOPLE,
  startHarness,
} from '../support/app-harness.js';

/**
 * Input requests (`adk_request_input`) through the whole app against the real ADK api_server: a
 * card with an Answer button, a form generated from the request's JSON Schema, answers checked
 * on their field before anything is recorded, and the agent resumed with the answer.
 */

const { alice, bob, carol } = PEOPLE;
const OPS = CHANNELS.ops.id;
// Only Bob may answer input requests; Carol approves tool calls.
const POLICY = `
defaults:
  approvers: [${carol.id}]
rules:
  - match: { kind: input }
    approvers: [${bob.id}]
`;

let harness: Harness;

beforeAll(async () => {
  harness = await startHarness({ policy: POLICY });
});
afterAll(async () => {
  await harness?.stop();
});

async function inputCard(root: SandboxMessage): Promise<SandboxMessage> {
  return harness.reply(OPS, root.ts, ACTION_IDS.answer);
}

async function openForm(user: string, card: SandboxMessage) {
  await harness.sandbox.clickButton({
    user,
    channel: OPS,
    messageTs: card.ts,
    actionId: ACTION_IDS.answer,
  });
  return harness.sandbox.waitFor(() => harness.sandbox.views(user)[0]);
}

/** The modal's input blocks: block id, label and element type. */
function inputs(view: unknown): { blockId: string; label: string; type: string }[] {
  const text = JSON.stringify(view);
  const parsed: unknown = JSON.parse(text);
  const blocks =
    typeof parsed === 'object' &&
    parsed !== null &&
    'blocks' in parsed &&
    Array.isArray(parsed.blocks)
      ? parsed.blocks
      : [];
  return blocks.flatMap(
    (block: {
      type?: string;
      block_id?: string;
      label?: { text?: string };
      element?: { type?: string };
    }) =>
      block.type === 'input'
        ? [
            {
              blockId: String(block.block_id),
              label: String(block.label?.text),
              type: String(block.element?.type),
            },
          ]
        : [],
  );
}

describe('input requests, end to end', () => {
  it("a requestInputTool agent's question is a form card; a value against the schema is refused on its field, and the agent receives a valid answer", async () => {
    const root = await harness.runAgent(alice.id, OPS, 'ask_input charge laptops');
    const card = await inputCard(root);
    expect(cardText(card)).toContain('Which cost center should be charged?');
    expect(cardText(card)).toContain('*Input needed*');
    expect(cardText(card)).toContain('Who may answer:');
    expect(buttons(card).map((button) => button.action_id)).toEqual([
      ACTION_IDS.withdraw,
      ACTION_IDS.answer,
    ]);

    // Who may answer comes from the policy's `kind: input` rule.
    await harness.sandbox.clickButton({
      user: carol.id,
      channel: OPS,
      messageTs: card.ts,
      actionId: ACTION_IDS.answer,
    });
    await harness.sandbox.waitFor(() =>
      harness.sandbox.ephemerals(carol.id).find((message) => message.text.includes('may answer')),
    );

    const modal = await openForm(bob.id, card);
    const fields = inputs(modal.view);
    expect(fields.map(({ label, type }) => [label, type])).toEqual([
      ['Cost center', 'plain_text_input'],
      ['amount', 'number_input'],
    ]);
    const [costCenter, amount] = fields.map((field) => field.blockId);
    if (costCenter === undefined || amount === undefined) throw new Error('expected two fields');

    const invalid = await harness.sandbox.submitView({
      user: bob.id,
      values: { [costCenter]: 'marketing', [amount]: '250' },
    });
    expect(invalid).toMatchObject({ answered: true, status: 200 });
    expect(harness.sandbox.views(bob.id)[0]?.errors[costCenter]).toContain('pattern');
    expect((await harness.pauseOf(card)).gates[0]?.state).toBe('pending');

    await harness.sandbox.submitView({
      user: bob.id,
      values: { [costCenter]: 'CC-1234', [amount]: '250' },
    });
    const answer = await harness.reply(OPS, root.ts, 'Charging to CC-1234 (250)');
    expect(answer.text).toContain('CC-1234');
    const view = await harness.pauseOf(card);
    expect(view.gates[0]).toMatchObject({ kind: 'input', state: 'approved' });
  });

  it('a Workflow RequestInput node gets a form from its schema; the next node receives the answer', async () => {
    const root = await harness.runAgent(alice.id, OPS, 'budget_flow start');
    const card = await inputCard(root);
    expect(cardText(card)).toContain('What budget should I approve?');
    expect(cardText(card)).toContain('USD');

    const modal = await openForm(bob.id, card);
    const fields = inputs(modal.view);
    expect(fields.map(({ label, type }) => [label, type])).toEqual([
      ['amount', 'number_input'],
      ['priority', 'static_select'],
    ]);
    const [amount, priority] = fields.map((field) => field.blockId);
    if (amount === undefined || priority === undefined) throw new Error('expected two fields');

    // 9000 is over the schema's maximum, which the form gives Slack's number input as
    // max_value: Slack's client refuses it on the field, and nothing reaches the app.
    const invalid = await harness.sandbox.submitView({
      user: bob.id,
      values: { [amount]: '9000', [priority]: '2' },
    });
    expect(invalid.answered).toBe(false);
    expect(harness.sandbox.views(bob.id)[0]?.errors[amount]).toBeDefined();
    expect((await harness.pauseOf(card)).gates[0]?.state).toBe('pending');

    await harness.sandbox.submitView({
      user: bob.id,
      values: { [amount]: '1200', [priority]: '2' },
    });
    const answer = await harness.reply(OPS, root.ts, 'Budget approved: 1200 USD, urgent');
    expect(answer.text).toContain('urgent');
  });
});
