import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHANNELS, cardText, type Harness, PEOPLE, startHarness } from '../support/app-harness.js';

const { alice, bob, carol } = PEOPLE;
const OPS = CHANNELS.ops.id;

/**
 * Rules with outcomes, on the real app, the real ADK api_server (the `payments` test agent) and
 * real Redis: small transfers run without a card, large ones need two approvers, invoices are
 * denied with a reason the model hears, and a condition that cannot be evaluated asks a person.
 */
const POLICY = `
defaults:
  approvers: [${bob.id}]
rules:
  - name: small-transfers
    match: { app: payments, tool: transfer_money }
    when: args.amount <= 100
    decision: allow
  - name: large-transfers
    match: { app: payments, tool: transfer_money }
    when: args.amount > 1000
    risk: high
    reason: "large transfers (<b>{{args.amount}}</b>) need two people"
    approvers: [${bob.id}, ${carol.id}]
    quorum: 2
  - name: no-invoices
    match: { app: payments, tool: pay_invoice }
    decision: deny
    reason: "Invoices ({{args.amount}}) go through accounts payable"
  - name: memos-by-amount
    match: { app: payments, tool: send_memo }
    when: args.amount > 10
    decision: allow
`;

let harness: Harness;

beforeAll(async () => {
  harness = await startHarness({ policy: POLICY, sweepIntervalMs: 60_000 });
});
afterAll(async () => {
  await harness?.stop();
});

function repliesContaining(root: { ts: string }, needle: string) {
  return harness.sandbox.replies(OPS, root.ts).filter((m) => JSON.stringify(m).includes(needle));
}

describe('policy outcomes', () => {
  it('allow: a transfer of 50 runs once with no card, and the thread names the rule', async () => {
    const root = await harness.runAgent(alice.id, OPS, 'payments transfer 50');
    const line = await harness.reply(OPS, root.ts, 'auto-approved');
    expect(line.text).toContain('small-transfers');
    expect(line.text).toContain('transfer_money');
    const answer = await harness.reply(OPS, root.ts, 'Tool transfer_money returned');
    expect(answer.text).toContain('"amount":50');
    expect(harness.openCards(OPS, root)).toEqual([]);
    expect(repliesContaining(root, 'Tool transfer_money returned')).toHaveLength(1);
    // The line stands in for the card: nothing ever redrew it as one.
    expect(harness.sandbox.message(OPS, line.ts)?.edited).toBeUndefined();
  });

  it("ask: a transfer of 5,000 gets a card with the rule's name, condition, risk and quorum", async () => {
    const root = await harness.runAgent(alice.id, OPS, 'payments transfer 5000');
    const card = await harness.card(OPS, root.ts);
    const text = cardText(card);
    expect(text).toContain('large-transfers');
    expect(text).toContain('args.amount &gt; 1000');
    expect(text).toContain('high');
    expect(text).toContain('large transfers (&lt;b&gt;5000&lt;/b&gt;) need two people');
    const { gates } = await harness.pauseOf(card);
    expect(gates[0]?.policy).toMatchObject({ rule: 'large-transfers', quorum: 2, risk: 'high' });
    expect(gates[0]?.policy.policyVersion).toMatch(/^[0-9a-f]{64}$/);
    expect(repliesContaining(root, 'auto-approved')).toEqual([]);
  });

  it('deny: an invoice never runs, and the model is told the reason', async () => {
    const root = await harness.runAgent(alice.id, OPS, 'payments pay invoice 320');
    const line = await harness.reply(OPS, root.ts, 'denied');
    expect(line.text).toContain('no-invoices');
    expect(line.text).toContain('Invoices (320) go through accounts payable');
    // Credited to the policy, not to approvers who never saw it.
    const echo = await harness.reply(OPS, root.ts, 'Noted: Why these tool calls were not approved');
    expect(echo.text).toContain('Invoices (320) go through accounts payable');
    expect(echo.text).toContain(
      'pay_invoice: denied by the approval policy (rule no-invoices), not by a person',
    );
    expect(echo.text).not.toContain('human approvers');
    expect(harness.openCards(OPS, root)).toEqual([]);
    expect(repliesContaining(root, '\\"status\\":\\"paid\\"')).toEqual([]);
    expect(repliesContaining(root, 'This tool call is rejected')).toHaveLength(1);
  });

  it('a condition that cannot be evaluated asks a person, and the card says why', async () => {
    // A memo has no `amount`: the allow rule's condition fails, so it must not allow.
    const root = await harness.runAgent(alice.id, OPS, 'payments memo: lunch is on me');
    const card = await harness.card(OPS, root.ts);
    expect(cardText(card)).toContain('memos-by-amount');
    expect(cardText(card)).toContain('could not be evaluated');
    expect(repliesContaining(root, 'auto-approved')).toEqual([]);
    expect(repliesContaining(root, 'Tool send_memo returned')).toEqual([]);
  });
});
