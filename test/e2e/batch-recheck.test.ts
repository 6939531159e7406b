import { rename, writeFile } from 'node:fs/promises';
import type { SandboxMessage } from '@adk-slack-approvals/slack-sandbox';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ACTION_IDS, CALLBACK_IDS } from '../../src/slack/codecs/action-ids.js';
import { BATCH_MAX } from '../../src/slack/render/batch-modal.js';
import { CHANNELS, type Harness, PEOPLE, startHarness } from '../support/app-harness.js';

/**
 * A batch from the App Home is checked against the policy in force when it is confirmed, call by
 * call, and says what became of every picked call: the ones the policy no longer lets a batch
 * decide are left as they were and named with why, a quorum's approval is counted (not called
 * approved), and a batch of more calls than one takes is refused as a whole, visibly. Real Redis,
 * the real ADK api_server, the Slack sandbox.
 */
const { alice, bob, carol } = PEOPLE;
const OPS = CHANNELS.ops.id;

/** Invoices need a reason to be rejected; transfers need two approvals. */
const POLICY = `
defaults:
  approvers: [${bob.id}, ${carol.id}]
rules:
  - name: transfers
    match: { tool: transfer_money }
    quorum: 2
  - name: invoices
    match: { tool: pay_invoice }
    reasonRequired: true
`;
/** The same, and memos rejected only with a reason. */
const MEMOS_EXPLAINED = `${POLICY}
  - name: memos
    match: { tool: send_memo }
    reasonRequired: true
`;
/** The same, and memos out of batches. */
const MEMOS_APART = `${POLICY}
  - name: memos
    match: { tool: send_memo }
    batch: false
`;

let harness: Harness;

beforeAll(async () => {
  harness = await startHarness({ policy: POLICY });
});
afterAll(async () => {
  await harness?.stop();
});

interface Run {
  card: SandboxMessage;
  pauseId: string;
}

async function run(text: string): Promise<Run> {
  const root = await harness.runAgent(alice.id, OPS, text);
  const card = await harness.card(OPS, root.ts);
  return { card, pauseId: (await harness.pauseOf(card)).pause.id };
}

async function replacePolicy(text: string): Promise<void> {
  const mark = harness.logs.length;
  const next = `${harness.policyFile}.next`;
  await writeFile(next, text);
  await rename(next, harness.policyFile);
  await vi.waitFor(
    () => {
      if (!harness.logs.slice(mark).some((line) => line.includes('policy reloaded'))) {
        throw new Error('the policy is not reloaded yet');
      }
    },
    { timeout: 10_000, interval: 50 },
  );
}

/** The newest view of Bob's holding `needle`. */
function bobsView(needle: string) {
  return harness.sandbox.waitFor(() =>
    harness.sandbox.views(bob.id).find((v) => JSON.stringify(v.view).includes(needle)),
  );
}

/** Opens Bob's batch modal once his Home lists `amounts`; the picker's options by amount. */
async function openBatch(amounts: string[]): Promise<(amount: string) => string> {
  harness.sandbox.openAppHome(bob.id);
  const home = await harness.sandbox.waitFor(
    () => {
      const now = harness.sandbox.home(bob.id);
      const text = JSON.stringify(now?.view ?? {});
      return now !== undefined && amounts.every((amount) => text.includes(amount)) && now;
    },
    { timeoutMs: 15_000 },
  );
  await harness.sandbox.clickButton({
    user: bob.id,
    viewId: home.id,
    actionId: ACTION_IDS.homeBatch,
  });
  const select = await bobsView(CALLBACK_IDS.batchSelect);
  const found = JSON.stringify(select.view).match(/"options":(\[[^\]]*\])/);
  const options = JSON.parse(found?.[1] ?? '[]') as { text: { text: string }; value: string }[];
  return (needle) => options.find((option) => option.text.text.includes(needle))?.value ?? '';
}

/** Opens Bob's batch once his Home lists every needle, picks those calls and submits step 1. */
async function pickInBatch(needles: string[], choice: 'approve' | 'reject'): Promise<void> {
  const pick = await openBatch(needles);
  await harness.sandbox.submitView({ user: bob.id, values: { gates: needles.map(pick), choice } });
}

/** Every text of a view, joined. */
function textOf(view: unknown): string {
  return JSON.stringify(view);
}

