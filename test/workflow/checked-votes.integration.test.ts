import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Delegation, MemoryDelegationStore } from '../../src/approvals/delegations.js';
import { gatesVersion } from '../../src/approvals/records.js';
import type { RedisClient } from '../../src/approvals/store/redis-connection.js';
import { openRedisStore } from '../../src/approvals/store/redis-store.js';
import type { ApprovalStore } from '../../src/approvals/store.js';
import type { VoteInput } from '../../src/approvals/store-roles/pauses.js';
import { noMetrics } from '../../src/metrics.js';
import { ApprovalChecks } from '../../src/workflow/approval-checks.js';
import { CHECKED_VOTE_TRIES, Decider } from '../../src/workflow/decider.js';
import { firstCallId, newPause, policy, T0 } from '../approvals/store/fixtures.js';
import { connectTestRedis, deleteWithPrefix, randomPrefix } from '../support/redis.js';
import { policyOf, workflowTestDefaults } from '../support/workflow.js';

/**
 * A click's check starts from the pause as this replica last saw it, with no read, and its vote
 * carries the version it was checked at (`checkedGatesVersion`): a pause another replica changed since
 * is checked again as it is, never decided on what it was. Two replicas of one Redis store.
 */
const HOUR = 3_600_000;
const POLICY = `
defaults:
  approvers: [UBOB, UEVE]
  quorum: 2
`;
const bobToCarol: Delegation = {
  delegator: 'UBOB',
  delegate: 'UCAROL',
  startsAt: T0 - HOUR,
  endsAt: T0 + HOUR,
  setAt: T0 - HOUR,
};
/** Approvers who vote elsewhere while this replica's click is checked. */
const OTHERS = ['U1', 'U2', 'U3', 'U4', 'U5', 'U6', 'U7'];
/**
 * A pause recorded here whose one gate every one of `approvers` must approve, and an approval of
 * it by `voter` on the other replica (`n`: its place among them, for its time).
 */
async function gateOfAll(approvers: readonly string[]) {
  const all = policy({
    approvers: approvers.map((id) => ({ kind: 'user', id })),
    quorum: approvers.length,
  });
  const input = newPause({ policies: [all] });
  await here.pauses.createPause(input);
  const ref = { pauseId: input.id, callId: firstCallId(input) };
  const voteElsewhere = (voter: string, n: number) =>
    elsewhere.pauses.vote({ ...ref, voter, choice: 'approve', now: T0 + n });
  return { ref, voteElsewhere };
}
const twoOfBobAndEve = policy({
  approvers: [
    { kind: 'user', id: 'UBOB' },
    { kind: 'user', id: 'UEVE' },
  ],
  quorum: 2,
});

let keyPrefix: string;
let redis: RedisClient;
let here: ApprovalStore;
let elsewhere: ApprovalStore;

beforeEach(async () => {
  keyPrefix = randomPrefix();
  redis = await connectTestRedis();
  here = openRedisStore({ redis, keyPrefix });
  elsewhere = openRedisStore({ redis, keyPrefix });
});
afterEach(async () => {
  await deleteWithPrefix(redis, keyPrefix);
  await here.lifecycle.close();
  await elsewhere.lifecycle.close();
  redis.disconnect();
});

/**
 * This replica's decider, counting its reads of pauses and the versions its votes carry.
 * `beforeVote(n)`: what happens elsewhere just before its nth vote is sent (after its check).
 */
async function deciderHere(beforeVote?: (n: number) => Promise<unknown>) {
  const reads: string[] = [];
  const votes: VoteInput[] = [];
  const pauses = {
    getPause: (pauseId: string) => {
      reads.push(pauseId);
      return here.pauses.getPause(pauseId);
    },
    recentPause: (pauseId: string) => here.pauses.recentPause(pauseId),
    vote: async (input: VoteInput) => {
      votes.push(input);
      await beforeVote?.(votes.length);
      return here.pauses.vote(input);
    },
    voteAll: here.pauses.voteAll.bind(here.pauses),
  };
  const delegations = new MemoryDelegationStore();
  await delegations.set(bobToCarol);
  const { log } = workflowTestDefaults;
  const clock = () => T0 + 5;
  const checks = new ApprovalChecks({
    store: { pauses },
    directory: { usergroupMembers: async () => [], channelMembers: async () => [] },
    policy: () => policyOf(POLICY),
    clock,
    log,
    delegations,
  });
  const decider = new Decider({
    store: { pauses },
    checks,
    cards: { pauseChanged: () => {} },
    resumes: { leaseAhead: () => undefined, pauseDecided: () => {} },
    clock,
    log,
    metrics: noMetrics,
  });
  return { decider, reads, votes };
}

