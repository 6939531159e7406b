import { canonicalJson } from '@adk-slack-approvals/adk-approvals/attestation';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { gatesVersion, SYSTEM_ACTOR } from '../../../src/approvals/records.js';
import { AUDIT_GENESIS, sha256, splitChainLine } from '../../../src/approvals/store/audit-chain.js';
import type { ApprovalStore } from '../../../src/approvals/store.js';
import type { NewPause, VoteResult } from '../../../src/approvals/store-roles/pauses.js';
import {
  APPROVER,
  CAPTURED_GATES,
  CHANNEL,
  callIdsOf,
  firstCallId,
  newPause,
  policy,
  T0,
} from './fixtures.js';

/** A store under test and a way to reach the same data as another replica would. */
export interface StoreHarness {
  store: ApprovalStore;
  /** Another store over the same data: Redis gets its own connection; memory is shared. */
  replica(): Promise<ApprovalStore>;
  cleanup(): Promise<void>;
}

const LEASE_MS = 30_000;

function kinds(results: readonly { kind: string }[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const result of results) counts[result.kind] = (counts[result.kind] ?? 0) + 1;
  return counts;
}

function decided(result: VoteResult) {
  if (result.kind !== 'decided') throw new Error(`expected decided, got ${result.kind}`);
  return result;
}

