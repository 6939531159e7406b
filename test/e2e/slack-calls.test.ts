import type { ApiCall, SandboxMessage } from '@adk-slack-approvals/slack-sandbox';
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

const { alice, bob } = PEOPLE;
const OPS = CHANNELS.ops.id;
const PAYMENTS = CHANNELS.payments.id;

let harness: Harness;
let stopped = false;

beforeAll(async () => {
  // The click's own resume is counted; the sweeper must not take it over (see the harness).
  harness = await startHarness({
    policy: `defaults:\n  approvers: [${bob.id}]\n`,
    sweepIntervalMs: 60_000,
  });
});
afterAll(async () => {
  if (!stopped) await harness?.stop();
});

function byMethod(calls: readonly ApiCall[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const { method } of calls) counts[method] = (counts[method] ?? 0) + 1;
  return counts;
}

function now(message: SandboxMessage): SandboxMessage {
  const current = harness.sandbox.message(OPS, message.ts);
  if (current === undefined) throw new Error('a message disappeared');
  return current;
}

describe('Slack calls per /agent decision cycle', () => {
  it('a plain cycle (run, card, one approval, the answer) costs six calls, one per change people see', async () => {
    const from = harness.sandbox.calls().length;
    const root = await harness.runAgent(alice.id, OPS, 'payments transfer 41');
    const card = await harness.card(OPS, root.ts);
    // The root links to the card, a reply in its thread: the link is built, not asked for.
    const waiting = cardText(await harness.messageReading(OPS, root.ts, /Waiting for approval/));
    expect(waiting).toContain(
      `/archives/${OPS}/p${card.ts.replace('.', '')}?thread_ts=${root.ts}&cid=${OPS}|open the card>`,
    );
    await harness.approveUntilResumed(bob.id, OPS, card);
    await harness.messageReading(OPS, root.ts, /:white_check_mark: Done/);
    // Stopping drains the app: no call of this cycle can come later than this.
    stopped = true;
    await harness.stop();

    const calls = harness.sandbox.calls().slice(from);
    expect(byMethod(calls)).toEqual({
      // The root, the card, and the agent's answer with the tool that ran.
      'chat.postMessage': 3,
      // The root waiting (with the card's link), the card decided and resumed, the root done.
      'chat.update': 3,
      // The approver's name, looked up once an hour per person.
      'users.info': 1,
    });
    // What people see at the end is all there.
    expect(cardText(now(root))).toContain(':white_check_mark: Done');
    const decided = cardText(now(card));
    expect(decided).toContain(`Approved by <@${bob.id}>`);
    expect(decided).toMatch(/Approved · ran/);
    expect(buttons(now(card)).map((button) => button.text)).not.toContain('Approve');
    const answers = harness.sandbox
      .replies(OPS, root.ts)
      .filter((message) => message.ts !== root.ts && message.ts !== card.ts);
    expect(answers.map((message) => cardText(message))).toEqual([
      expect.stringMatching(/^ran `transfer_money` ✓\nTool transfer_money returned/),
    ]);
  });
});

describe('Slack calls per /agent decision cycle, the card in another channel', () => {
  let elsewhere: Harness;
  let elsewhereStopped = false;
  beforeAll(async () => {
    elsewhere = await startHarness({
      policy: `defaults:\n  approvers: [${bob.id}]\nrules:\n  - match: { tool: transfer_money }\n    channel: ${PAYMENTS}\n`,
      sweepIntervalMs: 60_000,
    });
  });
  afterAll(async () => {
    if (!elsewhereStopped) await elsewhere?.stop();
  });

  it('costs eight calls: two links are built, not asked for, and the decision and the answer are a thread line each', async () => {
    const { sandbox } = elsewhere;
    const from = sandbox.calls().length;
    const root = await elsewhere.runAgent(alice.id, OPS, 'payments transfer 43');
    const card = await sandbox.waitFor(() =>
      sandbox
        .messages(PAYMENTS)
        .find((message) => JSON.stringify(message.blocks).includes(ACTION_IDS.approve)),
    );
    // The card links back to the run, and the root to the card: both built from their ts.
    expect(cardText(card)).toContain(`/archives/${OPS}/p${root.ts.replace('.', '')}|open the run>`);
    const waiting = cardText(await elsewhere.messageReading(OPS, root.ts, /Waiting for approval/));
    expect(waiting).toContain(`/archives/${PAYMENTS}/p${card.ts.replace('.', '')}|open the card>`);
    await elsewhere.approveUntilResumed(bob.id, PAYMENTS, card);
    await elsewhere.messageReading(OPS, root.ts, /:white_check_mark: Done/);
    elsewhereStopped = true;
    await elsewhere.stop();

    expect(byMethod(sandbox.calls().slice(from))).toEqual({
      // The root, the card, the thread's pointer to the card, "decided there", the answer.
      'chat.postMessage': 5,
      // The root waiting (with the card's link), the card decided and resumed, the root done.
      'chat.update': 3,
      'users.info': 1,
    });
    const replies = sandbox
      .replies(OPS, root.ts)
      .filter((message) => message.ts !== root.ts)
      .map((message) => cardText(message));
    expect(replies).toEqual([
      expect.stringContaining(`the request was posted in <#${PAYMENTS}>`),
      expect.stringContaining(`Decided in <#${PAYMENTS}>`),
      expect.stringMatching(/^ran `transfer_money` ✓\nTool transfer_money returned/),
    ]);
    const rootNow = sandbox.message(OPS, root.ts);
    expect(rootNow && cardText(rootNow)).toContain(':white_check_mark: Done');
  });
});
