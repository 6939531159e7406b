import type { SandboxMessage } from '@adk-slack-approvals/slack-sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACTION_IDS, CALLBACK_IDS } from '../../src/slack/codecs/action-ids.js';
import { CHANNELS, type Harness, PEOPLE, startHarness } from '../support/app-harness.js';

/**
 * Batch decisions from the App Home: a person picks several waiting calls across pauses, sees
 * exactly those listed, and approves them in one step; only those are decided, each pause all
 * or none, each tool runs once, one resume per pause; a rule with `batch: false` keeps its calls
 * out. Real Redis, the real ADK api_server, the Slack sandbox.
 */
const { alice, bob } = PEOPLE;
const OPS = CHANNELS.ops.id;

let harness: Harness;

beforeAll(async () => {
  harness = await startHarness({
    policy: `
defaults:
  approvers: [${bob.id}]
rules:
  - name: memos
    match: { tool: send_memo }
    batch: false
`,
  });
});
afterAll(async () => {
  await harness?.stop();
});

interface Run {
  root: SandboxMessage;
  card: SandboxMessage;
  pauseId: string;
  callIds: string[];
}

async function run(text: string): Promise<Run> {
  const root = await harness.runAgent(alice.id, OPS, text);
  const card = await harness.card(OPS, root.ts);
  const { pause } = await harness.pauseOf(card);
  return { root, card, pauseId: pause.id, callIds: pause.callIds };
}

/** The options of the batch modal's call picker: their text and value. */
function pickerOptions(view: unknown): { text: string; value: string }[] {
  const found = JSON.stringify(view).match(/"options":(\[[^\]]*\])/);
  const options = JSON.parse(found?.[1] ?? '[]') as { text: { text: string }; value: string }[];
  return options.map((option) => ({ text: option.text.text, value: option.value }));
}

describe('batch decisions on the App Home', () => {
  it('three picked calls across two pauses: exactly those are decided, each tool once, one resume per pause', {
    timeout: 90_000,
  }, async () => {
    const both = await run('payments transfer 801 and pay invoice 802');
    expect(both.callIds).toHaveLength(2);
    const one = await run('payments transfer 803');
    const left = await run('payments transfer 804');
    const memo = await run('payments memo: quarterly numbers');

    harness.sandbox.openAppHome(bob.id);
    const home = await harness.sandbox.waitFor(
      () => {
        const now = harness.sandbox.home(bob.id);
        const text = JSON.stringify(now?.view ?? {});
        return (
          now !== undefined &&
          text.includes('Decide several') &&
          text.includes('amount: 804') &&
          now
        );
      },
      { timeoutMs: 15_000 },
    );
    const opened = await harness.sandbox.clickButton({
      user: bob.id,
      viewId: home.id,
      actionId: ACTION_IDS.homeBatch,
    });
    expect(opened).toMatchObject({ answered: true, status: 200 });
    const select = await harness.sandbox.waitFor(() =>
      harness.sandbox
        .views(bob.id)
        .find((v) => JSON.stringify(v.view).includes(CALLBACK_IDS.batchSelect)),
    );
    const options = pickerOptions(select.view);
    // The memo's rule says batch: false; the other four calls are there.
    expect(options.map((o) => o.text).join(' ')).not.toContain('send_memo');
    expect(options).toHaveLength(4);
    const pick = (needle: string) => options.find((o) => o.text.includes(needle))?.value ?? '';
    await harness.sandbox.submitView({
      user: bob.id,
      values: { gates: [pick('801'), pick('802'), pick('803')], choice: 'approve' },
    });
    const confirm = await harness.sandbox.waitFor(() =>
      harness.sandbox
        .views(bob.id)
        .find((v) => JSON.stringify(v.view).includes(CALLBACK_IDS.batchConfirm)),
    );
    // As the modal shows each call's arguments: a bare '804' can also be part of a random call id.
    const listed = JSON.stringify(confirm.view);
    for (const amount of ['801', '802', '803']) expect(listed).toContain(`amount: ${amount}`);
    expect(listed).not.toContain('amount: 804');
    await harness.sandbox.submitView({ user: bob.id });

    await harness.reply(OPS, both.root.ts, 'Tool pay_invoice returned');
    await harness.reply(OPS, one.root.ts, 'Tool transfer_money returned');
    const views = await Promise.all([both, one, left, memo].map((r) => harness.pauseOf(r.card)));
    const [bothView, oneView, leftView, memoView] = views;
    expect(bothView?.gates.map((g) => [g.state, g.decision?.by])).toEqual([
      ['approved', bob.id],
      ['approved', bob.id],
    ]);
    expect(oneView?.gates[0]?.state).toBe('approved');
    expect(leftView?.gates[0]?.state).toBe('pending');
    expect(memoView?.gates[0]?.state).toBe('pending');
    expect(await harness.toolRuns(both.card, 'transfer_money', 'transferred')).toBe(1);
    expect(await harness.toolRuns(both.card, 'pay_invoice', 'paid')).toBe(1);
    expect(await harness.toolRuns(one.card, 'transfer_money', 'transferred')).toBe(1);
    for (const pauseId of [both.pauseId, one.pauseId]) {
      const trail = await harness.store.audit.readAudit({ pauseId });
      expect(trail.filter((entry) => entry.event === 'resume_claimed')).toHaveLength(1);
      const votes = trail.filter((entry) => entry.event === 'voted');
      expect(
        votes.every((entry) => entry.actor === bob.id && entry.detail?.includes('batch')),
      ).toBe(true);
    }
  });

  it('part of a pause: only the picked call is decided, the pause waits for the rest', {
    timeout: 60_000,
  }, async () => {
    const pair = await run('payments transfer 805 and pay invoice 806');
    const other = await run('payments transfer 807');
    harness.sandbox.openAppHome(bob.id);
    const home = await harness.sandbox.waitFor(
      () => {
        const now = harness.sandbox.home(bob.id);
        return now !== undefined && JSON.stringify(now.view).includes('807') && now;
      },
      { timeoutMs: 15_000 },
    );
    await harness.sandbox.clickButton({
      user: bob.id,
      viewId: home.id,
      actionId: ACTION_IDS.homeBatch,
    });
    const select = await harness.sandbox.waitFor(() =>
      harness.sandbox
        .views(bob.id)
        .find((v) => JSON.stringify(v.view).includes(CALLBACK_IDS.batchSelect)),
    );
    const options = pickerOptions(select.view);
    const pick = (needle: string) => options.find((o) => o.text.includes(needle))?.value ?? '';
    await harness.sandbox.submitView({
      user: bob.id,
      values: { gates: [pick('805'), pick('807')], choice: 'reject', reason: 'not this quarter' },
    });
    await harness.sandbox.waitFor(() =>
      harness.sandbox
        .views(bob.id)
        .find((v) => JSON.stringify(v.view).includes(CALLBACK_IDS.batchConfirm)),
    );
    await harness.sandbox.submitView({ user: bob.id });
    await harness.reply(OPS, other.root.ts, 'not this quarter');
    const pairView = await harness.pauseOf(pair.card);
    expect(pairView.gates.map((g) => g.state)).toEqual(['rejected', 'pending']);
    expect(pairView.gates[0]?.decision?.reason).toBe('not this quarter');
    expect(pairView.pause.resume.state).toBe('idle');
    expect((await harness.pauseOf(other.card)).gates[0]?.state).toBe('rejected');
  });
});