/** The behaviour every `ApprovalStore` promises; run against each implementation. */
export function describeStoreContract(name: string, open: () => Promise<StoreHarness>): void {
  describe(`${name}: the confirmation store contract`, () => {
    let harness: StoreHarness;
    let store: ApprovalStore;

    beforeEach(async () => {
      harness = await open();
      store = harness.store;
    });
    afterEach(async () => {
      await harness.cleanup();
    });

    describe('the marker of a store that holds its data', () => {
      it('is missing until placed, then present for every replica; placing it again keeps it', async () => {
        expect(await store.lifecycle.readMarker()).toEqual({ kind: 'missing' });
        await store.lifecycle.placeMarker({ now: 1 });
        await store.lifecycle.placeMarker({ now: 2, lossFoundAt: 2 });
        expect(await store.lifecycle.readMarker()).toEqual({ kind: 'present', placedAt: 1 });
        expect(await (await harness.replica()).lifecycle.readMarker()).toEqual({
          kind: 'present',
          placedAt: 1,
        });
      });

      it('placed again after a loss, tells every replica when the loss was found', async () => {
        await store.lifecycle.placeMarker({ now: 5, lossFoundAt: 5 });
        expect(await (await harness.replica()).lifecycle.readMarker()).toEqual({
          kind: 'present',
          placedAt: 5,
          lossFoundAt: 5,
        });
      });
    });

    describe('pauses recorded without a card', () => {
      it('are claimed once past the grace period, by one replica, until their card ts is saved', async () => {
        const input = newPause();
        await store.pauses.createPause(input);
        const other = await harness.replica();
        const claim = { graceMs: 1_000, leaseMs: 5_000 };
        expect(await store.sweeps.claimCardless({ ...claim, owner: 'r1', now: T0 + 999 })).toEqual(
          [],
        );
        expect(
          await store.sweeps.claimCardless({ ...claim, owner: 'r1', now: T0 + 1_000 }),
        ).toEqual([input.id]);
        expect(
          await other.sweeps.claimCardless({ ...claim, owner: 'r2', now: T0 + 1_001 }),
        ).toEqual([]);
        await store.pauses.setCardTs(input.id, '1.000100', T0 + 1_002);
        expect(
          await other.sweeps.claimCardless({ ...claim, owner: 'r2', now: T0 + 10_000 }),
        ).toEqual([]);
        const carded = newPause();
        await store.pauses.createPause({ ...carded, card: { ...carded.card, ts: '2.000200' } });
        expect(
          await store.sweeps.claimCardless({ ...claim, owner: 'r1', now: T0 + 20_000 }),
        ).toEqual([]);
      });

      it('are not claimed while a poster holds the card claim, which only its owner renews or releases', async () => {
        const input = newPause();
        await store.pauses.createPause(input);
        const other = await harness.replica();
        const card = { pauseId: input.id, leaseMs: 5_000, now: T0 };
        expect(await store.cardClaims.claim({ ...card, owner: 'post-1' })).toBe(true);
        expect(await other.cardClaims.claim({ ...card, owner: 'post-2' })).toBe(false);
        const sweep = { graceMs: 1_000, leaseMs: 5_000, owner: 'r2', now: T0 + 2_000 };
        expect(await other.sweeps.claimCardless(sweep)).toEqual([]);
        expect(await other.cardClaims.renew({ ...card, owner: 'post-2', now: T0 + 1 })).toBe(false);
        expect(await store.cardClaims.renew({ ...card, owner: 'post-1', now: T0 + 1 })).toBe(true);
        await other.cardClaims.release({ pauseId: input.id, owner: 'post-2' });
        expect(await other.sweeps.claimCardless(sweep)).toEqual([]);
        await store.cardClaims.release({ pauseId: input.id, owner: 'post-1' });
        expect(await other.sweeps.claimCardless(sweep)).toEqual([input.id]);
        expect(await store.cardClaims.claim({ ...card, owner: 'post-1', now: T0 + 2_001 })).toBe(
          false,
        );
        expect(await other.cardClaims.renew({ ...card, owner: 'r2', now: T0 + 2_001 })).toBe(true);
      });

      it('lapse when their holder stops renewing them: another poster takes over', async () => {
        const input = newPause();
        await store.pauses.createPause(input);
        const other = await harness.replica();
        const claim = { pauseId: input.id, leaseMs: 40 };
        expect(await store.cardClaims.claim({ ...claim, owner: 'dead', now: T0 })).toBe(true);
        expect(await other.cardClaims.claim({ ...claim, owner: 'next', now: T0 + 10 })).toBe(false);
        // Redis counts the lease on its own clock; the memory twin on the one it is given.
        await new Promise((resolve) => setTimeout(resolve, 80));
        expect(await other.cardClaims.claim({ ...claim, owner: 'next', now: T0 + 80 })).toBe(true);
      });
    });

    describe('run intents', () => {
      const intent = {
        id: 'run-1',
        requester: 'U0REQUESTER',
        channelId: CHANNEL,
        text: 'payments transfer 10',
        acceptedAt: T0,
      };
      const lease = { leaseMs: 1_000 };

      it('are claimed once their lease lapses, by one replica, with the progress recorded', async () => {
        await store.runs.recordRun({ intent, owner: 'r1', now: T0, ...lease });
        const other = await harness.replica();
        expect(await other.runs.claimDeadRuns({ owner: 'r2', now: T0 + 999, ...lease })).toEqual(
          [],
        );
        expect(
          await store.runs.advanceRun({
            runId: intent.id,
            owner: 'r1',
            now: T0 + 500,
            ...lease,
            progress: { threadTs: '1.000100', appName: 'payments', sessionId: 's-1' },
          }),
        ).toBe('renewed');
        expect(await other.runs.claimDeadRuns({ owner: 'r2', now: T0 + 1_499, ...lease })).toEqual(
          [],
        );
        const claimed = await other.runs.claimDeadRuns({ owner: 'r2', now: T0 + 1_500, ...lease });
        expect(claimed).toEqual([
          { ...intent, threadTs: '1.000100', appName: 'payments', sessionId: 's-1' },
        ]);
        expect(await store.runs.claimDeadRuns({ owner: 'r3', now: T0 + 1_501, ...lease })).toEqual(
          [],
        );
        // The replica that was too slow to renew has lost the run; its finish changes nothing.
        expect(
          await store.runs.advanceRun({ runId: intent.id, owner: 'r1', now: T0 + 1_502, ...lease }),
        ).toBe('lost');
        await store.runs.finishRun({ runId: intent.id, owner: 'r1' });
        expect(
          await store.runs.claimDeadRuns({ owner: 'r3', now: T0 + 2_500, ...lease }),
        ).toHaveLength(1);
      });

      it('a finished run is never claimed', async () => {
        await store.runs.recordRun({ intent, owner: 'r1', now: T0, ...lease });
        await store.runs.finishRun({ runId: intent.id, owner: 'r1' });
        expect(await store.runs.claimDeadRuns({ owner: 'r2', now: T0 + 60_000, ...lease })).toEqual(
          [],
        );
        expect(
          await store.runs.advanceRun({
            runId: intent.id,
            owner: 'r1',
            now: T0 + 60_001,
            ...lease,
          }),
        ).toBe('lost');
      });
    });

    describe('recording a pause', () => {
      it('keeps the pause’s traceparent, for the spans of its decisions on any replica', async () => {
        const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
        const input = { ...newPause(), traceparent };
        await store.pauses.createPause(input);
        expect((await store.pauses.getPause(input.id))?.pause.traceparent).toBe(traceparent);
        const untraced = newPause();
        await store.pauses.createPause(untraced);
        expect((await store.pauses.getPause(untraced.id))?.pause.traceparent).toBeUndefined();
      });

      it('tells whether a pause changed since a view of it, on any replica, without reading it', async () => {
        const input = newPause({ gates: 2 });
        const { view } = await store.pauses.createPause(input);
        const other = await harness.replica();
        expect(await other.pauses.changedSince(view)).toBe(false);
        // A change to one gate only, made by another replica.
        await other.pauses.vote({
          pauseId: input.id,
          callId: callIdsOf(input)[1] ?? '',
          voter: APPROVER,
          choice: 'approve',
          now: T0 + 1,
        });
        expect(await store.pauses.changedSince(view)).toBe(true);
        const latest = await store.pauses.getPause(input.id);
        if (latest === undefined) throw new Error('the pause is gone');
        expect(await store.pauses.changedSince(latest)).toBe(false);
        await store.pauses.setCardTs(input.id, '1.000200', T0 + 2);
        expect(await other.pauses.changedSince(latest)).toBe(true);
        // A pause that is gone has changed.
        expect(
          await store.pauses.changedSince({ ...latest, pause: { ...latest.pause, id: 'p_gone' } }),
        ).toBe(true);
      });

      it('records every gate pending at version 1 with its expiry, and the resume idle', async () => {
        const input = newPause({ gates: 2, policies: [policy({ expiresInMs: 60_000 }), policy()] });
        const result = await store.pauses.createPause(input);
        expect(result.kind).toBe('created');
        const { pause, gates } = result.view;
        expect(pause).toMatchObject({
          id: input.id,
          adk: input.adk,
          requester: 'U0REQUESTER',
          card: input.card,
          callIds: callIdsOf(input),
          resume: { state: 'idle', attempts: 0 },
          createdAt: T0,
          version: 1,
        });
        expect(gates.map((g) => [g.confirmationCallId, g.state, g.version])).toEqual([
          [callIdsOf(input)[0], 'pending', 1],
          [callIdsOf(input)[1], 'pending', 1],
        ]);
        expect(gates[0]?.expiresAt).toBe(T0 + 60_000);
        expect(gates[1]?.expiresAt).toBeUndefined();
        expect(gates[0]?.originalCall).toEqual(CAPTURED_GATES[0]?.originalCall);
        expect(gates[0]?.hint).toBe(CAPTURED_GATES[0]?.hint);
        expect(await store.pauses.getPause(input.id)).toEqual(result.view);
      });

      it('recording the same pause twice answers "existed" with the stored pause, and posts nothing twice', async () => {
        const input = newPause();
        const first = await store.pauses.createPause(input);
        const second = await store.pauses.createPause({ ...input, now: T0 + 5_000 });
        expect(second).toEqual({ kind: 'existed', view: first.view });
        const created = (await store.audit.readAudit({ pauseId: input.id })).filter(
          (entry) => entry.event === 'created',
        );
        expect(created).toHaveLength(1);
      });

      it('two replicas recording the same pause at once create it once', async () => {
        const input = newPause();
        const other = await harness.replica();
        const results = await Promise.all([
          store.pauses.createPause(input),
          other.pauses.createPause(input),
        ]);
        expect(kinds(results)).toEqual({ created: 1, existed: 1 });
      });

      it('keeps two pauses apart when a call id repeats across sessions', async () => {
        const older = newPause({ capturedCallIds: true });
        const newer = newPause({ capturedCallIds: true, now: T0 + 1 });
        const callId = firstCallId(older);
        expect(firstCallId(newer)).toBe(callId);
        await store.pauses.createPause(older);
        await store.pauses.createPause(newer);
        const vote = { callId, voter: 'U1', choice: 'approve' as const, now: T0 + 2 };
        expect(await store.pauses.vote({ ...vote, pauseId: newer.id })).toMatchObject({
          kind: 'decided',
          state: 'approved',
        });
        expect((await store.pauses.getPause(older.id))?.gates[0]?.state).toBe('pending');
        expect((await store.pauses.getPause(newer.id))?.gates[0]?.state).toBe('approved');
      });

      it('remembers where the card was posted', async () => {
        const input = newPause();
        await store.pauses.createPause(input);
        const view = await store.pauses.setCardTs(input.id, '1795326458.000200', T0 + 1);
        expect(view?.pause.card.ts).toBe('1795326458.000200');
        expect((await store.pauses.getPause(input.id))?.pause.card.ts).toBe('1795326458.000200');
        expect(await store.pauses.setCardTs('p-missing', '1.2', T0 + 1)).toBeUndefined();
      });

      it('answers not_found for an unknown pause or gate', async () => {
        const input = newPause();
        await store.pauses.createPause(input);
        expect(await store.pauses.getPause('p-missing')).toBeUndefined();
        const vote = { voter: APPROVER, choice: 'approve', now: T0 } as const;
        expect(await store.pauses.vote({ ...vote, pauseId: 'p-missing', callId: 'x' })).toEqual({
          kind: 'not_found',
        });
        expect(await store.pauses.vote({ ...vote, pauseId: input.id, callId: 'other' })).toEqual({
          kind: 'not_found',
        });
        expect(await store.pauses.cancel({ pauseId: 'p-missing', by: 'U1', now: T0 })).toEqual({
          kind: 'not_found',
        });
        const claim = { pauseId: 'p-missing', owner: 'r1', now: T0, leaseMs: LEASE_MS };
        expect(await store.leases.claimResume(claim)).toEqual({ kind: 'not_found' });
        expect(await store.leases.markResumed(claim)).toEqual({ kind: 'not_found' });
      });

      it('a replica that never saw a pause finds its gates by the clicked call id: an unknown one is not_found, the second of two is voted', async () => {
        const single = newPause();
        const double = newPause({ gates: 2 });
        await store.pauses.createPause(single);
        await store.pauses.createPause(double);
        const vote = { voter: APPROVER, choice: 'approve', now: T0 + 1 } as const;
        const cold = await harness.replica();
        expect(await cold.pauses.vote({ ...vote, pauseId: single.id, callId: 'other' })).toEqual({
          kind: 'not_found',
        });
        const second = callIdsOf(double)[1] ?? '';
        const fresh = await harness.replica();
        expect(
          await fresh.pauses.vote({ ...vote, pauseId: double.id, callId: second }),
        ).toMatchObject({
          kind: 'decided',
          state: 'approved',
          pauseDecided: false,
        });
        const gates = (await store.pauses.getPause(double.id))?.gates.map((gate) => gate.state);
        expect(gates).toEqual(['pending', 'approved']);
        expect(
          await cold.pauses.vote({ ...vote, pauseId: single.id, callId: firstCallId(single) }),
        ).toMatchObject({ kind: 'decided', state: 'approved', pauseDecided: true });
      });
    });

    describe('voting on several gates at once (Approve all, Reject all)', () => {
      it('decides every named gate in one step and says the pause is decided', async () => {
        const input = newPause({ gates: 2 });
        await store.pauses.createPause(input);
        const result = await store.pauses.voteAll({
          pauseId: input.id,
          callIds: callIdsOf(input),
          voter: APPROVER,
          choice: 'approve',
          now: T0 + 5,
        });
        if (result.kind !== 'applied') throw new Error(`voteAll answered ${result.kind}`);
        expect(result.results.map(({ result: r }) => r.kind)).toEqual(['decided', 'decided']);
        const last = result.results[1]?.result;
        expect(last?.kind === 'decided' && last.pauseDecided).toBe(true);
        expect(result.view.gates.map((gate) => gate.state)).toEqual(['approved', 'approved']);
        const trail = await store.audit.readAudit({ pauseId: input.id });
        expect(trail.filter((entry) => entry.event === 'approved')).toHaveLength(2);
        expect(await store.leases.dueResumes(T0 + 5)).toContain(input.id);
      });

      it('reports a gate decided before as already decided and still decides the others', async () => {
        const input = newPause({ gates: 2 });
        await store.pauses.createPause(input);
        const [first = '', second = ''] = callIdsOf(input);
        await store.pauses.vote({
          pauseId: input.id,
          callId: first,
          voter: 'U0OTHER',
          choice: 'reject',
          now: T0 + 1,
        });
        const result = await store.pauses.voteAll({
          pauseId: input.id,
          callIds: [first, second],
          voter: APPROVER,
          choice: 'approve',
          now: T0 + 2,
        });
        if (result.kind !== 'applied') throw new Error(`voteAll answered ${result.kind}`);
        expect(result.results.map(({ callId, result: r }) => [callId, r.kind])).toEqual([
          [first, 'already_decided'],
          [second, 'decided'],
        ]);
        expect(result.view.gates.map((gate) => gate.state)).toEqual(['rejected', 'approved']);
      });

      it('answers not_found for an unknown pause or a gate not in it, and changes nothing', async () => {
        const input = newPause({ gates: 2 });
        await store.pauses.createPause(input);
        const vote = { voter: APPROVER, choice: 'approve' as const, now: T0 + 1 };
        expect(await store.pauses.voteAll({ ...vote, pauseId: 'nope', callIds: ['x'] })).toEqual({
          kind: 'not_found',
        });
        expect(
          await store.pauses.voteAll({
            ...vote,
            pauseId: input.id,
            callIds: [firstCallId(input), 'x'],
          }),
        ).toEqual({ kind: 'not_found' });
        const view = await store.pauses.getPause(input.id);
        expect(view?.gates.map((gate) => gate.state)).toEqual(['pending', 'pending']);
      });
    });

    describe('voting', () => {
      it('50 approvers clicking at once from 50 clients record one decision and one resume claim', async () => {
        const input = newPause();
        await store.pauses.createPause(input);
        const clients = await Promise.all(Array.from({ length: 50 }, () => harness.replica()));
        const votes = await Promise.all(
          clients.map((client, i) =>
            client.pauses.vote({
              pauseId: input.id,
              callId: firstCallId(input),
              voter: `U${i}`,
              choice: 'approve',
              now: T0 + 10,
            }),
          ),
        );
        expect(kinds(votes)).toEqual({ decided: 1, already_decided: 49 });
        const winner = votes.find((v) => v.kind === 'decided');
        const gate = (await store.pauses.getPause(input.id))?.gates[0];
        expect(gate?.state).toBe('approved');
        expect(gate?.votes).toHaveLength(1);
        expect(gate?.decision?.by).toBe(gate?.votes[0]?.voter);
        expect(winner?.kind === 'decided' && winner.pauseDecided).toBe(true);

        const claims = await Promise.all(
          clients.map((client, i) =>
            client.leases.claimResume({
              pauseId: input.id,
              owner: `r${i}`,
              now: T0 + 20,
              leaseMs: LEASE_MS,
            }),
          ),
        );
        expect(kinds(claims)).toEqual({ claimed: 1, leased: 49 });
        expect((await store.pauses.getPause(input.id))?.pause.resume.attempts).toBe(1);
      });

      it("a vote given the gates' version its voter was checked at is applied only to those gates: else stale, with the pause as it is, and nothing written", async () => {
        const input = newPause({ policies: [policy({ quorum: 2 })] });
        const { view } = await store.pauses.createPause(input);
        const checkedGatesVersion = gatesVersion(view);
        const vote = { pauseId: input.id, callId: firstCallId(input), choice: 'approve' as const };
        // A change of the pause's own (its card posted) leaves the gates as they were checked.
        await store.pauses.setCardTs(input.id, '1700000000.000100', T0);
        const first = await store.pauses.vote({
          ...vote,
          voter: 'U1',
          now: T0 + 1,
          checkedGatesVersion,
        });
        expect(first).toMatchObject({ kind: 'counted', approvals: 1 });
        // U2 was checked on the pause as it was before U1's vote.
        const stale = await store.pauses.vote({
          ...vote,
          voter: 'U2',
          now: T0 + 2,
          checkedGatesVersion,
        });
        const current = await store.pauses.getPause(input.id);
        expect(stale).toEqual({ kind: 'stale', view: current });
        expect(current?.gates[0]?.votes.map((each) => each.voter)).toEqual(['U1']);
        const trail = await store.audit.readAudit({ pauseId: input.id });
        expect(trail.map((entry) => entry.event)).toEqual(['created', 'card_posted', 'voted']);
        if (current === undefined) throw new Error('the pause is gone');
        const checkedAgain = {
          voter: 'U2',
          now: T0 + 3,
          checkedGatesVersion: gatesVersion(current),
        };
        expect(await store.pauses.vote({ ...vote, ...checkedAgain })).toMatchObject({
          kind: 'decided',
          state: 'approved',
        });
      });

      it('two replicas racing on many gates decide each once and claim each once', async () => {
        const other = await harness.replica();
        const inputs = Array.from({ length: 20 }, () => newPause());
        await Promise.all(inputs.map((input) => store.pauses.createPause(input)));
        const votes = await Promise.all(
          inputs.flatMap((input) =>
            [store, other].map((replica, i) =>
              replica.pauses.vote({
                pauseId: input.id,
                callId: firstCallId(input),
                voter: `U${i}`,
                choice: i === 0 ? 'approve' : 'reject',
                now: T0 + 1,
              }),
            ),
          ),
        );
        expect(kinds(votes)).toEqual({ decided: 20, already_decided: 20 });
        const claims = await Promise.all(
          inputs.flatMap((input) =>
            [store, other].map((replica, i) =>
              replica.leases.claimResume({
                pauseId: input.id,
                owner: `r${i}`,
                now: T0 + 2,
                leaseMs: LEASE_MS,
              }),
            ),
          ),
        );
        expect(kinds(claims)).toEqual({ claimed: 20, leased: 20 });
      });

      it('an input gate keeps its kind and request, and one answer decides it whatever the quorum', async () => {
        const base = newPause({ policies: [policy({ quorum: 3, onExpiry: 'reject' })] });
        const [gate] = base.gates;
        if (gate === undefined) throw new Error('expected a gate');
        const input = {
          ...base,
          gates: [
            {
              ...gate,
              kind: 'input' as const,
              input: { message: 'Which cost center?', responseSchema: { type: 'object' } },
            },
          ],
        };
        await store.pauses.createPause(input);
        const recorded = (await store.pauses.getPause(input.id))?.gates[0];
        expect(recorded).toMatchObject({
          kind: 'input',
          input: { message: 'Which cost center?' },
          policy: { quorum: 1, onExpiry: 'cancel' },
        });
        const answer = { cost_center: 'CC-1234' };
        const result = await store.pauses.vote({
          pauseId: input.id,
          callId: firstCallId(input),
          voter: APPROVER,
          choice: 'approve',
          payload: answer,
          now: T0 + 1,
        });
        expect(result).toMatchObject({ kind: 'decided', state: 'approved', pauseDecided: true });
        const decided = (await store.pauses.getPause(input.id))?.gates[0];
        expect(decided?.decision?.payload).toEqual(answer);
      });

      it('the same voter twice counts once', async () => {
        const input = newPause({ policies: [policy({ quorum: 2 })] });
        await store.pauses.createPause(input);
        const vote = {
          pauseId: input.id,
          callId: firstCallId(input),
          voter: APPROVER,
          choice: 'approve',
          now: T0 + 1,
        } as const;
        const first = await store.pauses.vote(vote);
        expect(first).toMatchObject({ kind: 'counted', approvals: 1, quorum: 2 });
        const again = await store.pauses.vote({ ...vote, now: T0 + 2 });
        expect(again.kind).toBe('already_voted');
        const gate = (await store.pauses.getPause(input.id))?.gates[0];
        expect(gate?.state).toBe('pending');
        expect(gate?.votes).toHaveLength(1);
      });

      it('a quorum of 2 needs two distinct approvers, and keeps the latest edited payload', async () => {
        const input = newPause({ policies: [policy({ quorum: 2 })] });
        await store.pauses.createPause(input);
        const callId = firstCallId(input);
        const edited = { amount: 50, note: ['split', 'in', 'two'], empty: [] };
        const first = await store.pauses.vote({
          pauseId: input.id,
          callId,
          voter: 'U1',
          choice: 'approve',
          payload: edited,
          now: T0 + 1,
        });
        expect(first).toMatchObject({ kind: 'counted', approvals: 1, quorum: 2 });
        const second = decided(
          await store.pauses.vote({
            pauseId: input.id,
            callId,
            voter: 'U2',
            choice: 'approve',
            now: T0 + 2,
          }),
        );
        expect(second.state).toBe('approved');
        expect(second.pauseDecided).toBe(true);
        const gate = second.view.gates[0];
        expect(gate?.decision).toEqual({ by: 'U2', at: T0 + 2, payload: edited });
        expect(gate?.votes.map((v) => v.voter)).toEqual(['U1', 'U2']);
        expect(gate?.votes[0]?.payload).toEqual(edited);
        expect(gate?.version).toBeGreaterThan(1);
      });

      it("the deciding approver's own payload wins; without any payload the decision has none", async () => {
        const withOwn = newPause({ policies: [policy({ quorum: 2 })] });
        const withNone = newPause();
        await store.pauses.createPause(withOwn);
        await store.pauses.createPause(withNone);
        const callId = firstCallId(withOwn);
        const base = { pauseId: withOwn.id, callId, choice: 'approve', now: T0 + 1 } as const;
        await store.pauses.vote({ ...base, voter: 'U1', payload: { amount: 1 } });
        const own = decided(
          await store.pauses.vote({ ...base, voter: 'U2', payload: { amount: 2.5 } }),
        );
        expect(own.view.gates[0]?.decision?.payload).toEqual({ amount: 2.5 });
        const none = decided(
          await store.pauses.vote({
            pauseId: withNone.id,
            callId: firstCallId(withNone),
            voter: 'U1',
            choice: 'approve',
            now: T0 + 1,
          }),
        );
        expect(none.view.gates[0]?.decision).toEqual({ by: 'U1', at: T0 + 1 });
      });

      it('a reject after an approval but before the quorum decides the gate rejected', async () => {
        const input = newPause({ policies: [policy({ quorum: 2 })] });
        await store.pauses.createPause(input);
        const callId = firstCallId(input);
        await store.pauses.vote({
          pauseId: input.id,
          callId,
          voter: 'U1',
          choice: 'approve',
          now: T0 + 1,
        });
        const reject = decided(
          await store.pauses.vote({
            pauseId: input.id,
            callId,
            voter: 'U2',
            choice: 'reject',
            reason: 'wrong account',
            now: T0 + 2,
          }),
        );
        expect(reject.state).toBe('rejected');
        expect(reject.view.gates[0]?.decision).toEqual({
          by: 'U2',
          at: T0 + 2,
          reason: 'wrong account',
        });
      });

      it('a vote after the decision is told who decided and when, and changes nothing', async () => {
        const input = newPause();
        await store.pauses.createPause(input);
        const callId = firstCallId(input);
        await store.pauses.vote({
          pauseId: input.id,
          callId,
          voter: 'U1',
          choice: 'reject',
          now: T0 + 1,
        });
        const before = await store.pauses.getPause(input.id);
        const late = await store.pauses.vote({
          pauseId: input.id,
          callId,
          voter: 'U2',
          choice: 'approve',
          now: T0 + 2,
        });
        expect(late).toMatchObject({
          kind: 'already_decided',
          state: 'rejected',
          decision: { by: 'U1', at: T0 + 1 },
        });
        expect(await store.pauses.getPause(input.id)).toEqual(before);
      });

      it('a vote at or after expiresAt applies the expiry instead and never approves', async () => {
        const input = newPause({ policies: [policy({ expiresInMs: 1_000 })] });
        await store.pauses.createPause(input);
        const result = await store.pauses.vote({
          pauseId: input.id,
          callId: firstCallId(input),
          voter: APPROVER,
          choice: 'approve',
          now: T0 + 1_000,
        });
        expect(result).toMatchObject({ kind: 'expired', state: 'expired', pauseDecided: true });
        const gate = (await store.pauses.getPause(input.id))?.gates[0];
        expect(gate?.state).toBe('expired');
        expect(gate?.votes).toEqual([]);
        expect(gate?.decision).toEqual({ by: SYSTEM_ACTOR, at: T0 + 1_000 });
        expect(await store.sweeps.expireDue(T0 + 2_000)).toEqual([]);
      });
    });

    describe('expiry', () => {
      it('two replicas sweeping at once expire each due gate exactly once', async () => {
        const other = await harness.replica();
        const due = Array.from({ length: 30 }, () =>
          newPause({ policies: [policy({ expiresInMs: 1_000 })] }),
        );
        const later = newPause({ policies: [policy({ expiresInMs: 10_000 })] });
        const never = newPause();
        await Promise.all([...due, later, never].map((input) => store.pauses.createPause(input)));
        const [mine, theirs] = await Promise.all([
          store.sweeps.expireDue(T0 + 1_000, 1_000),
          other.sweeps.expireDue(T0 + 1_000, 1_000),
        ]);
        const expired = [...mine, ...theirs].map((gate) => gate.callId).sort();
        expect(expired).toEqual(due.map(firstCallId).sort());
        for (const gate of [...mine, ...theirs]) {
          expect(gate.state).toBe('expired');
          expect(gate.pauseDecided).toBe(true);
          expect(gate.view.gates[0]?.state).toBe('expired');
        }
        expect(await store.sweeps.expireDue(T0 + 1_000, 1_000)).toEqual([]);
        expect((await store.pauses.getPause(later.id))?.gates[0]?.state).toBe('pending');
        expect((await store.pauses.getPause(never.id))?.gates[0]?.state).toBe('pending');
        const swept = await store.sweeps.expireDue(T0 + 10_000);
        expect(swept.map((gate) => gate.callId)).toEqual([firstCallId(later)]);
      });

      it('expireDue hands out at most `limit` gates per call, the rest on the next call', async () => {
        const inputs = Array.from({ length: 5 }, () =>
          newPause({ policies: [policy({ expiresInMs: 1_000 })] }),
        );
        await Promise.all(inputs.map((input) => store.pauses.createPause(input)));
        const first = await store.sweeps.expireDue(T0 + 1_000, 3);
        const second = await store.sweeps.expireDue(T0 + 1_000, 3);
        expect(first).toHaveLength(3);
        expect(second).toHaveLength(2);
      });

      it('an expiry with onExpiry "cancel" cancels the whole pause, which is never resumed', async () => {
        const input = newPause({
          gates: 2,
          policies: [policy({ expiresInMs: 1_000, onExpiry: 'cancel' }), policy()],
        });
        await store.pauses.createPause(input);
        const [expired] = await store.sweeps.expireDue(T0 + 1_000);
        expect(expired).toMatchObject({
          callId: firstCallId(input),
          state: 'cancelled',
          pauseDecided: true,
        });
        const view = await store.pauses.getPause(input.id);
        expect(view?.gates.map((g) => g.state)).toEqual(['cancelled', 'cancelled']);
        expect(view?.gates[1]?.decision?.by).toBe(SYSTEM_ACTOR);
        expect(view?.pause.resume.state).toBe('abandoned');
        expect(await store.leases.dueResumes(T0 + 100_000)).toEqual([]);
        const claim = await store.leases.claimResume({
          pauseId: input.id,
          owner: 'r1',
          now: T0 + 2_000,
          leaseMs: LEASE_MS,
        });
        expect(claim.kind).toBe('finished');
      });
    });

    describe('cancelling', () => {
      it('cancels every pending gate and abandons the pause', async () => {
        const input = newPause({ gates: 2 });
        await store.pauses.createPause(input);
        const [first, second] = callIdsOf(input);
        await store.pauses.vote({
          pauseId: input.id,
          callId: first ?? '',
          voter: 'U1',
          choice: 'approve',
          now: T0 + 1,
        });
        const result = await store.pauses.cancel({
          pauseId: input.id,
          by: 'U9',
          reason: 'not today',
          now: T0 + 2,
        });
        expect(result).toMatchObject({ kind: 'cancelled', callIds: [second] });
        if (result.kind !== 'cancelled') return;
        expect(result.view.gates.map((g) => g.state)).toEqual(['approved', 'cancelled']);
        expect(result.view.gates[1]?.decision).toEqual({
          by: 'U9',
          at: T0 + 2,
          reason: 'not today',
        });
        expect(result.view.pause.resume.state).toBe('abandoned');
        expect((await store.pauses.cancel({ pauseId: input.id, by: 'U9', now: T0 + 3 })).kind).toBe(
          'nothing_pending',
        );
        const claim = await store.leases.claimResume({
          pauseId: input.id,
          owner: 'r1',
          now: T0 + 4,
          leaseMs: LEASE_MS,
        });
        expect(claim.kind).toBe('finished');
      });
    });

    describe('withdrawing', () => {
      it('withdraws every pending gate once, leaves decided ones, and makes the resume due (not abandoned)', async () => {
        const input = newPause({ gates: 2 });
        await store.pauses.createPause(input);
        const [first, second] = callIdsOf(input);
        await store.pauses.vote({
          pauseId: input.id,
          callId: first ?? '',
          voter: 'U1',
          choice: 'approve',
          now: T0 + 1,
        });
        const other = await harness.replica();
        const [mine, theirs] = await Promise.all([
          store.pauses.withdraw({
            pauseId: input.id,
            by: 'U9',
            reason: 'wrong service',
            now: T0 + 2,
          }),
          other.pauses.withdraw({ pauseId: input.id, by: 'U9', now: T0 + 2 }),
        ]);
        expect(kinds([mine, theirs])).toEqual({ withdrawn: 1, nothing_pending: 1 });
        const result = mine.kind === 'withdrawn' ? mine : theirs;
        expect(result).toMatchObject({ kind: 'withdrawn', callIds: [second] });
        if (result.kind !== 'withdrawn') return;
        expect(result.view.gates.map((g) => g.state)).toEqual(['approved', 'withdrawn']);
        expect(result.view.gates[1]?.decision?.by).toBe('U9');
        expect(result.view.pause.resume.state).toBe('idle');
        expect(await store.leases.dueResumes(T0 + 3)).toContain(input.id);
        const claim = await store.leases.claimResume({
          pauseId: input.id,
          owner: 'r1',
          now: T0 + 4,
          leaseMs: LEASE_MS,
        });
        expect(claim.kind).toBe('claimed');
        const trail = await store.audit.readAudit({ pauseId: input.id });
        expect(trail.filter((entry) => entry.event === 'withdrawn')).toEqual([
          expect.objectContaining({ actor: 'U9', callId: second }),
        ]);
      });

      it('a vote after a withdraw is refused as withdrawn by its withdrawer; a withdraw after a decision changes nothing', async () => {
        const input = newPause();
        await store.pauses.createPause(input);
        await store.pauses.withdraw({ pauseId: input.id, by: 'U9', now: T0 + 1 });
        const late = await store.pauses.vote({
          pauseId: input.id,
          callId: firstCallId(input),
          voter: APPROVER,
          choice: 'approve',
          now: T0 + 2,
        });
        expect(late).toMatchObject({
          kind: 'already_decided',
          state: 'withdrawn',
          decision: { by: 'U9', at: T0 + 1 },
        });

        const decidedFirst = newPause();
        await store.pauses.createPause(decidedFirst);
        await store.pauses.vote({
          pauseId: decidedFirst.id,
          callId: firstCallId(decidedFirst),
          voter: APPROVER,
          choice: 'reject',
          now: T0 + 1,
        });
        const withdraw = await store.pauses.withdraw({
          pauseId: decidedFirst.id,
          by: 'U9',
          now: T0 + 2,
        });
        expect(withdraw.kind).toBe('nothing_pending');
        if (withdraw.kind !== 'nothing_pending') return;
        expect(withdraw.view.gates[0]?.state).toBe('rejected');
        expect(await store.pauses.withdraw({ pauseId: 'p-missing', by: 'U9', now: T0 })).toEqual({
          kind: 'not_found',
        });
      });
    });

    describe('resuming', () => {
      async function decidedPause() {
        const input = newPause();
        await store.pauses.createPause(input);
        await store.pauses.vote({
          pauseId: input.id,
          callId: firstCallId(input),
          voter: APPROVER,
          choice: 'approve',
          now: T0 + 1,
        });
        return input.id;
      }

      it('a vote that decides the pause claims its resume for the claim’s owner in the same step; one that does not decide claims nothing', async () => {
        const input = newPause({ gates: 2 });
        await store.pauses.createPause(input);
        const [first = '', second = ''] = callIdsOf(input);
        const resumeClaim = { owner: 'r1', leaseMs: LEASE_MS };
        const vote = {
          pauseId: input.id,
          voter: APPROVER,
          choice: 'approve' as const,
          resumeClaim,
        };
        const counted = await store.pauses.vote({ ...vote, callId: first, now: T0 + 1 });
        expect(counted).toMatchObject({ kind: 'decided', pauseDecided: false });
        expect(decided(counted).claimed).toBeUndefined();
        expect(counted.kind === 'decided' && counted.view.pause.resume.state).toBe('idle');

        const last = decided(await store.pauses.vote({ ...vote, callId: second, now: T0 + 2 }));
        expect(last).toMatchObject({ pauseDecided: true, claimed: { attempt: 1 } });
        expect(last.view.pause.resume).toMatchObject({
          state: 'resuming',
          leaseOwner: 'r1',
          leaseUntil: T0 + 2 + LEASE_MS,
          attempts: 1,
        });
        // Held as claimResume's lease is: not due, not claimed by another, due once it lapses.
        const other = await harness.replica();
        expect(
          await other.leases.claimResume({
            pauseId: input.id,
            owner: 'r2',
            now: T0 + 3,
            leaseMs: 1,
          }),
        ).toMatchObject({ kind: 'leased', leaseUntil: T0 + 2 + LEASE_MS });
        expect(await store.leases.dueResumes(T0 + 3)).not.toContain(input.id);
        expect(await store.leases.dueResumes(T0 + 2 + LEASE_MS)).toContain(input.id);
        // The owner renews and finishes it as a claim's.
        expect(
          (
            await store.leases.renewLease({
              pauseId: input.id,
              owner: 'r1',
              now: T0 + 4,
              leaseMs: LEASE_MS,
            })
          ).kind,
        ).toBe('renewed');
        const trail = await store.audit.readAudit({ pauseId: input.id });
        expect(trail.slice(-3).map((entry) => [entry.event, entry.actor])).toEqual([
          ['voted', APPROVER],
          ['approved', APPROVER],
          ['resume_claimed', 'r1'],
        ]);
        expect(trail.at(-1)?.detail).toBe(`attempt=1 lease_ms=${LEASE_MS}`);
        expect(
          (await store.leases.markResumed({ pauseId: input.id, owner: 'r1', now: T0 + 5 })).kind,
        ).toBe('ok');
      });

      it('a deciding vote claims nothing while an undo window holds the resume', async () => {
        const input = newPause({ policies: [policy({ undoWindowMs: 30_000 })] });
        await store.pauses.createPause(input);
        const result = decided(
          await store.pauses.vote({
            pauseId: input.id,
            callId: firstCallId(input),
            voter: APPROVER,
            choice: 'approve',
            resumeClaim: { owner: 'r1', leaseMs: LEASE_MS },
            now: T0 + 1,
          }),
        );
        expect(result.pauseDecided).toBe(true);
        expect(result.claimed).toBeUndefined();
        expect(result.view.pause.resume).toMatchObject({ state: 'idle', holdUntil: T0 + 30_001 });
        expect(await store.leases.dueResumes(T0 + 30_001)).toContain(input.id);
      });

      it('a renewed lease keeps others out past its first end; a lapsed one is taken over, and its old owner can no longer renew', async () => {
        const pauseId = await decidedPause();
        const other = await harness.replica();
        const lease = { pauseId, leaseMs: 1_000 };
        await store.leases.claimResume({ ...lease, owner: 'r1', now: T0 + 10 });
        expect(await store.leases.renewLease({ ...lease, owner: 'r1', now: T0 + 900 })).toEqual({
          kind: 'renewed',
          leaseUntil: T0 + 1_900,
        });
        expect(
          await other.leases.claimResume({ ...lease, owner: 'r2', now: T0 + 1_500 }),
        ).toMatchObject({
          kind: 'leased',
          leaseUntil: T0 + 1_900,
        });
        expect(await store.leases.dueResumes(T0 + 1_500)).not.toContain(pauseId);
        expect(await store.leases.dueResumes(T0 + 1_900)).toContain(pauseId);
        expect(
          await other.leases.claimResume({ ...lease, owner: 'r2', now: T0 + 1_901 }),
        ).toMatchObject({
          kind: 'claimed',
          attempt: 2,
        });
        expect(await store.leases.renewLease({ ...lease, owner: 'r1', now: T0 + 1_950 })).toEqual({
          kind: 'lost_lease',
        });
        expect(
          await store.leases.renewLease({ ...lease, pauseId: 'nope', owner: 'r1', now: T0 }),
        ).toEqual({
          kind: 'not_found',
        });
      });

      it('an approval the re-check refuses goes back to pending: votes cleared, why kept, the resume idle, listed again, in the audit', async () => {
        const pauseId = await decidedPause();
        const view = await store.pauses.getPause(pauseId);
        const callId = view?.pause.callIds[0] ?? '';
        const lease = { pauseId, leaseMs: LEASE_MS };
        await store.leases.claimResume({ ...lease, owner: 'r1', now: T0 + 10 });
        const why = 'not among the approvers of rule defaults now';
        const sendBack = { pauseId, callIds: [callId], voter: APPROVER, why };
        expect((await store.pauses.reopen({ ...sendBack, owner: 'r2', now: T0 + 11 })).kind).toBe(
          'lost_lease',
        );
        const result = await store.pauses.reopen({ ...sendBack, owner: 'r1', now: T0 + 12 });
        expect(result).toMatchObject({ kind: 'reopened', callIds: [callId] });
        const gate = (await store.pauses.getPause(pauseId))?.gates[0];
        expect(gate).toMatchObject({
          state: 'pending',
          votes: [],
          reopened: { at: T0 + 12, voter: APPROVER, why },
        });
        expect(gate?.decision).toBeUndefined();
        const after = await store.pauses.getPause(pauseId);
        expect(after?.pause.resume.state).toBe('idle');
        expect(after?.pause.resume.leaseOwner).toBeUndefined();
        // Not due: nothing is decided any more.
        expect(await store.leases.dueResumes(T0 + 20)).not.toContain(pauseId);
        expect(await store.pending.listPendingByApprover(APPROVER)).toContainEqual({
          pauseId,
          callId,
        });
        const trail = await store.audit.readAudit({ pauseId });
        expect(trail.at(-1)).toMatchObject({
          event: 'reopened',
          actor: 'r1',
          callId,
          detail: `approval of ${APPROVER} no longer holds: ${why}`,
        });
        // The same person may decide again, and the pause resumes once.
        const again = await store.pauses.vote({
          pauseId,
          callId,
          voter: APPROVER,
          choice: 'reject',
          now: T0 + 30,
        });
        expect(again).toMatchObject({ kind: 'decided', state: 'rejected', pauseDecided: true });
        expect(await store.leases.dueResumes(T0 + 31)).toContain(pauseId);
        expect((await store.leases.claimResume({ ...lease, owner: 'r3', now: T0 + 31 })).kind).toBe(
          'claimed',
        );
      });

      it('an undo window holds the resume until its end: not claimed, not due; then claimed once', async () => {
        const input = newPause({ policies: [policy({ undoWindowMs: 30_000 })] });
        await store.pauses.createPause(input);
        const callId = firstCallId(input);
        await store.pauses.vote({
          pauseId: input.id,
          callId,
          voter: APPROVER,
          choice: 'approve',
          now: T0 + 1,
        });
        const view = await store.pauses.getPause(input.id);
        expect(view?.pause.resume).toMatchObject({ state: 'idle', holdUntil: T0 + 30_001 });
        const claim = { pauseId: input.id, leaseMs: LEASE_MS };
        expect(
          await store.leases.claimResume({ ...claim, owner: 'r1', now: T0 + 2 }),
        ).toMatchObject({
          kind: 'held',
          until: T0 + 30_001,
        });
        expect(await store.leases.dueResumes(T0 + 30_000)).not.toContain(input.id);
        expect(await store.leases.dueResumes(T0 + 30_001)).toContain(input.id);
        expect(
          (await store.leases.claimResume({ ...claim, owner: 'r1', now: T0 + 30_001 })).kind,
        ).toBe('claimed');
        expect(
          (
            await store.pauses.undo({
              pauseId: input.id,
              by: APPROVER,
              admin: false,
              now: T0 + 30_002,
            })
          ).kind,
        ).toBe('too_late');
      });

      it('undo in the window: only the approver or an admin; the gate is pending again, the hold ended, in the audit', async () => {
        const input = newPause({ policies: [policy({ undoWindowMs: 30_000 })] });
        await store.pauses.createPause(input);
        const callId = firstCallId(input);
        await store.pauses.vote({
          pauseId: input.id,
          callId,
          voter: APPROVER,
          choice: 'approve',
          now: T0 + 1,
        });
        const undo = (by: string, admin: boolean, now: number) =>
          store.pauses.undo({ pauseId: input.id, by, admin, now });
        expect((await undo('U0SOMEONE', false, T0 + 5)).kind).toBe('not_decider');
        const undone = await undo(APPROVER, false, T0 + 6);
        expect(undone).toMatchObject({ kind: 'undone', callIds: [callId] });
        const view = await store.pauses.getPause(input.id);
        expect(view?.gates[0]).toMatchObject({
          state: 'pending',
          votes: [],
          reopened: { at: T0 + 6, voter: APPROVER, kind: 'undo' },
        });
        expect(view?.pause.resume.holdUntil).toBeUndefined();
        expect((await store.audit.readAudit({ pauseId: input.id })).at(-1)).toMatchObject({
          event: 'undone',
          actor: APPROVER,
          callId,
        });
        // Decided again, and an admin undoes it.
        await store.pauses.vote({
          pauseId: input.id,
          callId,
          voter: APPROVER,
          choice: 'approve',
          now: T0 + 7,
        });
        expect((await undo('U0ADMIN', true, T0 + 8)).kind).toBe('undone');
        expect((await store.pauses.getPause(input.id))?.gates[0]?.state).toBe('pending');
        expect((await undo(APPROVER, false, T0 + 9)).kind).toBe('too_late');
      });

      it('re-check: a rejected gate is never sent back', async () => {
        const input = newPause();
        await store.pauses.createPause(input);
        const callId = firstCallId(input);
        await store.pauses.vote({
          pauseId: input.id,
          callId,
          voter: APPROVER,
          choice: 'reject',
          now: T0 + 1,
        });
        await store.leases.claimResume({
          pauseId: input.id,
          owner: 'r1',
          now: T0 + 2,
          leaseMs: LEASE_MS,
        });
        const result = await store.pauses.reopen({
          pauseId: input.id,
          owner: 'r1',
          callIds: [callId],
          voter: APPROVER,
          why: 'x',
          now: T0 + 3,
        });
        expect(result).toMatchObject({ kind: 'reopened', callIds: [] });
        expect((await store.pauses.getPause(input.id))?.pause.resume.state).toBe('resuming');
      });

      it('cannot be claimed while a gate is pending', async () => {
        const input = newPause({ gates: 2 });
        await store.pauses.createPause(input);
        await store.pauses.vote({
          pauseId: input.id,
          callId: firstCallId(input),
          voter: 'U1',
          choice: 'approve',
          now: T0 + 1,
        });
        const claim = await store.leases.claimResume({
          pauseId: input.id,
          owner: 'r1',
          now: T0 + 2,
          leaseMs: LEASE_MS,
        });
        expect(claim.kind).toBe('not_decided');
      });

      it('a claim holds a lease; a lapsed lease is taken over and the old owner loses it', async () => {
        const pauseId = await decidedPause();
        const claim = await store.leases.claimResume({
          pauseId,
          owner: 'r1',
          now: T0 + 10,
          leaseMs: LEASE_MS,
        });
        expect(claim).toMatchObject({ kind: 'claimed', attempt: 1 });
        expect(claim.kind === 'claimed' && claim.view.pause.resume).toMatchObject({
          state: 'resuming',
          leaseOwner: 'r1',
          leaseUntil: T0 + 10 + LEASE_MS,
          attempts: 1,
        });
        const during = await store.leases.claimResume({
          pauseId,
          owner: 'r2',
          now: T0 + 20,
          leaseMs: LEASE_MS,
        });
        expect(during).toMatchObject({ kind: 'leased', leaseUntil: T0 + 10 + LEASE_MS });
        const ownAgain = await store.leases.claimResume({
          pauseId,
          owner: 'r1',
          now: T0 + 20,
          leaseMs: LEASE_MS,
        });
        expect(ownAgain.kind).toBe('leased');

        const lapsed = T0 + 10 + LEASE_MS;
        const takeover = await store.leases.claimResume({
          pauseId,
          owner: 'r2',
          now: lapsed,
          leaseMs: LEASE_MS,
        });
        expect(takeover).toMatchObject({ kind: 'claimed', attempt: 2 });
        expect(
          await store.leases.markResumed({ pauseId, owner: 'r1', now: lapsed + 1 }),
        ).toMatchObject({
          kind: 'lost_lease',
        });
        const done = await store.leases.markResumed({ pauseId, owner: 'r2', now: lapsed + 2 });
        expect(done.kind).toBe('ok');
        expect(done.kind === 'ok' && done.view.pause.resume).toMatchObject({
          state: 'resumed',
          leaseOwner: 'r2',
        });
        // The same owner repeating its call gets the same answer.
        expect(
          (await store.leases.markResumed({ pauseId, owner: 'r2', now: lapsed + 3 })).kind,
        ).toBe('ok');
        const after = await store.leases.claimResume({
          pauseId,
          owner: 'r3',
          now: lapsed + 4,
          leaseMs: LEASE_MS,
        });
        expect(after.kind).toBe('finished');
      });

      it('a failed resume is claimed again only by a Retry', async () => {
        const pauseId = await decidedPause();
        await store.leases.claimResume({ pauseId, owner: 'r1', now: T0 + 10, leaseMs: LEASE_MS });
        const failed = await store.leases.markResumeFailed({
          pauseId,
          owner: 'r1',
          now: T0 + 20,
          error: 'ADK 503',
        });
        expect(failed.kind === 'ok' && failed.view.pause.resume).toMatchObject({
          state: 'failed',
          lastError: 'ADK 503',
        });
        expect(await store.leases.dueResumes(T0 + 10 * LEASE_MS)).toEqual([]);
        const automatic = await store.leases.claimResume({
          pauseId,
          owner: 'r3',
          now: T0 + 25,
          leaseMs: LEASE_MS,
        });
        expect(automatic.kind).toBe('awaiting_retry');
        const retry = await store.leases.claimResume({
          pauseId,
          owner: 'r2',
          now: T0 + 30,
          leaseMs: LEASE_MS,
          retryFailed: true,
        });
        expect(retry).toMatchObject({ kind: 'claimed', attempt: 2, retried: true });
        expect((await store.leases.markResumed({ pauseId, owner: 'r2', now: T0 + 40 })).kind).toBe(
          'ok',
        );
      });

      it('a refused resume is finished: neither the sweeper nor a Retry claims it again', async () => {
        const pauseId = await decidedPause();
        const first = await store.leases.claimResume({
          pauseId,
          owner: 'r1',
          now: T0 + 10,
          leaseMs: LEASE_MS,
        });
        expect(first).toMatchObject({ kind: 'claimed', attempt: 1, retried: false });
        const refused = await store.leases.markResumeRefused({
          pauseId,
          owner: 'r1',
          now: T0 + 20,
          error: 'confirmation_not_required',
        });
        expect(refused.kind === 'ok' && refused.view.pause.resume).toMatchObject({
          state: 'refused',
          lastError: 'confirmation_not_required',
        });
        expect(await store.leases.dueResumes(T0 + 10 * LEASE_MS)).toEqual([]);
        const retry = await store.leases.claimResume({
          pauseId,
          owner: 'r2',
          now: T0 + 30,
          leaseMs: LEASE_MS,
          retryFailed: true,
        });
        expect(retry.kind).toBe('finished');
        const trail = await store.audit.readAudit({ pauseId });
        expect(trail.map((entry) => entry.event)).toContain('resume_refused');
      });

      it('a handed-over decision the agent refused becomes refused, once, with its words and a trail entry; a resume not handed over is left alone', async () => {
        const pauseId = await decidedPause();
        const refusal = {
          pauseId,
          actor: 'api:k',
          error: 'Tool confirmation rejected: confirmation_not_required.',
          at: T0 + 5,
        };
        // Decided, not handed over yet (idle), then while handed over (resuming).
        expect(await store.reports.refuseHandOver(refusal)).toBe('not_handed_over');
        await store.leases.claimResume({ pauseId, owner: 'r1', now: T0 + 10, leaseMs: LEASE_MS });
        expect(await store.reports.refuseHandOver(refusal)).toBe('not_handed_over');
        expect((await store.leases.markResumed({ pauseId, owner: 'r1', now: T0 + 20 })).kind).toBe(
          'ok',
        );
        const replica = await harness.replica();
        expect(await replica.reports.refuseHandOver({ ...refusal, at: T0 + 30 })).toBe('refused');
        expect(await store.reports.refuseHandOver({ ...refusal, at: T0 + 40 })).toBe(
          'not_handed_over',
        );
        expect((await replica.pauses.getPause(pauseId))?.pause.resume).toMatchObject({
          state: 'refused',
          lastError: refusal.error,
          at: T0 + 30,
        });
        const trail = await replica.audit.readAudit({ pauseId });
        const refused = trail.filter((entry) => entry.event === 'resume_refused');
        expect(refused.map((e) => [e.actor, e.detail])).toEqual([
          ['api:k', `error_length=${refusal.error.length}`],
        ]);
        expect(JSON.stringify(trail)).not.toContain('confirmation_not_required');
        expect(await store.reports.refuseHandOver({ ...refusal, pauseId: 'p-none' })).toBe(
          'not_found',
        );
      });

      it('dueResumes lists decided-unclaimed and lapsed pauses, not live leases, failed or pending ones', async () => {
        const unclaimed = await decidedPause();
        const live = await decidedPause();
        const lapsed = await decidedPause();
        const failed = await decidedPause();
        const resumed = await decidedPause();
        const pending = newPause();
        await store.pauses.createPause(pending);
        const now = T0 + 100;
        await store.leases.claimResume({ pauseId: live, owner: 'r1', now, leaseMs: LEASE_MS });
        await store.leases.claimResume({ pauseId: lapsed, owner: 'r1', now: T0 + 2, leaseMs: 10 });
        await store.leases.claimResume({ pauseId: failed, owner: 'r1', now, leaseMs: LEASE_MS });
        await store.leases.markResumeFailed({ pauseId: failed, owner: 'r1', now, error: 'boom' });
        await store.leases.claimResume({ pauseId: resumed, owner: 'r1', now, leaseMs: LEASE_MS });
        await store.leases.markResumed({ pauseId: resumed, owner: 'r1', now });
        const due = await store.leases.dueResumes(now);
        expect([...due].sort()).toEqual([unclaimed, lapsed].sort());
        // Once the live lease lapses it is due too.
        const later = await store.leases.dueResumes(now + LEASE_MS);
        expect([...later].sort()).toEqual([unclaimed, live, lapsed].sort());
      });
    });

    describe('listing pending gates', () => {
      it('by explicit user approver and by requester, until they are decided', async () => {
        const a = newPause({ gates: 2 });
        const b = newPause({
          channelId: 'C0OTHER',
          policies: [policy({ approvers: [{ kind: 'user', id: 'U0OTHER' }] })],
        });
        await store.pauses.createPause(a);
        await store.pauses.createPause(b);
        const refs = (pauseId: string, callIds: string[]) =>
          callIds.map((callId) => ({ pauseId, callId }));
        const sorted = <T extends { callId: string }>(list: T[]) =>
          [...list].sort((x, y) => x.callId.localeCompare(y.callId));
        const byRequester = { kind: 'requester', id: a.requester } as const;
        expect(sorted(await store.pending.listPending(byRequester))).toEqual(
          sorted([...refs(a.id, callIdsOf(a)), ...refs(b.id, callIdsOf(b))]),
        );
        expect(sorted(await store.pending.listPendingByApprover(APPROVER))).toEqual(
          sorted(refs(a.id, callIdsOf(a))),
        );
        expect(await store.pending.listPendingByApprover('U0OTHER')).toEqual(
          refs(b.id, callIdsOf(b)),
        );
        await store.pauses.vote({
          pauseId: a.id,
          callId: firstCallId(a),
          voter: APPROVER,
          choice: 'reject',
          now: T0 + 1,
        });
        expect(await store.pending.listPendingByApprover(APPROVER)).toEqual(
          refs(a.id, callIdsOf(a).slice(1)),
        );
        expect(await store.pending.listPending(byRequester, 1)).toHaveLength(1);
        await store.pauses.cancel({ pauseId: a.id, by: 'U9', now: T0 + 2 });
        expect(await store.pending.listPendingByApprover(APPROVER)).toEqual([]);
        expect(await store.pending.listPending(byRequester)).toEqual(refs(b.id, callIdsOf(b)));
        expect(await store.pending.listPendingByApprover('U0NOBODY')).toEqual([]);
      });

      it('counts pending gates by app, exactly, as gates are decided and pauses cancelled', async () => {
        expect(await store.pending.countPendingByApp()).toEqual(new Map());
        const a = newPause({ gates: 2 });
        const b = newPause();
        await store.pauses.createPause(a);
        await store.pauses.createPause(b);
        expect(await store.pending.countPendingByApp()).toEqual(new Map([['hitl_agent', 3]]));
        await store.pauses.vote({
          pauseId: a.id,
          callId: firstCallId(a),
          voter: APPROVER,
          choice: 'approve',
          now: T0 + 1,
        });
        expect(await store.pending.countPendingByApp()).toEqual(new Map([['hitl_agent', 2]]));
        await store.pauses.cancel({ pauseId: a.id, by: 'U9', now: T0 + 2 });
        expect(await store.pending.countPendingByApp()).toEqual(new Map([['hitl_agent', 1]]));
      });

      it('by user group, by requester and by channel-member approval, until they are decided', async () => {
        const grouped = newPause({
          policies: [policy({ approvers: [{ kind: 'usergroup', id: 'S0ONCALL' }] })],
        });
        const members = newPause({ policies: [policy({ approvers: [{ kind: 'channel' }] })] });
        await store.pauses.createPause(grouped);
        await store.pauses.createPause(members);
        const ref = (input: typeof grouped) => ({ pauseId: input.id, callId: firstCallId(input) });
        expect(await store.pending.listPending({ kind: 'usergroup', id: 'S0ONCALL' })).toEqual([
          ref(grouped),
        ]);
        expect(await store.pending.listPending({ kind: 'channel_members' })).toEqual([
          ref(members),
        ]);
        expect(
          [...(await store.pending.listPending({ kind: 'requester', id: 'U0REQUESTER' }))].sort(
            (x, y) => x.pauseId.localeCompare(y.pauseId),
          ),
        ).toEqual([ref(grouped), ref(members)].sort((x, y) => x.pauseId.localeCompare(y.pauseId)));
        expect(await store.pending.listPending({ kind: 'usergroup', id: 'S0OTHER' })).toEqual([]);
        await store.pauses.cancel({ pauseId: grouped.id, by: 'U0REQUESTER', now: T0 + 1 });
        expect(await store.pending.listPending({ kind: 'usergroup', id: 'S0ONCALL' })).toEqual([]);
        expect(await store.pending.listPending({ kind: 'requester', id: 'U0REQUESTER' })).toEqual([
          ref(members),
        ]);
      });
    });

    describe('audit', () => {
      it("keeps every line of a vote storm once, in the pause's chain order", async () => {
        const voters = Array.from({ length: 300 }, (_, i) => `U${i}`);
        const input = newPause({ policies: [policy({ quorum: voters.length + 10 })] });
        await store.pauses.createPause(input);
        const callId = firstCallId(input);
        for (let i = 0; i < voters.length; i += 100) {
          await Promise.all(
            voters.slice(i, i + 100).map((voter) =>
              store.pauses.vote({
                pauseId: input.id,
                callId,
                voter,
                choice: 'approve',
                now: T0 + 1,
              }),
            ),
          );
        }
        const trail = await store.audit.readAudit({ pauseId: input.id, count: 1_000 });
        expect(trail.map((entry) => entry.event)).toEqual([
          'created',
          ...voters.map(() => 'voted'),
        ]);
        expect(new Set(trail.map((entry) => entry.actor))).toEqual(
          new Set([input.requester, ...voters]),
        );
        const seqs = trail.map((entry) => (JSON.parse(entry.line ?? '{}') as { seq?: number }).seq);
        expect(seqs).toEqual(trail.map((_, i) => i + 1));
      }, 90_000);

      it('chains each pause’s entries: seq from 1, each line’s hash over its text, prev the line before; a rule’s redact keeps those arguments out', async () => {
        const input = newPause({
          policies: [policy({ redact: ['account'] })],
          args: { account: 'ACCOUNT-REDACTED-SECRET', amount: 5 },
        });
        await store.pauses.createPause(input);
        const callId = firstCallId(input);
        await store.pauses.vote({
          pauseId: input.id,
          callId,
          voter: 'U1',
          choice: 'approve',
          now: T0 + 1,
        });
        const trail = await store.audit.readAudit({ pauseId: input.id });
        const lines = trail.map((entry) => entry.line ?? '');
        expect(lines).toHaveLength(3);
        let prev = AUDIT_GENESIS;
        lines.forEach((line, index) => {
          const split = splitChainLine(line);
          if (split === undefined) throw new Error(`line ${index + 1} has no hash`);
          expect(sha256(split.text)).toBe(split.hash);
          const parsed = JSON.parse(line) as { seq: number; prev: string; pauseId: string };
          expect(parsed).toMatchObject({ seq: index + 1, prev, pauseId: input.id });
          prev = split.hash;
        });
        const approved = JSON.parse(lines[2] ?? '{}') as Record<string, unknown>;
        expect(approved).toMatchObject({
          event: 'approved',
          initiator: 'person',
          actor: 'U1',
          what: {
            tool: 'transfer_money',
            args: { account: '[redacted]', amount: 5 },
            redacted: ['account'],
            argsSha256: sha256(canonicalJson({ account: 'ACCOUNT-REDACTED-SECRET', amount: 5 })),
          },
        });
        expect(lines.join('\n')).not.toContain('ACCOUNT-REDACTED-SECRET');

        // An outcome the agent reports joins the chain, in the trail and in the store-wide audit.
        await store.reports.recordOutcome({
          pauseId: input.id,
          callId,
          outcome: { status: 'executed', at: T0 + 2 },
          actor: 'api:runbooks',
        });
        const after = await store.audit.readAudit({ pauseId: input.id });
        const reported = JSON.parse(after[3]?.line ?? '{}') as Record<string, unknown>;
        expect(reported).toMatchObject({
          event: 'outcome_reported',
          seq: 4,
          prev: splitChainLine(lines[2] ?? '')?.hash,
          // The agent's key reported it: not the system (an expiry, a replica).
          initiator: 'agent',
        });
        const page = await store.audit.readAuditPage({ limit: 1_000 });
        expect(page.filter((e) => e.pauseId === input.id).map((e) => e.line)).toEqual(
          after.map((e) => e.line),
        );
      });

      it('keeps each person’s recent decisions, newest first: theirs and those on their requests', async () => {
        const first = newPause();
        const second = newPause();
        await store.pauses.createPause(first);
        await store.pauses.createPause(second);
        const vote = (input: NewPause, voter: string, choice: 'approve' | 'reject', at: number) =>
          store.pauses.vote({
            pauseId: input.id,
            callId: firstCallId(input),
            voter,
            choice,
            now: at,
          });
        await vote(first, 'U0VOTER1', 'approve', T0 + 1);
        await vote(second, 'U0VOTER2', 'reject', T0 + 2);
        const mine = await store.audit.readRecentDecisions('U0VOTER1', 10);
        expect(mine.map((e) => [e.pauseId, e.event, e.actor])).toEqual([
          [first.id, 'approved', 'U0VOTER1'],
        ]);
        const requester = first.requester;
        const theirs = await store.audit.readRecentDecisions(requester, 10);
        expect(theirs.slice(0, 2).map((e) => [e.pauseId, e.event])).toEqual([
          [second.id, 'rejected'],
          [first.id, 'approved'],
        ]);
        expect(await store.audit.readRecentDecisions('U0NOBODY', 10)).toEqual([]);
      });

      it('keeps a vote toward a quorum in its voter’s and the requester’s recent decisions, and a deciding vote once (#34)', async () => {
        const input = newPause({ policies: [policy({ quorum: 2 })] });
        await store.pauses.createPause(input);
        const vote = (voter: string, at: number) =>
          store.pauses.vote({
            pauseId: input.id,
            callId: firstCallId(input),
            voter,
            choice: 'approve',
            now: at,
          });
        await vote('U0VOTER1', T0 + 1);
        expect(
          (await store.audit.readRecentDecisions('U0VOTER1', 10)).map((e) => [e.event, e.actor]),
        ).toEqual([['voted', 'U0VOTER1']]);
        await vote('U0VOTER2', T0 + 2);
        expect(
          (await store.audit.readRecentDecisions('U0VOTER2', 10)).map((e) => [e.event, e.actor]),
        ).toEqual([['approved', 'U0VOTER2']]);
        expect(
          (await store.audit.readRecentDecisions(input.requester, 10)).map((e) => [
            e.event,
            e.actor,
          ]),
        ).toEqual([
          ['approved', 'U0VOTER2'],
          ['voted', 'U0VOTER1'],
        ]);
      });

      it('records who did what to which gate and when: plain fields without arguments, payloads or reasons; the chain line with the arguments and the reason', async () => {
        const secretArg = 'ACCOUNT-4242-SECRET';
        const input = newPause({ policies: [policy({ quorum: 2 })], args: { account: secretArg } });
        await store.pauses.createPause(input);
        const callId = firstCallId(input);
        await store.pauses.vote({
          pauseId: input.id,
          callId,
          voter: 'U1',
          choice: 'approve',
          payload: { account: 'PAYLOAD-SECRET' },
          now: T0 + 1,
        });
        await store.pauses.vote({
          pauseId: input.id,
          callId,
          voter: 'U2',
          choice: 'reject',
          reason: 'REASON-SECRET',
          now: T0 + 2,
        });
        await store.leases.claimResume({
          pauseId: input.id,
          owner: 'r1',
          now: T0 + 3,
          leaseMs: LEASE_MS,
        });
        await store.leases.markResumeFailed({
          pauseId: input.id,
          owner: 'r1',
          now: T0 + 4,
          error: 'ERROR-SECRET',
        });
        await store.leases.claimResume({
          pauseId: input.id,
          owner: 'r2',
          now: T0 + 5,
          leaseMs: LEASE_MS,
          retryFailed: true,
        });
        await store.leases.markResumed({ pauseId: input.id, owner: 'r2', now: T0 + 6 });

        const trail = await store.audit.readAudit({ pauseId: input.id });
        expect(trail.map((e) => [e.event, e.actor, e.callId, e.at])).toEqual([
          ['created', 'U0REQUESTER', undefined, T0],
          ['voted', 'U1', callId, T0 + 1],
          ['voted', 'U2', callId, T0 + 2],
          ['rejected', 'U2', callId, T0 + 2],
          ['resume_claimed', 'r1', undefined, T0 + 3],
          ['resume_failed', 'r1', undefined, T0 + 4],
          ['resume_claimed', 'r2', undefined, T0 + 5],
          ['resumed', 'r2', undefined, T0 + 6],
        ]);
        expect(trail.every((entry) => entry.pauseId === input.id)).toBe(true);
        expect(trail[1]?.detail).toBe('choice=approve payload=yes');
        expect(trail[2]?.detail).toBe('choice=reject reason_length=13');
        expect(trail[5]?.detail).toBe('error_length=12');
        const plain = JSON.stringify(trail.map(({ line: _, ...fields }) => fields));
        for (const secret of [secretArg, 'PAYLOAD-SECRET', 'REASON-SECRET', 'ERROR-SECRET']) {
          expect(plain).not.toContain(secret);
        }
        // The auditor's record: the arguments and the reason, never the payload or an error text.
        const lines = trail.map((entry) => entry.line ?? '');
        expect(lines[3]).toContain(secretArg);
        expect(lines[3]).toContain('REASON-SECRET');
        expect(lines.join('\n')).not.toContain('PAYLOAD-SECRET');
        expect(lines.join('\n')).not.toContain('ERROR-SECRET');
        const global = await store.audit.readAudit({ count: 1_000 });
        expect(global.filter((e) => e.pauseId === input.id).map((e) => e.event)).toEqual(
          trail.map((e) => e.event),
        );
        expect(global.filter((e) => e.pauseId === input.id).map((e) => e.line)).toEqual(lines);
      });

      it('records expiry and cancellation by the system', async () => {
        const input = newPause({
          gates: 2,
          policies: [policy({ expiresInMs: 5, onExpiry: 'cancel' }), policy()],
        });
        await store.pauses.createPause(input);
        await store.sweeps.expireDue(T0 + 5);
        const trail = await store.audit.readAudit({ pauseId: input.id });
        expect(trail.map((e) => [e.event, e.actor, e.detail])).toEqual([
          ['created', 'U0REQUESTER', 'gates=2'],
          ['expired', SYSTEM_ACTOR, 'outcome=cancelled'],
          ['cancelled', SYSTEM_ACTOR, 'cause=expiry'],
          ['abandoned', SYSTEM_ACTOR, undefined],
        ]);
      });
    });
    describe('pauses posted through the API, their notes and idempotency keys', () => {
      it('keeps what the API was told about a pause (key, resume mode, title)', async () => {
        const input = {
          ...newPause(),
          external: {
            keyName: 'runbooks',
            resume: { mode: 'webhook' as const, url: 'https://hooks.example.com/x' },
            title: 'Nightly restart',
          },
        };
        await store.pauses.createPause(input);
        const view = await (await harness.replica()).pauses.getPause(input.id);
        expect(view?.pause.external).toEqual(input.external);
      });

      it('records an outcome per gate and a delivery status, with trail entries that carry no text', async () => {
        const input = newPause({ gates: 2 });
        await store.pauses.createPause(input);
        const [first, second] = callIdsOf(input);
        if (first === undefined || second === undefined) throw new Error('two gates expected');
        const outcome = { status: 'failed' as const, detail: 'DETAIL-SECRET', at: T0 + 1 };
        expect(
          await store.reports.recordOutcome({
            pauseId: input.id,
            callId: first,
            outcome,
            actor: 'api:k',
          }),
        ).toBe('recorded');
        const delivery = {
          state: 'retrying' as const,
          attempts: 2,
          lastError: 'HTTP 500',
          at: T0 + 2,
        };
        expect(
          await store.reports.recordDelivery({ pauseId: input.id, delivery, actor: 'owner-1' }),
        ).toBe('recorded');
        const replica = await harness.replica();
        expect(await replica.notes.readNotes(input.id)).toEqual({
          outcomes: { [first]: outcome },
          delivery,
        });
        const trail = await replica.audit.readAudit({ pauseId: input.id });
        expect(trail.slice(-2).map((e) => [e.event, e.actor, e.callId, e.detail])).toEqual([
          ['outcome_reported', 'api:k', first, 'status=failed detail_length=13'],
          ['delivery', 'owner-1', undefined, 'status=retrying attempt=2 error_length=8'],
        ]);
        expect(JSON.stringify(trail)).not.toContain('SECRET');
        expect(await replica.notes.readNotes(input.id)).not.toHaveProperty(['outcomes', second]);
      });

      it('refuses an outcome for a gate the pause does not hold, and notes for no pause', async () => {
        const input = newPause();
        await store.pauses.createPause(input);
        const outcome = { status: 'executed' as const, at: T0 };
        expect(
          await store.reports.recordOutcome({
            pauseId: input.id,
            callId: 'adk-other',
            outcome,
            actor: 'a',
          }),
        ).toBe('unknown_gate');
        expect(
          await store.reports.recordOutcome({
            pauseId: 'p-none',
            callId: 'adk-other',
            outcome,
            actor: 'a',
          }),
        ).toBe('not_found');
        const delivery = { state: 'delivered' as const, attempts: 1, at: T0 };
        expect(
          await store.reports.recordDelivery({ pauseId: 'p-none', delivery, actor: 'a' }),
        ).toBe('not_found');
        expect(await store.notes.readNotes(input.id)).toEqual({ outcomes: {} });
      });

      it('lets exactly one of many concurrent claims to run a gate win, across replicas', async () => {
        const replica = await harness.replica();
        const pauseId = `p-claim-${Math.random().toString(36).slice(2)}`;
        const results = await Promise.all(
          Array.from({ length: 10 }, (_, i) =>
            (i % 2 === 0 ? store : replica).reports.claimGateRun({
              pauseId,
              callId: 'adk-1',
              by: `api:k${i}`,
              at: T0,
            }),
          ),
        );
        expect(results.filter((result) => result === 'claimed')).toHaveLength(1);
        expect(
          await store.reports.claimGateRun({ pauseId, callId: 'adk-2', by: 'api:k', at: T0 }),
        ).toBe('claimed');
      });

      it('lets exactly one of many concurrent first uses of an idempotency key claim it', async () => {
        const replica = await harness.replica();
        const key = `k-${Math.random().toString(36).slice(2)}`;
        const results = await Promise.all(
          Array.from({ length: 20 }, (_, i) =>
            (i % 2 === 0 ? store : replica).idempotency.claimIdempotencyKey({
              key,
              fingerprint: `f${i}`,
              pauseId: `p${i}`,
              ttlMs: 60_000,
            }),
          ),
        );
        const claimed = results.findIndex((result) => result.kind === 'claimed');
        expect(kinds(results)).toEqual({ claimed: 1, seen: 19 });
        for (const result of results) {
          if (result.kind === 'seen') {
            expect(result).toEqual({
              kind: 'seen',
              fingerprint: `f${claimed}`,
              pauseId: `p${claimed}`,
            });
          }
        }
      });
    });
  });
}
