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

const { alice, bob, carol } = PEOPLE;
const OPS = CHANNELS.ops.id;

/** Alice runs agents; Bob approves; Carol is a policy admin who may withdraw anyone's request. */
const POLICY = `
admins: [${carol.id}]
defaults:
  approvers: [${bob.id}]
`;

let harness: Harness;

beforeAll(async () => {
  // A click's resume is followed here; the sweeper must not take it over (see the harness).
  harness = await startHarness({ policy: POLICY, sweepIntervalMs: 60_000 });
});
afterAll(async () => {
  await harness?.stop();
});

async function startRun(text: string): Promise<{ root: SandboxMessage; card: SandboxMessage }> {
  const root = await harness.runAgent(alice.id, OPS, text);
  const card = await harness.card(OPS, root.ts);
  return { root, card };
}

function click(user: string, card: SandboxMessage, actionId: string) {
  return harness.sandbox.clickButton({ user, channel: OPS, messageTs: card.ts, actionId });
}

function current(card: SandboxMessage): SandboxMessage {
  const now = harness.sandbox.replies(OPS, card.threadTs ?? card.ts).find((m) => m.ts === card.ts);
  if (now === undefined) throw new Error('the card disappeared');
  return now;
}

function waitForCard(card: SandboxMessage, needle: string): Promise<SandboxMessage> {
  return harness.sandbox.waitFor(() => cardText(current(card)).includes(needle) && current(card), {
    timeoutMs: 15_000,
  });
}

function waitForEphemeral(user: string, needle: string): Promise<string> {
  return harness.sandbox.waitFor(
    () => harness.sandbox.ephemerals(user).find((message) => message.text.includes(needle))?.text,
    { timeoutMs: 15_000 },
  );
}

/** The `adk_request_confirmation` answers the card's ADK session received. */
async function confirmationAnswers(card: SandboxMessage): Promise<unknown[]> {
  const { pause } = await harness.pauseOf(card);
  const { appName, userId, sessionId } = pause.adk;
  const session = await harness.adk.getSession(appName, userId, sessionId);
  return session.events.flatMap((event) =>
    (event.content?.parts ?? []).flatMap((part) =>
      part.functionResponse?.name === 'adk_request_confirmation'
        ? [part.functionResponse.response]
        : [],
    ),
  );
}

describe('withdraw', () => {
  it("the requester's Reject is still refused as self-approval, and points to Withdraw", async () => {
    const { card } = await startRun('payments transfer 31');
    expect(buttons(card).map((button) => button.action_id)).toContain(ACTION_IDS.withdraw);
    await click(alice.id, card, ACTION_IDS.reject);
    const refusal = await waitForEphemeral(alice.id, 'approve or reject it yourself');
    expect(refusal).toContain('Withdraw');
    await click(alice.id, card, ACTION_IDS.withdraw);
    await waitForCard(card, 'Withdrawn by');
  });

  it('a withdrawn request: the card and thread say who withdrew it, the tool never runs, and the agent is told it was withdrawn', async () => {
    const { root, card } = await startRun('payments transfer 32');
    expect(await click(alice.id, card, ACTION_IDS.withdraw)).toMatchObject({ status: 200 });

    const withdrawn = await waitForCard(card, `Withdrawn by <@${alice.id}>`);
    expect(buttons(withdrawn).map((button) => button.action_id)).not.toContain(ACTION_IDS.approve);
    await harness.reply(OPS, root.ts, `<@${alice.id}> withdrew the request`);
    // ADK shows the model only "rejected"; the follow-up message says it was withdrawn, and not
    // as feedback from approvers, who decided nothing.
    const told = await harness.reply(OPS, root.ts, 'Noted: Why these tool calls were not approved');
    expect(told.text).toContain('the person who asked for it withdrew the request');

    await waitForCard(card, 'Agent told');
    expect(await confirmationAnswers(card)).toEqual([
      { confirmed: false, payload: { withdrawn: true, withdrawnBy: alice.id } },
    ]);
    expect(await harness.toolRuns(card, 'transfer_money', 'transferred')).toBe(0);
    const { gates } = await harness.pauseOf(card);
    expect(gates.map((gate) => gate.state)).toEqual(['withdrawn']);
  });

  it("someone else's withdraw is refused and changes nothing; a policy admin's is allowed", async () => {
    const { card } = await startRun('payments transfer 33');
    await click(bob.id, card, ACTION_IDS.withdraw);
    const refusal = await waitForEphemeral(bob.id, 'can withdraw it');
    expect(refusal).toContain(`Only <@${alice.id}>, who asked for this, or a policy admin`);
    expect((await harness.pauseOf(card)).gates.map((gate) => gate.state)).toEqual(['pending']);

    await click(carol.id, card, ACTION_IDS.withdraw);
    await waitForCard(card, `Withdrawn by <@${carol.id}>`);
  });

  it('an Edit & approve submitted after the withdraw is refused as withdrawn by the requester', async () => {
    const { card } = await startRun('time_off leave plan 3');
    await click(bob.id, card, ACTION_IDS.edit);
    await harness.sandbox.waitFor(() => harness.sandbox.views(bob.id)[0]);
    await click(alice.id, card, ACTION_IDS.withdraw);
    await waitForCard(card, `Withdrawn by <@${alice.id}>`);

    const submitted = await harness.sandbox.submitView({ user: bob.id });
    expect(submitted).toMatchObject({ answered: true, status: 200 });
    const late = await waitForEphemeral(bob.id, 'withdrawn');
    expect(late).toContain(`This was withdrawn by <@${alice.id}>`);
    await waitForCard(card, 'Agent told');
    const { gates } = await harness.pauseOf(card);
    expect(gates.map((gate) => gate.state)).toEqual(['withdrawn']);
    expect(await confirmationAnswers(card)).toEqual([
      {
        confirmed: false,
        payload: expect.objectContaining({ withdrawn: true, withdrawnBy: alice.id }),
      },
    ]);
  });

  it('a withdrawn question (an input request) is cancelled: ADK has no "no" to it, so the run stops', async () => {
    const root = await harness.runAgent(alice.id, OPS, 'ask_input charge laptops');
    const card = await harness.sandbox.waitFor(
      () =>
        harness.sandbox
          .replies(OPS, root.ts)
          .find((message) => buttons(message).some((b) => b.action_id === ACTION_IDS.answer)),
      { timeoutMs: 15_000 },
    );
    await click(alice.id, card, ACTION_IDS.withdraw);
    await waitForCard(card, `Withdrawn by <@${alice.id}>`);
    await harness.reply(OPS, root.ts, 'the run stops here');
    expect((await harness.pauseOf(card)).pause.resume.state).toBe('abandoned');
  });
});
