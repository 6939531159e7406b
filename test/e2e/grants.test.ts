import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACTION_IDS } from '../../src/slack/codecs/action-ids.js';
import {
  buttons,
  CHANNELS,
  cardText,
  type Harness,
  PEOPLE,
  replacePolicy,
  startHarness,
} from '../support/app-harness.js';

/**
 * Scoped grants (issue 19) on the real app, the real ADK api_server (the `payments` agent) and
 * real Redis: Bob approves a transfer "for this session"; Alice's next transfer in the same
 * thread (the same ADK session) runs with no card and the thread names the grant; a transfer the
 * deny rule matches is denied all the same; a run of its own (another session) gets a card; and
 * once Bob revokes the grant on his App Home, the next transfer asks again.
 */
const { alice, bob, carol } = PEOPLE;
const OPS = CHANNELS.ops.id;

const policy = (approvers: readonly string[]) => `
defaults:
  approvers: [${approvers.join(', ')}]
rules:
  - name: huge-transfers
    match: { app: payments, tool: transfer_money }
    when: args.amount > 10000
    decision: deny
    reason: "Transfers over 10,000 go through treasury"
  - name: transfers
    match: { app: payments, tool: transfer_money }
    grants: [session, 1h, exactArgs]
  - name: memos
    match: { app: payments, tool: send_memo }
    undoWindow: 5s
    grants: [session]
`;
const POLICY = policy([bob.id, carol.id]);

let harness: Harness;

beforeAll(async () => {
  harness = await startHarness({ policy: POLICY, sweepIntervalMs: 60_000 });
});
afterAll(async () => {
  await harness?.stop();
});

const say = (root: { ts: string }, text: string) =>
  harness.sandbox.postAsPerson({ user: alice.id, channel: OPS, threadTs: root.ts, text });

/** The tool's results in the thread for a transfer of `amount`. */
function resultsWith(root: { ts: string }, amount: number) {
  return harness.sandbox
    .replies(OPS, root.ts)
    .filter((m) => m.text.includes(`"status":"transferred","amount":${amount}}`));
}

/** Waits until the transfer of `amount` ran, and checks it ran once. */
async function ranWith(root: { ts: string }, amount: number): Promise<void> {
  await harness.sandbox.waitFor(() => resultsWith(root, amount).length > 0);
  expect(resultsWith(root, amount)).toHaveLength(1);
}

/** Bob clicks "Approve for this session"; returns the grant's id, as the thread names it. */
async function grantForSession(root: { ts: string }, card: { ts: string }): Promise<string> {
  await harness.sandbox.clickButton({
    user: bob.id,
    channel: OPS,
    messageTs: card.ts,
    actionId: ACTION_IDS.grantSession,
  });
  const given = await harness.reply(OPS, root.ts, 'for this session: later calls');
  const grantId = /gr_[0-9a-f]{12}/.exec(given.text)?.[0];
  if (grantId === undefined) throw new Error('the thread names no grant');
  return grantId;
}

