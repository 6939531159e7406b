import { describe, expect, it } from 'vitest';
import { type Delegation, MemoryDelegationStore } from '../../src/approvals/delegations.js';
import type { GatePolicy, PauseView, Vote } from '../../src/approvals/records.js';
import { Reminders } from '../../src/workflow/reminders.js';
import { quietSlackPort } from '../support/quiet-slack-port.js';
import { gateRecord, NOW, POLICY, pauseView } from '../support/records.js';
import { workflowTestDefaults } from '../support/workflow.js';

/** A reminder goes to the stand-in of an approver away too (issue 36: handing over while away). */
const bobToCarol: Delegation = {
  delegator: 'UBOB',
  delegate: 'UCAROL',
  startsAt: NOW - 60_000,
  endsAt: NOW + 60_000,
  setAt: NOW - 60_000,
};

async function remindedFor(view: PauseView): Promise<string[]> {
  const delegations = new MemoryDelegationStore();
  await delegations.set(bobToCarol);
  const dmed: string[] = [];
  const reminders = new Reminders({
    store: {
      pauses: { getPause: async () => view },
      nudges: { finishNudge: async () => {} },
    },
    slack: quietSlackPort({
      async openDirectMessage(user) {
        dmed.push(user);
        return `D-${user}`;
      },
    }),
    directory: { usergroupMembers: async () => [], channelMembers: async () => [] },
    clock: () => NOW,
    log: workflowTestDefaults.log,
    cards: { pauseChanged: () => {} },
    delegations,
  });
  const gate = view.gates[0];
  if (gate === undefined) throw new Error('no gate');
  await reminders.handle([
    { pauseId: view.pause.id, callId: gate.confirmationCallId, kind: 'remind', claimedUntil: NOW },
  ]);
  return dmed.sort();
}

function waiting(policy: Partial<GatePolicy> = {}, votes: Vote[] = []): PauseView {
  const approvers = [
    { kind: 'user' as const, id: 'UBOB' },
    { kind: 'user' as const, id: 'UDAVE' },
  ];
  return pauseView([gateRecord({ policy: { ...POLICY, approvers, ...policy }, votes })]);
}

describe('reminders under a hand-over', () => {
  it("Bob's stand-in is reminded beside him, unless the rule says delegation: false", async () => {
    expect(await remindedFor(waiting())).toEqual(['UBOB', 'UCAROL', 'UDAVE']);
    expect(await remindedFor(waiting({ delegation: false }))).toEqual(['UBOB', 'UDAVE']);
  });

  it('a vote Carol gave for Bob answers for both: neither is reminded', async () => {
    const voted = waiting({ quorum: 2 }, [
      { voter: 'UCAROL', choice: 'approve', at: NOW, onBehalfOf: 'UBOB' },
    ]);
    expect(await remindedFor(voted)).toEqual(['UDAVE']);
  });
});
