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

const { alice, bob, carol, dave } = PEOPLE;
const OPS = CHANNELS.ops.id;
const ONCALL = 'S0ONCALL001'; // the sandbox's on-call group: bob and carol

/**
 * Transfers need bob and carol and remind after 2s; memos are dave's, escalated to on-call after
 * 3s; time off times out after 1s and the agent is told it timed out.
 */
const POLICY = `
defaults:
  approvers: [${dave.id}]
  expiresIn: 1h
rules:
  - match: { tool: transfer_money }
    approvers: [${bob.id}, ${carol.id}]
    quorum: 2
    remindAfter: 2s
  - match: { tool: send_memo }
    escalateAfter: 3s
    escalateTo: [${ONCALL}]
  - match: { tool: request_time_off }
    expiresIn: 1s
    onExpiry: timeout
`;

let harness: Harness;

// Reminders and escalations are sent by the sweep: it runs every 100 ms here.
beforeAll(async () => {
  harness = await startHarness({ policy: POLICY, sweepIntervalMs: 100 });
});
afterAll(async () => {
  await harness?.stop();
});

const dms = (person: { dmId: string }) => harness.sandbox.messages(person.dmId);

/** The reminder and escalation entries the store still holds: none left, none can come. */
async function nudgesLeft(): Promise<string[]> {
  return harness.redis.zrange(`${harness.keyPrefix}nudges`, 0, -1);
}

describe('reminders', () => {
  it('after remindAfter, each approver who has not voted gets one DM with a link to the card; the voter none', async () => {
    const root = await harness.runAgent(alice.id, OPS, 'payments transfer 700');
    const card = await harness.card(OPS, root.ts);
    const before = { bob: dms(bob).length, carol: dms(carol).length, alice: dms(alice).length };
    await harness.sandbox.clickButton({
      user: bob.id,
      channel: OPS,
      messageTs: card.ts,
      actionId: ACTION_IDS.approve,
    });
    await harness.sandbox.waitFor(
      async () => (await harness.pauseOf(card)).gates[0]?.votes.length === 1,
      { timeoutMs: 15_000 },
    );

    const reminder = await harness.sandbox.waitFor(
      () =>
        dms(carol)
          .slice(before.carol)
          .find((m) => m.text.includes('Reminder')),
      { timeoutMs: 15_000 },
    );
    expect(reminder.text).toContain('transfer_money');
    expect(reminder.text).toContain(`<@${alice.id}>`);
    expect(reminder.text).toMatch(/<https?:\/\/[^|>]+\|Open the request>/);
    // The reminder was handled and finished: nothing is left to send, to anyone.
    await harness.sandbox.waitFor(async () => (await nudgesLeft()).length === 0, {
      timeoutMs: 15_000,
    });
    expect(
      dms(carol)
        .slice(before.carol)
        .filter((m) => m.text.includes('Reminder')),
    ).toHaveLength(1);
    expect(dms(bob).slice(before.bob)).toEqual([]);
    expect(dms(alice).slice(before.alice)).toEqual([]);
    expect((await harness.pauseOf(card)).gates[0]?.state).toBe('pending');
  });
});

describe('escalation', () => {
  it('the escalation group cannot approve before escalateAfter, then the card says escalated and it can', async () => {
    const root = await harness.runAgent(alice.id, OPS, 'payments memo: quarterly numbers');
    const card = await harness.card(OPS, root.ts);
    expect(cardText(card)).toContain('Escalates to');

    const refused = await harness.sandbox.clickButton({
      user: bob.id,
      channel: OPS,
      messageTs: card.ts,
      actionId: ACTION_IDS.approve,
    });
    expect(refused.answered).toBe(true);
    await harness.sandbox.waitFor(
      () =>
        harness.sandbox
          .ephemerals(bob.id)
          .find((e) => e.text.includes('You are not among those who may approve this')),
      { timeoutMs: 15_000 },
    );
    expect((await harness.pauseOf(card)).gates[0]?.votes).toEqual([]);

    const escalated = await harness.sandbox.waitFor(
      () => {
        const now = harness.sandbox.message(OPS, card.ts);
        return now !== undefined && cardText(now).includes('Escalated to') && now;
      },
      { timeoutMs: 15_000 },
    );
    expect(cardText(escalated)).toContain(`<!subteam^${ONCALL}>`);
    expect(cardText(escalated)).toContain('after 3s');
    const told = await harness.sandbox.waitFor(
      () => dms(carol).find((m) => m.text.includes('Escalated to you')),
      { timeoutMs: 15_000 },
    );
    expect(told.text).toContain('send_memo');
    // The escalation group finds it under "Waiting for you" on their App Home too.
    const { pause } = await harness.pauseOf(card);
    harness.sandbox.openAppHome(bob.id);
    await harness.sandbox.waitFor(
      () => JSON.stringify(harness.sandbox.home(bob.id)?.view ?? {}).includes(pause.id),
      { timeoutMs: 15_000 },
    );

    await harness.approveUntilResumed(bob.id, OPS, escalated);
    const view = await harness.pauseOf(card);
    expect(view.gates[0]?.state).toBe('approved');
    expect(view.gates[0]?.decision?.by).toBe(bob.id);
  });
});

describe('onExpiry: timeout', () => {
  it('the agent is told the request timed out, not that it was rejected, and the card says expired', async () => {
    const root = await harness.runAgent(alice.id, OPS, 'time_off 3 days off');
    const card = await harness.card(OPS, root.ts);
    expect(cardText(card)).toContain('reported to the agent as timed out');

    const answer = await harness.reply(OPS, root.ts, 'timed_out');
    expect(answer.text).toContain('request_time_off');
    expect(answer.text).not.toContain('"rejected"');
    const told = await harness.reply(OPS, root.ts, 'Noted: Why these tool calls were not approved');
    expect(told.text).toContain('timed out');

    const expired = await harness.sandbox.waitFor(
      () => {
        const now = harness.sandbox.message(OPS, card.ts);
        return now !== undefined && /expired/i.test(cardText(now)) && now;
      },
      { timeoutMs: 15_000 },
    );
    expect(buttons(expired)).toEqual([]);
    const view = await harness.pauseOf(card);
    expect(view.gates[0]?.state).toBe('expired');
    expect(view.gates[0]?.policy.onExpiry).toBe('timeout');
  });
});
