import { describe, expect, it, vi } from 'vitest';
import { pauseIdFor } from '../../src/approvals/records.js';
import { openMemoryStore } from '../../src/approvals/store/memory-store.js';
import type { ApprovalStore } from '../../src/approvals/store.js';
import type { NewPause } from '../../src/approvals/store-roles/pauses.js';
import { composeWorkflow } from '../../src/workflow/compose.js';
import { newPause, policy, T0 } from '../approvals/store/fixtures.js';
import { quietSlackPort } from '../support/quiet-slack-port.js';
import { policyOf, quietAdk, workflowTestDefaults } from '../support/workflow.js';

const EXPIRES_IN_MS = 1_000;

/**
 * `seen`: each card update (its text, and how many of its calls it shows expired), and `read`
 * for each read of a pause, in order.
 */
function workflowWith(store: ApprovalStore, seen: string[]) {
  const policy = policyOf('defaults:\n  approvers: [U0APPROVER]\n');
  return composeWorkflow({
    store,
    adk: quietAdk().adk,
    slack: quietSlackPort({
      async updateMessage(input) {
        const expired = JSON.stringify(input.blocks).match(/:hourglass: Expired/g) ?? [];
        seen.push(`${input.text} (${expired.length} shown expired)`);
      },
    }),
    directory: { usergroupMembers: async () => [], channelMembers: async () => [] },
    policy: () => policy,
    clock: () => T0 + EXPIRES_IN_MS,
    ...workflowTestDefaults,
  });
}

/** Three gates: the first two expire, the third never does. */
function threeGates(): NewPause {
  const expiring = policy({ expiresInMs: EXPIRES_IN_MS });
  const two = newPause({ gates: 2, policies: [expiring, expiring] });
  const [first] = two.gates;
  if (first === undefined) throw new Error('no gate');
  const third = {
    ...first,
    confirmationCallId: `${first.confirmationCallId}-3`,
    originalCall: { ...first.originalCall, id: `${first.originalCall.id}-3` },
    policy: policy(),
  };
  const gates = [...two.gates, third];
  return {
    ...two,
    id: pauseIdFor('slack', two.adk, gates),
    gates,
  };
}

async function expireAndRedraw(pause: NewPause) {
  const store = openMemoryStore();
  await store.pauses.createPause(pause);
  await store.pauses.setCardTs(pause.id, '1.000100', T0);
  const seen: string[] = [];
  const { workflow, sweeps } = workflowWith(store, seen);
  const expired = await store.sweeps.expireDue(T0 + EXPIRES_IN_MS);
  const read = store.pauses.getPause.bind(store.pauses);
  vi.spyOn(store.pauses, 'getPause').mockImplementation((id) => {
    seen.push('read');
    return read(id);
  });
  // In reverse: the batch's order says nothing of which expiry came last.
  await sweeps.onExpired(expired.toReversed());
  expect(await workflow.drain(5_000)).toBe(true);
  return { expired, seen };
}

describe('the card of a gate the sweeper expired', () => {
  it('is drawn from the expiry’s own view, its Homes found, when the expiry called the pause off', async () => {
    const pause = newPause({
      gates: 2,
      policies: [policy({ expiresInMs: EXPIRES_IN_MS, onExpiry: 'cancel' })],
    });
    const { expired, seen } = await expireAndRedraw(pause);
    expect(expired).toHaveLength(1);
    // An expiry that cancels is an expiry: the card's one word for it (#34).
    expect(seen).toEqual(['Approval request decided: 2 expired (2 shown expired)']);
  });

  it('is drawn from the newest of the expiries’ views while a gate still waits', async () => {
    const { expired, seen } = await expireAndRedraw(threeGates());
    expect(expired).toHaveLength(2);
    expect(seen).toEqual(['Approval needed: transfer_money (hitl_agent) (2 shown expired)']);
  });

  it('is drawn once, after the resume that follows a deciding expiry: expired and resumed in one update', async () => {
    const pause = newPause({ gates: 2, policies: [policy({ expiresInMs: EXPIRES_IN_MS })] });
    const { seen } = await expireAndRedraw(pause);
    // Drawn before the resume, the card would say "resumes shortly" and then be drawn again; the
    // resume's own view is drawn, with no read.
    expect(seen).toEqual(['Approval request decided: 2 expired — agent resumed (2 shown expired)']);
  });
});
