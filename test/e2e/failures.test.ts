import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ACTION_IDS } from '../../src/slack/codecs/action-ids.js';
import {
  buttons,
  CHANNELS,
  cardText,
  type Harness,
  PEOPLE,
  startHarness,
} from '../support/app-harness.js';

const { alice, bob } = PEOPLE;
const OPS = CHANNELS.ops.id;
const POLICY = `
defaults:
  approvers: [${bob.id}]
rules: []
`;

let harness: Harness;

beforeAll(async () => {
  harness = await startHarness({ policy: POLICY, adkProxy: true });
});
afterEach(() => {
  // A test that failed half-way must not leave the agent out of reach for the next one.
  harness?.adkProxy?.setDown(false);
  harness?.adkProxy?.hideAnswers(false);
});
afterAll(async () => {
  await harness?.stop();
});

function cardNow(threadTs: string, ts: string) {
  return harness.sandbox.replies(OPS, threadTs).find((message) => message.ts === ts);
}

describe('when things fail', () => {
  it('a resume the agent never received is retried, then shown on the card with Retry, which works once the agent is back', {
    timeout: 45_000,
  }, async () => {
    const proxy = harness.adkProxy;
    if (proxy === undefined) throw new Error('the harness has no ADK proxy');
    const root = await harness.runAgent(alice.id, OPS, 'payments transfer 300');
    const card = await harness.card(OPS, root.ts);

    proxy.setDown(true);
    await harness.sandbox.clickButton({
      user: bob.id,
      channel: OPS,
      messageTs: card.ts,
      actionId: ACTION_IDS.approve,
    });
    const failed = await harness.sandbox.waitFor(
      () => {
        const now = cardNow(root.ts, card.ts);
        return now && buttons(now).some((b) => b.action_id === ACTION_IDS.retryResume) && now;
      },
      { timeoutMs: 20_000 },
    );
    expect(cardText(failed)).toMatch(/Approved by/);
    await harness.reply(OPS, root.ts, 'Press *Retry*');
    const view = await harness.pauseOf(card);
    expect(view.pause.resume).toMatchObject({ state: 'failed', attempts: 1 });
    expect(
      harness.logs.filter((line) => line.includes('resume attempt failed; retrying')),
    ).toHaveLength(2);

    proxy.setDown(false);
    await harness.sandbox.clickButton({
      user: bob.id,
      channel: OPS,
      messageTs: card.ts,
      actionId: ACTION_IDS.retryResume,
    });
    const answer = await harness.reply(OPS, root.ts, 'Tool transfer_money returned');
    expect(answer.text).toContain('"amount":300');
    await harness.sandbox.waitFor(() => {
      const now = cardNow(root.ts, card.ts);
      return now && cardText(now).includes('Agent resumed');
    });
  });

  it('a decision the agent stores and then refuses (ADK IntentMismatchError) is shown as refused, with no Retry; nothing ran', {
    timeout: 45_000,
  }, async () => {
    const root = await harness.runAgent(alice.id, OPS, 'time_off swap shift 3');
    const card = await harness.card(OPS, root.ts);
    await harness.sandbox.clickButton({
      user: bob.id,
      channel: OPS,
      messageTs: card.ts,
      actionId: ACTION_IDS.approve,
    });
    // The thread's line (the card's fallback text also says "refused the decision", and the card
    // may be updated first).
    const refused = await harness.reply(OPS, root.ts, 'sending them again cannot help');
    expect(cardText(refused)).toContain('refused the decision');
    expect(cardText(refused)).toContain('confirmation_not_required');
    const final = await harness.sandbox.waitFor(() => {
      const now = cardNow(root.ts, card.ts);
      return now && cardText(now).includes('refused it') && now;
    });
    expect(cardText(final)).not.toContain('Agent resumed');
    expect(buttons(final).map((b) => b.action_id)).not.toContain(ACTION_IDS.retryResume);
    expect((await harness.pauseOf(card)).pause.resume.state).toBe('refused');
    const replies = harness.sandbox.replies(OPS, root.ts).map(cardText);
    expect(replies.filter((text) => text.includes('swapped'))).toEqual([]);
    expect(replies.filter((text) => text.includes('Press *Retry*'))).toEqual([]);
  });

  it('a Retry of a resume that had reached the agent, which did nothing with it, never says "resumed"', {
    timeout: 45_000,
  }, async () => {
    const proxy = harness.adkProxy;
    if (proxy === undefined) throw new Error('the harness has no ADK proxy');
    const root = await harness.runAgent(alice.id, OPS, 'time_off swap shift 4');
    const card = await harness.card(OPS, root.ts);
    // The answer reaches ADK (which stores it, then refuses it), but the app hears only a
    // failure and cannot read the session: it cannot tell, so it offers Retry.
    proxy.hideAnswers(true);
    await harness.sandbox.clickButton({
      user: bob.id,
      channel: OPS,
      messageTs: card.ts,
      actionId: ACTION_IDS.approve,
    });
    await harness.sandbox.waitFor(() => {
      const now = cardNow(root.ts, card.ts);
      return now && buttons(now).some((b) => b.action_id === ACTION_IDS.retryResume);
    });
    expect((await harness.pauseOf(card)).pause.resume.state).toBe('failed');

    proxy.hideAnswers(false);
    const runsBefore = proxy.runs.length;
    await harness.sandbox.clickButton({
      user: bob.id,
      channel: OPS,
      messageTs: card.ts,
      actionId: ACTION_IDS.retryResume,
    });
    await harness.reply(OPS, root.ts, 'did not act on them');
    const final = await harness.sandbox.waitFor(() => {
      const now = cardNow(root.ts, card.ts);
      return now && cardText(now).includes('refused it') && now;
    });
    expect(cardText(final)).not.toContain('Agent resumed');
    expect(buttons(final).map((b) => b.action_id)).not.toContain(ACTION_IDS.retryResume);
    // The session held the answer: the Retry read it and sent nothing.
    expect(proxy.runs.length).toBe(runsBefore);
    expect((await harness.pauseOf(card)).pause.resume.state).toBe('refused');
  });

  it("Slack's rate limits are waited out: the card is still updated", {
    timeout: 45_000,
  }, async () => {
    const root = await harness.runAgent(alice.id, OPS, 'payments transfer 12');
    const card = await harness.card(OPS, root.ts);
    harness.sandbox.rateLimit('chat.update', 2, 1);
    await harness.sandbox.clickButton({
      user: bob.id,
      channel: OPS,
      messageTs: card.ts,
      actionId: ACTION_IDS.approve,
    });
    await harness.sandbox.waitFor(
      () => {
        const now = cardNow(root.ts, card.ts);
        return now && cardText(now).includes('Agent resumed');
      },
      { timeoutMs: 20_000 },
    );
    const updates = harness.sandbox.calls('chat.update');
    expect(updates.filter((call) => call.status === 429).length).toBeGreaterThanOrEqual(2);
  });
});