describe('a batch confirmed under the policy in force', () => {
  it('rejecting without a reason where a rule asks for one is stopped before anything is decided, naming the call', {
    timeout: 90_000,
  }, async () => {
    const invoice = await run('payments pay invoice 901');
    const transfer = await run('payments transfer 902');
    await pickInBatch(['901', '902'], 'reject');
    const select = await harness.sandbox.waitFor(() =>
      harness.sandbox.views(bob.id).find((v) => v.errors.reason !== undefined && v),
    );
    expect(select.errors.reason).toMatch(
      /^Give a reason: rejecting pay_invoice needs one \(rule invoices\)/,
    );
    for (const { card } of [invoice, transfer]) {
      expect((await harness.pauseOf(card)).gates[0]?.state).toBe('pending');
    }
    await harness.sandbox.closeView({ user: bob.id });
  });

  it('leaves a call whose rule came to say batch: false, counts a quorum approval as one, approves the rest, and says so for each', {
    timeout: 90_000,
  }, async () => {
    const invoice = await run('payments pay invoice 911');
    const transfer = await run('payments transfer 912');
    const memo = await run('payments memo: batch 913');
    await pickInBatch(['911', '912', 'batch 913'], 'approve');
    const confirm = await bobsView(CALLBACK_IDS.batchConfirm);
    expect(textOf(confirm.view)).toContain('Needs 2 approvals, 0 so far: yours counts as one.');

    // Between the review and the confirmation, the policy takes memos out of batches.
    await replacePolicy(MEMOS_APART);
    await harness.sandbox.submitView({ user: bob.id });

    const result = await bobsView('Of the 3 calls you picked');
    const shown = textOf(result.view);
    expect(shown).toContain(
      'Of the 3 calls you picked: 1 approved, 1 approval counted (the call waits for more), 1 not decided.',
    );
    expect(shown).toMatch(/send_memo.*Not decided\. Its rule \(`memos`\) says `batch: false`/);
    expect(shown).toContain('Your approval counted: 1 of 2. It waits for more.');
    expect((await harness.pauseOf(invoice.card)).gates[0]?.state).toBe('approved');
    const transferGate = (await harness.pauseOf(transfer.card)).gates[0];
    expect(transferGate?.state).toBe('pending');
    expect(transferGate?.votes.map((vote) => vote.voter)).toEqual([bob.id]);
    expect((await harness.pauseOf(memo.card)).gates[0]?.state).toBe('pending');
    await replacePolicy(POLICY);
  });

  it('a rejection confirmed after a rule came to ask for a reason leaves that call as it was, rejects the other, and says which and why', {
    timeout: 90_000,
  }, async () => {
    const transfer = await run('payments transfer 931');
    const memo = await run('payments memo: batch 932');
    await pickInBatch(['931', 'batch 932'], 'reject');
    const confirm = await bobsView(CALLBACK_IDS.batchConfirm);
    expect(textOf(confirm.view)).toContain('Reject exactly these 2 calls?');

    await replacePolicy(MEMOS_EXPLAINED);
    await harness.sandbox.submitView({ user: bob.id });

    const result = await bobsView('Of the 2 calls you picked');
    const shown = textOf(result.view);
    expect(shown).toContain('Of the 2 calls you picked: 1 rejected, 1 not decided.');
    expect(shown).toMatch(
      /send_memo.*Not decided\. The policy asks for a reason to reject this \(rule `memos`\)/,
    );
    expect((await harness.pauseOf(transfer.card)).gates[0]?.state).toBe('rejected');
    expect((await harness.pauseOf(memo.card)).gates[0]?.state).toBe('pending');
    await replacePolicy(POLICY);
  });

  it(`a batch of more than ${BATCH_MAX} calls is refused as a whole, saying so in the modal`, async () => {
    const refs = Array.from({ length: BATCH_MAX + 1 }, (_, i) => [`p-${i}`, `c-${i}`]);
    const payload = {
      type: 'view_submission',
      user: { id: bob.id, username: 'bob', team_id: 'T0SANDBOX01' },
      api_app_id: 'A0SANDBOX01',
      token: 'unused',
      team: { id: 'T0SANDBOX01', domain: 'sandbox' },
      view: {
        id: 'V0FORGED002',
        type: 'modal',
        callback_id: CALLBACK_IDS.batchConfirm,
        private_metadata: JSON.stringify({ choice: 'approve', refs }),
        state: { values: {} },
      },
    };
    const response = await harness.postInteraction(payload);
    const ack = await response.json();
    expect(ack).toMatchObject({ response_action: 'update', view: { type: 'modal' } });
    expect(JSON.stringify(ack)).toContain(
      `This batch holds ${BATCH_MAX + 1} calls; one takes at most ${BATCH_MAX}. Pick again. Nothing was decided.`,
    );
  });
});
