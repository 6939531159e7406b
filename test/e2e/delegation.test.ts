import type { SandboxMessage } from '@adk-slack-approvals/slack-sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACTION_IDS } from '../../src/slack/codecs/action-ids.js';
import { DELEGATION_BLOCK_IDS } from '../../src/slack/render/delegation-view.js';
import {
  buttons,
  CHANNELS,
  cardText,
  type Harness,
  PEOPLE,
  startHarness,
} from '../support/app-harness.js';
import { homeOnceItSays as homeOnceItSaysOf, postHomeClick } from '../support/app-home.js';

/**
 * Handing over while away (issue 36) on the real app, the real ADK api_server and real Redis,
 * driven from the sandbox's Home tabs and modals: Bob alone approves transfers; he hands over to
 * Carol, who then decides his card in his name ("Carol for Bob"), cannot give grants in his name
 * nor revoke his, cannot make a loop, and is refused once the hand-over ends; a requester Bob
 * hands over to still cannot approve her own call.
 */
const { alice, bob, carol } = PEOPLE;
const OPS = CHANNELS.ops.id;

const POLICY = `
defaults:
  approvers: [${bob.id}]
rules:
  - name: transfers
    match: { app: payments, tool: transfer_money }
    grants: [session]
`;

let harness: Harness;

beforeAll(async () => {
  harness = await startHarness({ policy: POLICY, sweepIntervalMs: 60_000 });
});
afterAll(async () => {
  await harness?.stop();
});

async function startRun(text: string): Promise<{ root: SandboxMessage; card: SandboxMessage }> {
  const root = await harness.runAgent(alice.id, OPS, text);
  return { root, card: await harness.card(OPS, root.ts) };
}

function homeOnceItSays(user: string, ready: (text: string) => boolean) {
  return homeOnceItSaysOf(harness, user, ready);
}

/** `user` opens the hand-over modal from their Home and submits it; the sandbox's result. */
async function handOver(user: string, delegate: string, hours = 1) {
  harness.sandbox.openAppHome(user);
  const home = await homeOnceItSays(user, (text) => text.includes(ACTION_IDS.homeHandOver));
  const opened = await harness.sandbox.clickButton({
    user,
    viewId: home.id,
    actionId: ACTION_IDS.homeHandOver,
  });
  expect(opened).toMatchObject({ answered: true, status: 200 });
  const modal = await harness.sandbox.waitFor(() => harness.sandbox.views(user)[0]);
  const now = Math.floor(Date.now() / 1000);
  const result = await harness.sandbox.submitView({
    user,
    viewId: modal.id,
    values: {
      [DELEGATION_BLOCK_IDS.delegate]: delegate,
      [DELEGATION_BLOCK_IDS.startsAt]: String(now),
      [DELEGATION_BLOCK_IDS.endsAt]: String(now + hours * 3600),
    },
  });
  return { result, modalId: modal.id };
}

function click(user: string, card: SandboxMessage, actionId: string) {
  return harness.sandbox.clickButton({ user, channel: OPS, messageTs: card.ts, actionId });
}

/** The private reply `user` got last whose text holds `needle`. */
function ephemeralSaying(user: string, needle: string) {
  return harness.sandbox.waitFor(() =>
    harness.sandbox.ephemerals(user).find((e) => JSON.stringify(e).includes(needle)),
  );
}

const carolForBob = `<@${carol.id}> (for <@${bob.id}>)`;

