import type { SandboxMessage } from '@adk-slack-approvals/slack-sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACTION_IDS } from '../../src/slack/codecs/action-ids.js';
import { CHANNELS, cardText, type Harness, PEOPLE, startHarness } from '../support/app-harness.js';

const { alice, bob } = PEOPLE;
const OPS = CHANNELS.ops.id;

const POLICY = `
defaults:
  approvers: [${bob.id}]
`;

let harness: Harness;

beforeAll(async () => {
  // A click's resume is followed here; the sweeper must not take it over (see the harness).
  harness = await startHarness({ policy: POLICY, sweepIntervalMs: 60_000 });
});
afterAll(async () => {
  await harness?.stop();
});

/** The run's root message as it is now (it is updated in place). */
function rootNow(root: SandboxMessage): SandboxMessage {
  const now = harness.sandbox.message(OPS, root.ts);
  if (now === undefined) throw new Error('the root message disappeared');
  return now;
}

function waitForRoot(root: SandboxMessage, needle: string): Promise<string> {
  return harness.sandbox.waitFor(
    () => {
      const text = cardText(rootNow(root));
      return text.includes(needle) && text;
    },
    { timeoutMs: 15_000 },
  );
}

describe('run status on the root message', () => {
  it('goes from ⏳ waiting for approval (with a link to the card) to ✅ done over an approved run', async () => {
    const root = await harness.runAgent(alice.id, OPS, 'payments transfer 41');
    const card = await harness.card(OPS, root.ts);
    const waiting = await waitForRoot(root, 'Waiting for approval');
    expect(waiting).toContain(':hourglass_flowing_sand:');
    expect(waiting).toContain('open the card');
    expect(waiting).toContain(`<@${alice.id}> asked`);

    await harness.approveUntilResumed(bob.id, OPS, card);
    const done = await waitForRoot(root, ':white_check_mark: Done');
    expect(done).not.toContain('Waiting for approval');
    expect(done).toContain('transfer 41');
  });

  it('ends ✖ rejected when the approver rejects', async () => {
    const root = await harness.runAgent(alice.id, OPS, 'payments transfer 42');
    const card = await harness.card(OPS, root.ts);
    await waitForRoot(root, 'Waiting for approval');
    await harness.sandbox.clickButton({
      user: bob.id,
      channel: OPS,
      messageTs: card.ts,
      actionId: ACTION_IDS.reject,
    });
    await harness.sandbox.waitFor(() => harness.sandbox.views(bob.id)[0]);
    await harness.sandbox.submitView({ user: bob.id, values: { reason: 'not now' } });
    const rejected = await waitForRoot(root, ':x: Rejected');
    expect(rejected).not.toContain('Waiting for approval');
  });

  it('ends withdrawn when the requester withdraws', async () => {
    const root = await harness.runAgent(alice.id, OPS, 'payments transfer 43');
    const card = await harness.card(OPS, root.ts);
    await waitForRoot(root, 'Waiting for approval');
    await harness.sandbox.clickButton({
      user: alice.id,
      channel: OPS,
      messageTs: card.ts,
      actionId: ACTION_IDS.withdraw,
    });
    await waitForRoot(root, 'Withdrawn');
  });
});
