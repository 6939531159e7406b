import { describe, expect, it } from 'vitest';
import { type Delegation, MemoryDelegationStore } from '../../src/approvals/delegations.js';
import type { GateRecord, PauseView } from '../../src/approvals/records.js';
import { ApprovalChecks } from '../../src/workflow/approval-checks.js';
import { gateRecord, NOW, pauseView } from '../support/records.js';
import { policyOf, workflowTestDefaults } from '../support/workflow.js';

/**
 * Who may decide under hand-overs, as `ApprovalChecks` works it out for a click, for the App
 * Home's list and at the moment of use: the pure rules of who stands in for whom are in
 * test/approvals/delegations.test.ts; the app end to end in test/e2e/delegation.test.ts.
 */
const HOUR = 3_600_000;

const POLICY = `
defaults:
  approvers: [UBOB, UEVE]
  quorum: 2
rules:
  - name: no-stand-ins
    match: { tool: drop_table }
    approvers: [UBOB, UDAVE]
    delegation: false
`;

async function checksWith(
  view: PauseView,
  delegations: Delegation[],
  now = NOW,
  onList: () => void = () => {},
) {
  const store = new MemoryDelegationStore();
  for (const delegation of delegations) await store.set(delegation);
  const list = store.list.bind(store);
  store.list = (at: number) => {
    onList();
    return list(at);
  };
  return new ApprovalChecks({
    store: {
      pauses: { getPause: async (id: string) => (id === view.pause.id ? view : undefined) },
    },
    directory: { usergroupMembers: async () => [], channelMembers: async () => [] },
    policy: () => policyOf(POLICY),
    clock: () => now,
    log: workflowTestDefaults.log,
    delegations: store,
  });
}

const bobToCarol: Delegation = {
  delegator: 'UBOB',
  delegate: 'UCAROL',
  startsAt: NOW - HOUR,
  endsAt: NOW + HOUR,
  setAt: NOW - HOUR,
};

function transfer(overrides: Partial<GateRecord> = {}): PauseView {
  return pauseView([gateRecord(overrides)], { requester: 'UALICE' });
}

describe('ApprovalChecks under hand-overs', () => {
  it("Carol may decide Bob's gate for him while the hand-over lasts, and not after", async () => {
    const view = transfer();
    const during = await (await checksWith(view, [bobToCarol])).check(view.pause.id, [], 'UCAROL');
    expect(during).toMatchObject({ kind: 'allowed', onBehalfOf: 'UBOB' });
    const after = await (await checksWith(view, [bobToCarol], NOW + HOUR)).check(
      view.pause.id,
      [],
      'UCAROL',
    );
    expect(after).toMatchObject({ kind: 'refused', refusal: { kind: 'not_approver' } });
  });

  it("an approver's own click reads no hand-overs; a stranger's reads them once, however many gates", async () => {
    const view = pauseView([gateRecord(), gateRecord({ confirmationCallId: 'adk-2' })], {
      requester: 'UALICE',
    });
    let lists = 0;
    const counted = await checksWith(view, [bobToCarol], NOW, () => {
      lists += 1;
    });
    expect(await counted.check(view.pause.id, [], 'UBOB')).toMatchObject({ kind: 'allowed' });
    expect(lists).toBe(0);
    expect(await counted.check(view.pause.id, [], 'UCAROL')).toMatchObject({
      kind: 'allowed',
      onBehalfOf: 'UBOB',
    });
    expect(lists).toBe(1);
  });

  it('a rule that says delegation: false is decided by its approvers themselves', async () => {
    const view = transfer({
      originalCall: { id: 'drop-1', name: 'drop_table', args: {} },
    });
    const checks = await checksWith(view, [bobToCarol]);
    expect(await checks.check(view.pause.id, [], 'UCAROL')).toMatchObject({
      kind: 'refused',
      refusal: { kind: 'not_approver' },
    });
  });

  it("one person's standing counts once toward a quorum: Carol cannot add a vote for Bob after his own, nor Bob after hers", async () => {
    const bobVoted = transfer({ votes: [{ voter: 'UBOB', choice: 'approve', at: NOW }] });
    expect(
      await (await checksWith(bobVoted, [bobToCarol])).check(bobVoted.pause.id, [], 'UCAROL'),
    ).toMatchObject({ kind: 'refused', refusal: { kind: 'already_voted' } });
    const carolVoted = transfer({
      votes: [{ voter: 'UCAROL', choice: 'approve', at: NOW, onBehalfOf: 'UBOB' }],
    });
    expect(
      await (await checksWith(carolVoted, [bobToCarol])).check(carolVoted.pause.id, [], 'UBOB'),
    ).toMatchObject({ kind: 'refused', refusal: { kind: 'already_voted' } });
  });

  it('a grant stays its giver’s: Carol, standing in for Bob, is no granter Bob’s grants would cover', async () => {
    const view = transfer();
    const checks = await checksWith(view, [bobToCarol]);
    const callId = view.gates[0]?.confirmationCallId ?? '';
    expect(await checks.granterMayApprove(view, callId, 'UBOB')).toBe(true);
    expect(await checks.granterMayApprove(view, callId, 'UCAROL')).toBe(false);
  });

  it("at the moment of use, Carol's approval for Bob holds while the hand-over does, and is sent back once it ended", async () => {
    const approved = transfer({
      state: 'approved',
      votes: [{ voter: 'UCAROL', choice: 'approve', at: NOW, onBehalfOf: 'UBOB' }],
      decision: { by: 'UCAROL', at: NOW, onBehalfOf: 'UBOB' },
    });
    expect(await (await checksWith(approved, [bobToCarol])).recheck(approved)).toBeUndefined();
    const ended = await checksWith(approved, [bobToCarol], NOW + HOUR);
    expect(await ended.recheck(approved)).toMatchObject({ voter: 'UCAROL' });
  });
});