describe('handing over while away', () => {
  let pending: SandboxMessage;

  it('Bob hands over to Carol: his pending card names her for him, she approves it, and the card and the audit name both', async () => {
    const { root, card } = await startRun('payments transfer 310');
    pending = (await startRun('payments transfer 42')).card;
    expect(cardText(card)).toContain(`<@${bob.id}>`);
    expect(cardText(card)).not.toContain(carol.id);

    const { result } = await handOver(bob.id, carol.id);
    expect(result).toMatchObject({ answered: true, status: 200 });
    expect(harness.sandbox.views(bob.id)).toEqual([]);
    const bobsHome = await homeOnceItSays(bob.id, (text) => text.includes('Your approvals go to'));
    expect(JSON.stringify(bobsHome.view)).toContain(`<@${carol.id}>`);

    // Cards already pending are redrawn with the stand-in.
    await harness.messageReading(OPS, card.ts, /\(for <@U0BOB/);
    expect(cardText(harness.sandbox.message(OPS, card.ts) ?? card)).toContain(carolForBob);

    // Carol's Home lists Bob's card, marked as decided for him.
    harness.sandbox.openAppHome(carol.id);
    const { pause } = await harness.pauseOf(card);
    const carolsHome = await homeOnceItSays(carol.id, (text) => text.includes(pause.id));
    expect(JSON.stringify(carolsHome.view)).toContain(`(for <@${bob.id}>)`);

    // A grant is given in a person's own name: not Carol's to give for Bob.
    await click(carol.id, card, ACTION_IDS.grantSession);
    await ephemeralSaying(carol.id, 'a grant for later calls is theirs to give');
    expect((await harness.store.pauses.getPause(pause.id))?.gates[0]?.votes).toEqual([]);

    expect(await click(carol.id, card, ACTION_IDS.approve)).toMatchObject({ status: 200 });
    await harness.reply(OPS, root.ts, 'Tool transfer_money returned');
    const decided = await harness.messageReading(OPS, card.ts, /Agent resumed/);
    expect(cardText(decided)).toContain(`Approved by <@${carol.id}> for <@${bob.id}>`);
    expect(buttons(decided)).toEqual([]);
    expect(await harness.toolRuns(card, 'transfer_money', 'transferred')).toBe(1);

    const trail = await harness.store.audit.readAudit({ pauseId: pause.id });
    const voted = trail.find((entry) => entry.event === 'voted');
    expect(voted).toMatchObject({ actor: carol.id });
    expect(voted?.detail).toContain(`on_behalf_of=${bob.id}`);
    const approved = trail.find((entry) => entry.event === 'approved');
    expect(approved).toMatchObject({ actor: carol.id });
    expect(approved?.line).toContain(`"onBehalfOf":"${bob.id}"`);
  });

  it('a loop is refused in the modal, which stays open with the reason: Carol cannot hand back to Bob', async () => {
    const { result, modalId } = await handOver(carol.id, bob.id);
    expect(result).toMatchObject({ answered: true, status: 200 });
    const modal = harness.sandbox.views(carol.id).find((view) => view.id === modalId);
    expect(modal?.errors[DELEGATION_BLOCK_IDS.delegate]).toContain('loop');
    const toHerself = await harness.sandbox.submitView({
      user: carol.id,
      viewId: modalId,
      values: { [DELEGATION_BLOCK_IDS.delegate]: carol.id },
    });
    expect(toHerself).toMatchObject({ answered: true });
    expect(harness.sandbox.views(carol.id)[0]?.errors[DELEGATION_BLOCK_IDS.delegate]).toContain(
      'yourself',
    );
    await harness.sandbox.closeView({ user: carol.id, viewId: modalId });
  });

  it("Carol does not inherit Bob's grants: she cannot revoke the one he gave, and her Home does not list it", async () => {
    const { root, card } = await startRun('payments transfer 77');
    // Bob keeps his own standing while away: he grants this session.
    await click(bob.id, card, ACTION_IDS.grantSession);
    const given = await harness.reply(OPS, root.ts, 'for this session: later calls');
    const grantId = /gr_[0-9a-f]{12}/.exec(given.text)?.[0];
    if (grantId === undefined) throw new Error('the thread names no grant');

    harness.sandbox.openAppHome(carol.id);
    const carolsHome = await homeOnceItSays(carol.id, (text) => text.includes('Handing over'));
    expect(JSON.stringify(carolsHome.view)).not.toContain(grantId);
    // A Revoke she was never shown, signed as Slack signs it.
    const response = await postHomeClick(harness, carol.id, {
      action_id: ACTION_IDS.homeRevokeGrant,
      value: grantId,
    });
    expect(response.status).toBe(200);
    await homeOnceItSays(carol.id, (text) => text.includes('Only the person who gave this grant'));
    const { pause } = await harness.pauseOf(card);
    const trail = await harness.store.audit.readAudit({ pauseId: pause.id });
    expect(trail.filter((entry) => entry.event === 'grant_revoked')).toEqual([]);
  });

  it("once Bob ends the hand-over, his card names him alone again and Carol's click is refused", async () => {
    const bobsHome = await homeOnceItSays(bob.id, (text) =>
      text.includes(ACTION_IDS.homeEndHandOver),
    );
    const ended = await harness.sandbox.clickButton({
      user: bob.id,
      viewId: bobsHome.id,
      actionId: ACTION_IDS.homeEndHandOver,
    });
    expect(ended).toMatchObject({ answered: true, status: 200 });
    await homeOnceItSays(bob.id, (text) => text.includes(ACTION_IDS.homeHandOver));

    await harness.sandbox.waitFor(() => {
      const now = harness.sandbox.message(OPS, pending.ts);
      return now !== undefined && !cardText(now).includes(carol.id) && now;
    });
    await click(carol.id, pending, ACTION_IDS.approve);
    await ephemeralSaying(carol.id, 'You are not among those who may approve');
    const { pause } = await harness.pauseOf(pending);
    const record = await harness.store.pauses.getPause(pause.id);
    expect(record?.gates[0]?.state).toBe('pending');
    expect(record?.gates[0]?.votes).toEqual([]);
  });

  it('a requester Bob hands over to still cannot approve her own call', async () => {
    const { result } = await handOver(bob.id, alice.id);
    expect(result).toMatchObject({ answered: true, status: 200 });
    const { card } = await startRun('payments transfer 55');
    expect(cardText(card)).toContain(`<@${alice.id}> (for <@${bob.id}>)`);
    await click(alice.id, card, ACTION_IDS.approve);
    await ephemeralSaying(alice.id, 'You started this run');
    const { pause } = await harness.pauseOf(card);
    expect((await harness.store.pauses.getPause(pause.id))?.gates[0]?.votes).toEqual([]);
  });
});
