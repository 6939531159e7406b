import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ACTION_IDS } from '../../src/slack/codecs/action-ids.js';
import { buttons, CHANNELS, type Harness, PEOPLE, startHarness } from '../support/app-harness.js';

const { alice, bob } = PEOPLE;
const HUNG = CHANNELS.general.id;
const LIMITED = CHANNELS.payments.id;
const CALM = CHANNELS.ops.id;
const POLICY = `
defaults:
  approvers: [${bob.id}]
rules: []
`;

let harness: Harness;

beforeAll(async () => {
  harness = await startHarness({ policy: POLICY, slackProxy: true });
});
afterAll(async () => {
  await harness?.stop();
});

async function cardIn(channel: string, amount: number) {
  const root = await harness.runAgent(alice.id, channel, `payments transfer ${amount}`);
  const card = await harness.card(channel, root.ts);
  return { channel, root, card };
}

function approve({ channel, card }: { channel: string; card: { ts: string } }) {
  return harness.sandbox.clickButton({
    user: bob.id,
    channel,
    messageTs: card.ts,
    actionId: ACTION_IDS.approve,
  });
}

function stillHasButtons(channel: string, ts: string): boolean {
  const now = harness.sandbox.message(channel, ts);
  return now !== undefined && buttons(now).some((b) => b.action_id === ACTION_IDS.approve);
}

describe('when Slack stalls', () => {
  it('a hung chat.update and a 429 with Retry-After: 30 in one channel delay no resume, anywhere, and modals still open', {
    timeout: 60_000,
  }, async ({ annotate }) => {
    const proxy = harness.slackProxy;
    if (proxy === undefined) throw new Error('the harness has no Slack proxy');
    const hung = await cardIn(HUNG, 11);
    const limited = await cardIn(LIMITED, 22);
    const calm = await cardIn(CALM, 33);
    const forModal = await cardIn(HUNG, 44);

    proxy.hang('chat.update', HUNG);
    proxy.rateLimit('chat.update', LIMITED, 30);

    // The two faulty channels first, so that their card updates are stuck before the calm one.
    // The proxy's counts are not the sandbox's state, whose changes wake sandbox.waitFor: polled.
    const proxyCount = { timeout: 5_000, interval: 20 };
    await approve(hung);
    await vi.waitFor(
      () => expect(proxy.heldNow('chat.update', HUNG)).toBeGreaterThan(0),
      proxyCount,
    );
    await approve(limited);
    await vi.waitFor(
      () => expect(proxy.refused('chat.update', LIMITED)).toBeGreaterThan(0),
      proxyCount,
    );

    const clicked = Date.now();
    await approve(calm);
    await harness.reply(CALM, calm.root.ts, 'Tool transfer_money returned');
    const calmMs = Date.now() - clicked;

    // The cards whose updates hang or are rate-limited still resumed: the answers are in their
    // threads while those cards still show their buttons and the hung update is still held.
    await harness.reply(HUNG, hung.root.ts, 'Tool transfer_money returned');
    await harness.reply(LIMITED, limited.root.ts, 'Tool transfer_money returned');
    expect(stillHasButtons(HUNG, hung.card.ts)).toBe(true);
    expect(stillHasButtons(LIMITED, limited.card.ts)).toBe(true);
    expect(proxy.heldNow('chat.update', HUNG)).toBeGreaterThan(0);

    // A Reject modal opens on a card in the hung channel (a trigger_id lives 3 s).
    const modalClick = await harness.sandbox.clickButton({
      user: bob.id,
      channel: HUNG,
      messageTs: forModal.card.ts,
      actionId: ACTION_IDS.reject,
    });
    expect(modalClick).toMatchObject({ answered: true, status: 200 });
    const modal = await harness.sandbox.waitFor(() => harness.sandbox.views(bob.id)[0]);
    expect(JSON.stringify(modal)).toContain('Reject');

    // Each tool ran once.
    for (const { channel, root } of [hung, limited, calm]) {
      const answers = harness.sandbox
        .replies(channel, root.ts)
        .filter((message) => JSON.stringify(message).includes('Tool transfer_money returned'));
      expect(answers).toHaveLength(1);
    }
    await annotate(`calm card: click → answer in the thread in ${calmMs} ms`);
  });

  it('once the rate limit ends, the rate-limited card is brought up to date', {
    timeout: 60_000,
  }, async () => {
    const proxy = harness.slackProxy;
    if (proxy === undefined) throw new Error('the harness has no Slack proxy');
    proxy.clear();
    proxy.rateLimit('chat.update', CALM, 1);
    const card = await cardIn(CALM, 55);
    await approve(card);
    await harness.reply(CALM, card.root.ts, 'Tool transfer_money returned');
    // The card's update may come after the answer (a busy machine): the limit is lifted only once
    // an update of this card was refused, so the card is brought up to date after the limit ends.
    await vi.waitFor(
      () => expect(proxy.refused('chat.update', CALM, card.card.ts)).toBeGreaterThan(0),
      { timeout: 10_000, interval: 20 },
    );
    expect(stillHasButtons(CALM, card.card.ts)).toBe(true);
    proxy.clear();
    await harness.sandbox.waitFor(() => !stillHasButtons(CALM, card.card.ts), {
      timeoutMs: 20_000,
    });
  });
});
