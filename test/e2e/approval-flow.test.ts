import { createHmac } from 'node:crypto';
import type { SandboxMessage } from '@adk-slack-approvals/slack-sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLAIM_RESUME } from '../../src/approvals/store/scripts/claim-resume.lua.js';
import { VOTE } from '../../src/approvals/store/scripts/vote.lua.js';
import { ACTION_IDS } from '../../src/slack/codecs/action-ids.js';
import { whileScriptsRun } from '../approvals/store/script-calls.js';
import {
  buttons,
  CHANNELS,
  cardText,
  type Harness,
  PEOPLE,
  startHarness,
} from '../support/app-harness.js';

const { alice, bob, carol, dave } = PEOPLE;
const OPS = CHANNELS.ops.id;

/**
 * Alice runs agents; Bob and Carol approve. Invoices need both of them; time off goes to the
 * on-call group, with a reason to reject.
 */
const POLICY = `
defaults:
  approvers: [${alice.id}, ${bob.id}, ${carol.id}]
rules:
  - match: { tool: pay_invoice }
    approvers: [${bob.id}, ${carol.id}]
    quorum: 2
  - match: { app: time_off }
    approvers: [S0ONCALL001]
    reasonRequired: true
`;

let harness: Harness;

beforeAll(async () => {
  harness = await startHarness({ policy: POLICY });
});
afterAll(async () => {
  await harness?.stop();
});

/** Runs the agent as Alice in #ops and waits for the card. */
async function startRun(text: string): Promise<{ root: SandboxMessage; card: SandboxMessage }> {
  const root = await harness.runAgent(alice.id, OPS, text);
  const card = await harness.card(OPS, root.ts);
  return { root, card };
}

function click(user: string, card: SandboxMessage, actionId: string, value?: string) {
  return harness.sandbox.clickButton({
    user,
    channel: OPS,
    messageTs: card.ts,
    actionId,
    ...(value === undefined ? {} : { value }),
  });
}

/** The card as it is now in the sandbox (cards are updated in place). */
function current(card: SandboxMessage): SandboxMessage {
  const now = harness.sandbox.replies(OPS, card.threadTs ?? card.ts).find((m) => m.ts === card.ts);
  if (now === undefined) throw new Error('the card disappeared');
  return now;
}

function waitForCard(card: SandboxMessage, needle: string | RegExp): Promise<SandboxMessage> {
  return harness.sandbox.waitFor(
    () => {
      const now = current(card);
      const text = cardText(now);
      return (typeof needle === 'string' ? text.includes(needle) : needle.test(text)) && now;
    },
    { timeoutMs: 15_000 },
  );
}

/** The ephemeral messages a person got in #ops, newest last. */
function ephemeralTexts(user: string): string[] {
  return harness.sandbox.ephemerals(user).map((message) => message.text);
}