describe('scoped grants', () => {
  it('a session grant approves the next call of the session with no card, never past a deny rule or into another session, and not once revoked on the Home', {
    timeout: 120_000,
  }, async () => {
    const root = await harness.runAgent(alice.id, OPS, 'payments transfer 31');
    const card = await harness.card(OPS, root.ts);
    const labels = buttons(card).map((button) => button.text);
    expect(labels).toEqual(
      expect.arrayContaining([
        'Approve for this session',
        'Approve for 1 hour',
        'Always for these exact arguments (8 h)',
      ]),
    );
    const grantId = await grantForSession(root, card);
    await ranWith(root, 31);
    const first = await harness.pauseOf(card);
    expect(first.gates[0]?.decision?.by).toBe(bob.id);

    // The same session: no card, the thread names the grant, the tool runs once.
    say(root, 'transfer 42');
    const line = await harness.reply(OPS, root.ts, 'approved by grant');
    expect(line.text).toContain(grantId);
    expect(line.text).toContain('transfer_money');
    await ranWith(root, 42);
    expect(harness.openCards(OPS, root)).toEqual([]);
    const covered = await harness.store.audit.readAudit({});
    const byGrant = covered.filter((entry) => entry.actor === `grant:${grantId}`);
    expect(byGrant.map((entry) => entry.event)).toEqual(
      expect.arrayContaining(['voted', 'approved']),
    );
    expect(byGrant.every((entry) => entry.line?.includes('"initiator":"grant"'))).toBe(true);

    // A call the deny rule matches is denied, grant or not.
    say(root, 'transfer 20000');
    const denied = await harness.reply(OPS, root.ts, 'denied');
    expect(denied.text).toContain('huge-transfers');
    expect(harness.openCards(OPS, root)).toEqual([]);
    expect(resultsWith(root, 20000)).toEqual([]);

    // Another session (a run of its own): a card, as before any grant.
    const other = await harness.runAgent(alice.id, OPS, 'payments transfer 43');
    const otherCard = await harness.card(OPS, other.ts);
    expect(cardText(otherCard)).toContain('transfer_money');
    expect((await harness.pauseOf(otherCard)).gates[0]?.state).toBe('pending');

    // Bob's Home lists the grant; Revoke there: the next call of the session asks again.
    harness.sandbox.openAppHome(bob.id);
    const home = await harness.sandbox.waitFor(() => {
      const now = harness.sandbox.home(bob.id);
      const text = JSON.stringify(now?.view ?? {});
      return now !== undefined && text.includes(grantId) && /1 use\b/.test(text) && now;
    });
    expect(JSON.stringify(home.view)).toContain('Grants in force');
    const revoked = await harness.sandbox.clickButton({
      user: bob.id,
      viewId: home.id,
      actionId: ACTION_IDS.homeRevokeGrant,
      value: grantId,
    });
    expect(revoked).toMatchObject({ answered: true, status: 200 });
    await harness.reply(OPS, root.ts, 'revoked grant');
    say(root, 'transfer 44');
    const asked = await harness.sandbox.waitFor(() =>
      harness.openCards(OPS, root).find((m) => cardText(m).includes('44')),
    );
    expect(cardText(asked)).toContain('transfer_money');
    expect(resultsWith(root, 44)).toEqual([]);

    const trail = await harness.store.audit.readAudit({ pauseId: first.pause.id });
    expect(trail.filter((e) => e.event === 'granted' || e.event === 'grant_revoked')).toEqual([
      expect.objectContaining({ event: 'granted', actor: bob.id }),
      expect.objectContaining({ event: 'grant_revoked', actor: bob.id }),
    ]);
    expect(trail.find((e) => e.event === 'grant_revoked')?.detail).toContain('uses=1');
  });

  it('undoing the approval that gave a grant revokes the grant', { timeout: 60_000 }, async () => {
    const root = await harness.runAgent(alice.id, OPS, 'payments memo: offsite budget');
    const card = await harness.card(OPS, root.ts);
    const grantId = await grantForSession(root, card);
    await harness.sandbox.waitFor(() => {
      const now = harness.sandbox.replies(OPS, root.ts).find((m) => m.ts === card.ts);
      return now !== undefined && buttons(now).some((b) => b.action_id === ACTION_IDS.undo);
    });
    await harness.sandbox.clickButton({
      user: bob.id,
      channel: OPS,
      messageTs: card.ts,
      actionId: ACTION_IDS.undo,
    });
    const revoked = await harness.reply(OPS, root.ts, `revoked grant \`${grantId}\``);
    expect(revoked.text).toContain(bob.id);
    expect((await harness.pauseOf(card)).gates[0]?.state).toBe('pending');
    const audit = await harness.store.audit.readAudit({
      pauseId: (await harness.pauseOf(card)).pause.id,
    });
    expect(audit.map((e) => e.event)).toEqual(
      expect.arrayContaining(['granted', 'undone', 'grant_revoked']),
    );
  });

  it('a grant whose granter is no longer an approver decides nothing: the next call gets a card', {
    timeout: 60_000,
  }, async () => {
    const root = await harness.runAgent(alice.id, OPS, 'payments transfer 51');
    const card = await harness.card(OPS, root.ts);
    await grantForSession(root, card);
    await ranWith(root, 51);

    await replacePolicy(harness, policy([carol.id]));
    say(root, 'transfer 52');
    const asked = await harness.sandbox.waitFor(() =>
      harness.openCards(OPS, root).find((m) => cardText(m).includes('52')),
    );
    expect(cardText(asked)).toContain('transfer_money');
    const unlocked = harness.sandbox
      .replies(OPS, root.ts)
      .filter((m) => m.text.includes('approved by grant'));
    expect(unlocked).toEqual([]);
    expect(resultsWith(root, 52)).toEqual([]);
    // Never decided by the grant, then sent back: the grant was not used at all.
    const second = await harness.pauseOf(asked);
    const trail = await harness.store.audit.readAudit({ pauseId: second.pause.id });
    expect(trail.filter((entry) => entry.actor.startsWith('grant:'))).toEqual([]);
    expect(trail.map((entry) => entry.event)).not.toContain('reopened');
  });
});
