import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACTION_IDS } from '../../src/slack/action-ids.js';
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

function ephemeral(needle: string) {
  return harness.sandbox.waitFor(
    () => harness.sandbox.ephemerals(bob.id).find((message) => message.text.includes(needle)),
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
});