describe('approvals in Slack, end to end', () => {
  it("an approver's click runs the tool once, the answer lands in the thread and the card shows who approved", async () => {
    const { root, card } = await startRun('payments transfer 250');
    expect(cardText(card)).toContain('transfer_money');
    expect(buttons(card).map((button) => button.action_id)).toEqual([
      ACTION_IDS.withdraw,
      ACTION_IDS.approve,
      ACTION_IDS.reject,
    ]);

    expect(await click(bob.id, card, ACTION_IDS.approve)).toMatchObject({ status: 200 });
    const answer = await harness.reply(OPS, root.ts, 'Tool transfer_money returned');
    expect(answer.text).toContain('"amount":250');

    const decided = await waitForCard(card, 'Agent resumed');
    expect(cardText(decided)).toContain(`<@${bob.id}>`);
    expect(buttons(decided)).toEqual([]);
    expect(await harness.toolRuns(card, 'transfer_money', 'transferred')).toBe(1);
  });

  it('the click that decides the pause claims its resume in the vote’s own store step', async () => {
    const { root, card } = await startRun('payments transfer 251');
    const scripts = new Set<string>();
    const answer = await whileScriptsRun(
      (sha) => scripts.add(sha),
      async () => {
        expect(await click(bob.id, card, ACTION_IDS.approve)).toMatchObject({ status: 200 });
        return harness.reply(OPS, root.ts, 'Tool transfer_money returned');
      },
    );
    expect(answer.text).toContain('"amount":251');
    expect(scripts.has(VOTE.lua.sha)).toBe(true);
    expect(scripts.has(CLAIM_RESUME.lua.sha)).toBe(false);
    const view = await harness.pauseOf(card);
    await expect
      .poll(async () => (await harness.pauseOf(card)).pause.resume, { timeout: 10_000 })
      .toMatchObject({ state: 'resumed', attempts: 1 });
    // The claim's line is the vote's: written at the vote's clock, right after its decision.
    const trail = await harness.store.audit.readAudit({ pauseId: view.pause.id });
    const approved = trail.findIndex((entry) => entry.event === 'approved');
    expect(trail[approved + 1]).toMatchObject({ event: 'resume_claimed', at: trail[approved]?.at });
  });

  it('a reject with a reason reaches the model, and the tool does not run', async () => {
    const { root, card } = await startRun('payments transfer 75');
    await click(bob.id, card, ACTION_IDS.reject);
    const modal = await harness.sandbox.waitFor(() => harness.sandbox.views(bob.id)[0]);
    expect(JSON.stringify(modal.view)).toContain('Reject');

    const submitted = await harness.sandbox.submitView({
      user: bob.id,
      values: { reason: 'Savings are frozen this week' },
    });
    expect(submitted).toMatchObject({ answered: true, status: 200 });
    await harness.reply(OPS, root.ts, 'This tool call is rejected');
    const echo = await harness.reply(OPS, root.ts, 'Noted: Feedback from the human approvers');
    expect(echo.text).toContain('Savings are frozen this week');

    const decided = await waitForCard(card, 'Savings are frozen this week');
    expect(buttons(decided)).toEqual([]);
    expect(await harness.toolRuns(card, 'transfer_money', 'transferred')).toBe(0);
  });

  it('edit & approve sends the edited payload to the tool; input Slack would refuse never reaches it', async () => {
    const root = await harness.runAgent(alice.id, OPS, 'time_off 4 days off');
    const card = await harness.card(OPS, root.ts);
    expect(buttons(card).map((button) => button.action_id)).toContain(ACTION_IDS.edit);

    await click(carol.id, card, ACTION_IDS.edit);
    const modal = await harness.sandbox.waitFor(() => harness.sandbox.views(carol.id)[0]);
    const [days] = inputBlockIds(modal.view);
    if (days === undefined) throw new Error('the edit modal has no input');

    // A whole-number field: Slack's own client refuses 2.5 and the modal stays open.
    const refused = await harness.sandbox.submitView({ user: carol.id, values: { [days]: '2.5' } });
    expect(refused.answered).toBe(false);
    expect(harness.sandbox.views(carol.id)[0]?.errors[days]).toBeDefined();

    await harness.sandbox.submitView({ user: carol.id, values: { [days]: '2' } });
    const answer = await harness.reply(OPS, root.ts, 'Tool request_time_off returned');
    expect(answer.text).toContain('"approved_days":2');
    expect(answer.text).toContain('"requested_days":4');
  });

  it("a payload the app finds invalid is refused in the modal with the field's error, and nothing is decided", async () => {
    const root = await harness.runAgent(alice.id, OPS, 'time_off leave plan 5');
    const card = await harness.card(OPS, root.ts);
    await click(bob.id, card, ACTION_IDS.edit);
    const modal = await harness.sandbox.waitFor(() => harness.sandbox.views(bob.id)[0]);
    const [days, handover] = inputBlockIds(modal.view);
    if (days === undefined || handover === undefined) throw new Error('expected two inputs');

    const invalid = await harness.sandbox.submitView({
      user: bob.id,
      values: { [days]: '3', [handover]: '{"to": 7, "tasks": 3}' },
    });
    expect(invalid).toMatchObject({ answered: true, status: 200 });
    expect(invalid.answered && String(invalid.body)).toContain('"response_action":"errors"');
    expect(harness.sandbox.views(bob.id)[0]?.errors[handover]).toMatch(/to/);
    expect((await harness.pauseOf(card)).gates[0]?.state).toBe('pending');

    await harness.sandbox.submitView({
      user: bob.id,
      values: { [days]: '3', [handover]: '{"to": "Carol", "tasks": 1}' },
    });
    const answer = await harness.reply(OPS, root.ts, 'Tool plan_leave returned');
    expect(answer.text).toContain('"approved_days":3');
    expect(answer.text).toContain('"to":"Carol"');
  });

  it('a reject submitted after someone else approved closes the modal and says who decided', async () => {
    const { card } = await startRun('payments transfer 33');
    await click(bob.id, card, ACTION_IDS.reject);
    await harness.sandbox.waitFor(() => harness.sandbox.views(bob.id)[0]);
    await click(carol.id, card, ACTION_IDS.approve);
    await waitForCard(card, /Approved by/);

    const submitted = await harness.sandbox.submitView({ user: bob.id, values: { reason: 'no' } });
    expect(submitted).toMatchObject({ answered: true, status: 200 });
    expect(harness.sandbox.views(bob.id)).toEqual([]);
    const told = await harness.sandbox.waitFor(() =>
      ephemeralTexts(bob.id).find((text) => text.includes('already approved')),
    );
    expect(told).toContain(`<@${carol.id}>`);
    expect((await harness.pauseOf(card)).gates[0]?.state).toBe('approved');
  });

  it('two gates in one pause are decided separately and resumed in one message', async () => {
    const { root, card } = await startRun('payments transfer 100 and memo: quarterly report');
    const approvals = buttons(card).filter((button) => button.action_id === ACTION_IDS.approve);
    expect(approvals).toHaveLength(2);

    await click(bob.id, card, ACTION_IDS.approve, approvals[0]?.value);
    await waitForCard(card, /Approved by/);
    expect(harness.sandbox.replies(OPS, root.ts).some((m) => m.text.includes('Tool '))).toBe(false);

    await click(carol.id, card, ACTION_IDS.approve, approvals[1]?.value);
    const answer = await harness.reply(OPS, root.ts, 'Tool send_memo returned');
    expect(answer.text).toContain('Tool transfer_money returned');
  });

  it('Approve all decides every gate of the card with one click', async () => {
    const { root, card } = await startRun('payments transfer 5 and memo: all at once');
    expect(buttons(card).map((button) => button.action_id)).toContain(ACTION_IDS.approveAll);
    await click(carol.id, card, ACTION_IDS.approveAll);
    const answer = await harness.reply(OPS, root.ts, 'Tool send_memo returned');
    expect(answer.text).toContain('Tool transfer_money returned');
    const view = await harness.pauseOf(card);
    expect(view.gates.map((gate) => [gate.state, gate.decision?.by])).toEqual([
      ['approved', carol.id],
      ['approved', carol.id],
    ]);
  });

  it('Reject all asks one reason and refuses every gate with it', async () => {
    const { root, card } = await startRun('payments transfer 6 and memo: not today');
    await click(bob.id, card, ACTION_IDS.rejectAll);
    await harness.sandbox.waitFor(() => harness.sandbox.views(bob.id)[0]);
    await harness.sandbox.submitView({ user: bob.id, values: { reason: 'month-end freeze' } });
    const told = await harness.reply(OPS, root.ts, 'Noted: Feedback from the human approvers');
    expect(told.text).toContain('transfer_money: month-end freeze');
    expect(told.text).toContain('send_memo: month-end freeze');
    const view = await harness.pauseOf(card);
    expect(view.gates.map((gate) => gate.state)).toEqual(['rejected', 'rejected']);
  });

  it('a quorum of two needs two different approvers', async () => {
    const { root, card } = await startRun('payments pay invoice 900');
    await click(bob.id, card, ACTION_IDS.approve);
    await waitForCard(card, '1 of 2');
    await click(bob.id, card, ACTION_IDS.approve);
    await harness.sandbox.waitFor(() =>
      ephemeralTexts(bob.id).find((text) => text.includes('already voted')),
    );
    expect(harness.sandbox.replies(OPS, root.ts).some((m) => m.text.includes('Tool '))).toBe(false);

    await click(carol.id, card, ACTION_IDS.approve);
    const answer = await harness.reply(OPS, root.ts, 'Tool pay_invoice returned');
    expect(answer.text).toContain('"status":"paid"');
  });

  it('the requester cannot approve their own run, and an outsider is told who may', async () => {
    const { card } = await startRun('payments transfer 40');
    await click(alice.id, card, ACTION_IDS.approve);
    await harness.sandbox.waitFor(() =>
      ephemeralTexts(alice.id).find((text) => text.includes('approve or reject it yourself')),
    );
    await click(dave.id, card, ACTION_IDS.approve);
    const refusal = await harness.sandbox.waitFor(() =>
      ephemeralTexts(dave.id).find((text) => text.includes('not among those who may approve')),
    );
    expect(refusal).toContain(`<@${bob.id}>`);

    const view = await harness.pauseOf(card);
    expect(view.gates[0]?.state).toBe('pending');
    expect(view.gates[0]?.votes).toEqual([]);
    expect(buttons(current(card)).length).toBeGreaterThan(0);
  });

  it('twenty clicks at once run the tool once', async () => {
    const { root, card } = await startRun('payments transfer 20');
    const clicks = Array.from({ length: 20 }, (_, i) =>
      click(i % 2 === 0 ? bob.id : carol.id, card, ACTION_IDS.approve),
    );
    const results = await Promise.all(clicks);
    expect(results.every((result) => result.answered && result.status === 200)).toBe(true);
    await harness.reply(OPS, root.ts, 'Tool transfer_money returned');
    await waitForCard(card, 'Agent resumed');
    expect(await harness.toolRuns(card, 'transfer_money', 'transferred')).toBe(1);
    const view = await harness.pauseOf(card);
    expect(view.pause.resume.attempts).toBe(1);
  });

  it('arguments full of mrkdwn control sequences render inert on the card', async () => {
    const hostile =
      '<!channel> <@U0BOB000001> <https://evil.example|https://bank.example> *bold* &amp;';
    const { card } = await startRun(`payments memo: ${hostile}`);
    const text = cardText(card);
    expect(text).toContain('&lt;!channel&gt;');
    expect(text).toContain('&lt;https://evil.example|https://bank.example&gt;');
    expect(text).not.toContain('<!channel>');
    expect(text).not.toContain('<https://evil.example');
    expect(card.text).not.toContain('<!channel>');
  });

  it('a request with a bad signature is refused with 401 and changes nothing', async () => {
    const body = new URLSearchParams({
      command: '/agent',
      text: 'payments transfer 1',
      user_id: alice.id,
      channel_id: OPS,
    }).toString();
    const timestamp = String(Math.floor(Date.now() / 1000));
    const signature = `v0=${createHmac('sha256', 'not-the-secret').update(`v0:${timestamp}:${body}`).digest('hex')}`;
    const before = harness.sandbox.messages(OPS).length;
    const response = await fetch(`http://127.0.0.1:${harness.app.port}/slack/events`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'x-slack-request-timestamp': timestamp,
        'x-slack-signature': signature,
      },
      body,
    });
    expect(response.status).toBe(401);
    expect(harness.sandbox.messages(OPS)).toHaveLength(before);
  });
});

/** The block ids of a modal's input blocks, in order. */
function inputBlockIds(view: unknown): string[] {
  const blocks =
    typeof view === 'object' && view !== null && 'blocks' in view && Array.isArray(view.blocks)
      ? view.blocks
      : [];
  return blocks.flatMap((block: unknown) =>
    typeof block === 'object' &&
    block !== null &&
    'type' in block &&
    block.type === 'input' &&
    'block_id' in block &&
    typeof block.block_id === 'string'
      ? [block.block_id]
      : [],
  );
}
