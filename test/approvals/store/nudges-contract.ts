import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ApprovalStore } from '../../../src/approvals/store.js';
import type { StoreHarness } from './contract.js';
import { APPROVER, firstCallId, newPause, policy, T0 } from './fixtures.js';

const LEASE_MS = 30_000;
const REMINDING = policy({
  expiresInMs: 60_000,
  remindAfterMs: 2_000,
  escalateAfterMs: 10_000,
  escalateTo: [{ kind: 'usergroup', id: 'S0LEADS' }],
});

/**
 * Reminders and escalations due from the store alone, on both twins: each claimed once across
 * replicas, claimed again after a lapsed lease (a replica died), never for a decided gate.
 */
export function describeNudgesContract(name: string, open: () => Promise<StoreHarness>): void {
  describe(`${name}: reminders and escalations`, () => {
    let harness: StoreHarness;
    let store: ApprovalStore;

    beforeEach(async () => {
      harness = await open();
      store = harness.store;
    });
    afterEach(async () => {
      await harness.cleanup();
    });

    it('are due at remindAfter and escalateAfter, each claimed by one of two racing replicas', async () => {
      const other = await harness.replica();
      const inputs = Array.from({ length: 10 }, () => newPause({ policies: [REMINDING] }));
      const quiet = newPause({ policies: [policy({ expiresInMs: 60_000 })] });
      await Promise.all([...inputs, quiet].map((input) => store.pauses.createPause(input)));

      const claim = (s: ApprovalStore, now: number) =>
        s.nudges.claimDueNudges({ now, leaseMs: LEASE_MS, limit: 1_000 });
      expect(await claim(store, T0 + 1_999)).toEqual([]);
      const [mine, theirs] = await Promise.all([
        claim(store, T0 + 2_000),
        claim(other, T0 + 2_000),
      ]);
      const reminded = [...mine, ...theirs];
      expect(reminded.map((n) => n.callId).sort()).toEqual(inputs.map(firstCallId).sort());
      expect(new Set(reminded.map((n) => n.kind))).toEqual(new Set(['remind']));
      for (const nudge of reminded) await store.nudges.finishNudge(nudge);
      expect(await claim(store, T0 + 9_999)).toEqual([]);

      const escalated = await claim(other, T0 + 10_000);
      expect(escalated.map((n) => [n.callId, n.kind]).sort()).toEqual(
        inputs.map((input) => [firstCallId(input), 'escalate']).sort(),
      );
      for (const nudge of escalated) await other.nudges.finishNudge(nudge);
      expect(await claim(store, T0 + 50_000)).toEqual([]);
    });

    it('a claim whose replica never finished is claimed again once its lease lapses, once', async () => {
      const input = newPause({ policies: [REMINDING] });
      await store.pauses.createPause(input);
      const [lost] = await store.nudges.claimDueNudges({ now: T0 + 2_000, leaseMs: LEASE_MS });
      expect(lost?.kind).toBe('remind');
      const early = T0 + 2_000 + LEASE_MS - 1;
      expect(await store.nudges.claimDueNudges({ now: early, leaseMs: LEASE_MS })).toEqual([
        expect.objectContaining({ kind: 'escalate' }),
      ]);
      const retaken = await store.nudges.claimDueNudges({
        now: T0 + 2_000 + LEASE_MS,
        leaseMs: LEASE_MS,
      });
      expect(retaken).toEqual([expect.objectContaining({ kind: 'remind' })]);
      // The first claim's late finish does not drop the entry the second claim holds.
      if (lost) await store.nudges.finishNudge(lost);
      const later = await store.nudges.claimDueNudges({
        now: T0 + 2_000 + 2 * LEASE_MS,
        leaseMs: LEASE_MS,
      });
      expect(later.map((nudge) => nudge.kind).sort()).toEqual(['escalate', 'remind']);
    });

    it('a gate decided before its reminder is never reminded nor escalated', async () => {
      const input = newPause({ policies: [REMINDING] });
      await store.pauses.createPause(input);
      await store.pauses.vote({
        pauseId: input.id,
        callId: firstCallId(input),
        voter: APPROVER,
        choice: 'approve',
        now: T0 + 1_000,
      });
      expect(await store.nudges.claimDueNudges({ now: T0 + 20_000, leaseMs: LEASE_MS })).toEqual(
        [],
      );
    });
  });
}
