import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACTION_IDS } from '../../src/slack/codecs/action-ids.js';
import { CHANNELS, type Harness, PEOPLE, startHarness } from '../support/app-harness.js';

const { alice, bob } = PEOPLE;
const OPS = CHANNELS.ops.id;
const POLICY = `
defaults:
  approvers: [${bob.id}]
rules: []
`;

let harness: Harness;

beforeAll(async () => {
  harness = await startHarness({ policy: POLICY, redisProxy: true });
});
afterAll(async () => {
  await harness?.stop();
});

/** The first of Bob's ephemerals saying `needle`, among those after the first `since`. */
function ephemeral(needle: string, since = 0) {
  return harness.sandbox.waitFor(
    () =>
      harness.sandbox
        .ephemerals(bob.id)
        .slice(since)
        .find((message) => message.text.includes(needle)),
    { timeoutMs: 20_000 },
  );
}

describe('when Redis stops answering during a vote', () => {
  it('the approver is told the outcome is unknown, then the truth, and the agent resumes at once', {
    timeout: 60_000,
  }, async () => {
    const proxy = harness.redisProxy;
    if (proxy === undefined) throw new Error('the harness has no Redis proxy');
    const root = await harness.runAgent(alice.id, OPS, 'payments transfer 81');
    const card = await harness.card(OPS, root.ts);

    // Redis runs the vote script but its answer is held past the app's 5 s command timeout.
    proxy.stallAtRequest(`"voter":"${bob.id}"`);
    await harness.sandbox.clickButton({
      user: bob.id,
      channel: OPS,
      messageTs: card.ts,
      actionId: ACTION_IDS.approve,
    });
    await ephemeral('cannot tell yet whether your decision was recorded');
    // The vote was recorded (a second connection, straight to Redis, sees it).
    expect((await harness.pauseOf(card)).gates[0]?.state).toBe('approved');
    expect(harness.sandbox.ephemerals(bob.id).some((m) => m.text.includes('not recorded'))).toBe(
      false,
    );

    proxy.stall(false);
    await ephemeral('your decision was recorded after all (now: approved)');
    const answer = await harness.reply(OPS, root.ts, 'Tool transfer_money returned');
    expect(answer.text).toContain('"amount":81');
  });

  it('a Reject-with-reason submission whose answer from Redis is lost is told the outcome is unknown, then the truth', {
    timeout: 60_000,
  }, async () => {
    const proxy = harness.redisProxy;
    if (proxy === undefined) throw new Error('the harness has no Redis proxy');
    const root = await harness.runAgent(alice.id, OPS, 'payments transfer 82');
    const card = await harness.card(OPS, root.ts);
    await harness.sandbox.clickButton({
      user: bob.id,
      channel: OPS,
      messageTs: card.ts,
      actionId: ACTION_IDS.reject,
    });
    await harness.sandbox.waitFor(() => harness.sandbox.views(bob.id)[0]);
    const since = harness.sandbox.ephemerals(bob.id).length;

    // Redis runs the vote script but its answer is held past the app's 5 s command timeout.
    proxy.stallAtRequest('month-end freeze');
    await harness.sandbox.submitView({ user: bob.id, values: { reason: 'month-end freeze' } });
    await ephemeral('cannot tell yet whether your decision was recorded', since);
    expect((await harness.pauseOf(card)).gates[0]?.state).toBe('rejected');

    proxy.stall(false);
    await ephemeral('your decision was recorded after all (now: rejected)', since);
    const told = harness.sandbox.ephemerals(bob.id).slice(since);
    expect(told.some((m) => m.text.includes('not recorded'))).toBe(false);
  });
});