describe('a click checked on the pause as this replica saw it', () => {
  it('reads nothing before its vote, and the vote carries the version it was checked at', async () => {
    const input = newPause({ policies: [twoOfBobAndEve] });
    const { view } = await here.pauses.createPause(input);
    const { decider, reads, votes } = await deciderHere();
    const callId = firstCallId(input);
    const reply = await decider.vote({
      pauseId: input.id,
      callId,
      voter: 'UBOB',
      choice: 'approve',
    });
    expect(reply).toEqual({ kind: 'done' });
    expect(reads).toEqual([]);
    expect(votes.map((vote) => vote.checkedGatesVersion)).toEqual([gatesVersion(view)]);
    const after = await here.pauses.getPause(input.id);
    expect(after?.gates[0]?.votes.map((vote) => vote.voter)).toEqual(['UBOB']);
  });

  it("is checked again when another replica changed the pause: Carol's vote for Bob is refused once Bob's own is in, and counts nothing", async () => {
    const input = newPause({ policies: [twoOfBobAndEve] });
    await here.pauses.createPause(input);
    const callId = firstCallId(input);
    // Another replica records Bob's own approval: what this replica remembers is now stale.
    const bob = {
      pauseId: input.id,
      callId,
      voter: 'UBOB',
      choice: 'approve' as const,
      now: T0 + 1,
    };
    expect(await elsewhere.pauses.vote(bob)).toMatchObject({ kind: 'counted', approvals: 1 });

    const { decider, votes } = await deciderHere();
    const reply = await decider.vote({
      pauseId: input.id,
      callId,
      voter: 'UCAROL',
      choice: 'approve',
    });
    // On the remembered view Carol could stand in for Bob; on the pause as it is, his vote is in.
    expect(reply).toMatchObject({ kind: 'refused', refusal: { kind: 'already_voted' } });
    expect(votes).toHaveLength(1);
    const after = await here.pauses.getPause(input.id);
    expect(after?.gates[0]?.state).toBe('pending');
    expect(after?.gates[0]?.votes.map((vote) => vote.voter)).toEqual(['UBOB']);
  });

  it('a refusal on the remembered view is made again on the pause as it is, read afresh', async () => {
    const input = newPause({ policies: [twoOfBobAndEve] });
    await here.pauses.createPause(input);
    const { decider, reads, votes } = await deciderHere();
    const mallory = { pauseId: input.id, callId: firstCallId(input), voter: 'UMALLORY' };
    const reply = await decider.vote({ ...mallory, choice: 'approve' });
    expect(reply).toMatchObject({ kind: 'refused', refusal: { kind: 'not_approver' } });
    expect(reads).toEqual([input.id]);
    expect(votes).toEqual([]);
  });

  it('a pause gone from the store since this replica saw it is refused as gone, read afresh', async () => {
    const input = newPause({ policies: [twoOfBobAndEve] });
    await here.pauses.createPause(input);
    await deleteWithPrefix(redis, keyPrefix);
    const { decider, reads } = await deciderHere();
    const bob = { pauseId: input.id, callId: firstCallId(input), voter: 'UBOB' };
    const reply = await decider.vote({ ...bob, choice: 'approve' });
    expect(reply).toMatchObject({ kind: 'refused', refusal: { kind: 'pause_gone' } });
    expect(reads).toEqual([input.id]);
  });

  // Before each of Carol's first tries another approver's vote lands elsewhere; before try
  // `bobAt`, Bob's own. Every try but the last leaves room for the check that follows a stale one.
  it.each([2, 3, CHECKED_VOTE_TRIES - 1])(
    "every try is checked: Bob's own vote landing before try %i is not counted twice through Carol",
    async (bobAt) => {
      // Eve has not voted: the gate stays pending whatever lands.
      const gate = await gateOfAll(['UBOB', 'UEVE', ...OTHERS.slice(0, bobAt - 1)]);
      const { decider, votes } = await deciderHere(async (n) => {
        if (n <= bobAt) await gate.voteElsewhere(n < bobAt ? (OTHERS[n - 1] as string) : 'UBOB', n);
      });
      const reply = await decider.vote({ ...gate.ref, voter: 'UCAROL', choice: 'approve' });
      // Checked once more on the pause as it is: Bob's vote is in, Carol cannot give it again.
      expect(reply).toMatchObject({ kind: 'refused', refusal: { kind: 'already_voted' } });
      expect(votes).toHaveLength(bobAt);
      expect(votes.every((vote) => vote.checkedGatesVersion !== undefined)).toBe(true);
      const after = await here.pauses.getPause(gate.ref.pauseId);
      expect(after?.gates[0]?.state).toBe('pending');
      expect(after?.gates[0]?.votes.map((vote) => vote.onBehalfOf ?? vote.voter)).toEqual([
        ...OTHERS.slice(0, bobAt - 1),
        'UBOB',
      ]);
    },
  );

  it('a pause that changes before every try is refused as changed meanwhile, nothing recorded', async () => {
    const gate = await gateOfAll(['UBOB', ...OTHERS]);
    const { decider, votes } = await deciderHere((n) =>
      gate.voteElsewhere(OTHERS[n - 1] as string, n),
    );
    const reply = await decider.vote({ ...gate.ref, voter: 'UBOB', choice: 'approve' });
    expect(reply).toEqual({ kind: 'refused', refusal: { kind: 'changed_meanwhile' } });
    expect(votes).toHaveLength(CHECKED_VOTE_TRIES);
    const after = await here.pauses.getPause(gate.ref.pauseId);
    expect(after?.gates[0]?.votes.map((vote) => vote.voter)).toEqual(
      OTHERS.slice(0, CHECKED_VOTE_TRIES),
    );
  });
});
