import { WebClient } from '@slack/web-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pauseIdFor } from '../../src/approvals/records.js';
import { ACTION_IDS } from '../../src/slack/codecs/action-ids.js';
import { policy } from '../approvals/store/fixtures.js';
import { pauseOf, startConversation } from '../support/adk-conversation.js';
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
  harness = await startHarness({ policy: POLICY });
});
afterAll(async () => {
  await harness?.stop();
});

/**
 * The dead replica: it ran the agent to its pause and recorded it, long enough ago that no live
 * replica can still be posting the card, and died before saving a card's ts.
 */
async function recordedByDeadReplica(amount: number) {
  const conversation = await startConversation(harness.adk, 'payments', alice.id);
  const gates = pauseOf(await conversation.send(`transfer ${amount}`));
  const adk = {
    appName: conversation.appName,
    userId: conversation.userId,
    sessionId: conversation.sessionId,
  };
  const root = harness.sandbox.postAsPerson({
    user: alice.id,
    channel: OPS,
    text: `/agent payments transfer ${amount}`,
  });
  const pauseId = pauseIdFor('slack', adk, gates);
  await harness.store.pauses.createPause({
    id: pauseId,
    adk,
    requester: alice.id,
    card: { channelId: OPS, threadTs: root.ts },
    gates: gates.map((gate) => ({
      ...gate,
      policy: { ...policy(), approvers: [{ kind: 'user', id: bob.id }] },
    })),
    now: Date.now() - 5 * 60_000,
  });
  return { pauseId, root };
}

describe('a pause recorded by a replica that died before posting its card', () => {
  it('gets its card posted by the sweeper, and can then be approved', {
    timeout: 45_000,
  }, async () => {
    const { pauseId, root } = await recordedByDeadReplica(93);

    const card = await harness.card(OPS, root.ts);
    await expect
      .poll(async () => (await harness.store.pauses.getPause(pauseId))?.pause.card.ts)
      .toBe(card.ts);
    expect(harness.logs.some((line) => line.includes('recorded without one'))).toBe(true);

    await harness.sandbox.clickButton({
      user: bob.id,
      channel: OPS,
      messageTs: card.ts,
      actionId: ACTION_IDS.approve,
    });
    const answer = await harness.reply(OPS, root.ts, 'Tool transfer_money returned');
    expect(answer.text).toContain('"amount":93');
  });

  it('whose card Slack had posted (the replica died before saving its ts): the sweeper finds that card and posts no second one', {
    timeout: 45_000,
  }, async () => {
    const { pauseId, root } = await recordedByDeadReplica(94);
    // What the dead replica got Slack to post: the card, with the pause's metadata.
    const earlier = await new WebClient(harness.sandbox.env().SLACK_BOT_TOKEN, {
      slackApiUrl: harness.sandbox.apiUrl,
    }).chat.postMessage({
      channel: OPS,
      thread_ts: root.ts,
      text: 'Approval needed: transfer_money',
      metadata: {
        event_type: 'adk_approvals_pause',
        event_payload: { pause_id: pauseId, message: 'card' },
      },
    });

    await expect
      .poll(async () => (await harness.store.pauses.getPause(pauseId))?.pause.card.ts, {
        timeout: 15_000,
      })
      .toBe(earlier.ts);
    // Refreshed in place; never a second card in the thread.
    await harness.sandbox.waitFor(() =>
      JSON.stringify(harness.sandbox.message(OPS, String(earlier.ts))?.blocks).includes(
        ACTION_IDS.approve,
      ),
    );
    const cards = harness.sandbox
      .replies(OPS, root.ts)
      .filter((message) => message.botId !== undefined);
    expect(cards.map((message) => message.ts)).toEqual([earlier.ts]);
  });
});
