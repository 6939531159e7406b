import { describe, expect, it } from 'vitest';
import {
  AUDIT_GENESIS,
  chainBody,
  sha256,
  splitChainLine,
} from '../../../src/approvals/store/audit-chain.js';
import { storeKeys } from '../../../src/approvals/store/keys.js';
import type { RedisClient } from '../../../src/approvals/store/redis-connection.js';
import { openRedisStore } from '../../../src/approvals/store/redis-store.js';
import { UNSEALED_FIELD } from '../../../src/approvals/store/scripts/fields.js';
import { LuaScript } from '../../../src/approvals/store/scripts/lua-script.js';
import { SEAL_AUDIT_LUA } from '../../../src/approvals/store/scripts/seal-audit.lua.js';
import type { ApprovalStore } from '../../../src/approvals/store.js';
import { connectTestRedis, redisStoreForEachTest } from '../../support/redis.js';
import { exportedAudit } from './audit-exports.js';
import { APPROVER, firstCallId, newPause, policy, T0 } from './fixtures.js';
import { whileScriptsRun } from './script-calls.js';

/**
 * A transition seals its own audit lines when its replica knows the pause's chain (the replica
 * that recorded it, or moved it last): Node builds the lines, the script appends them if the
 * head and the bodies are the ones expected (redis-chain-offers.ts). Otherwise, and for bodies
 * an earlier version's replica left unsealed, the separate seal runs as before.
 */
const SEAL_SHA = new LuaScript('seal_audit', SEAL_AUDIT_LUA).sha;

let keyPrefix: string;
let redis: RedisClient;
let store: ApprovalStore;

redisStoreForEachTest((opened) => {
  ({ keyPrefix, redis, store } = opened);
});

/** How many separate seals of this test's pauses the stores sent during `work`. */
async function sealCallsDuring(work: () => Promise<unknown>): Promise<number> {
  let seals = 0;
  await whileScriptsRun((sha, firstKey) => {
    if (sha === SEAL_SHA && typeof firstKey === 'string' && firstKey.startsWith(keyPrefix))
      seals += 1;
  }, work);
  return seals;
}

function expectChained(lines: readonly string[]): void {
  let prev = AUDIT_GENESIS;
  lines.forEach((line, index) => {
    const split = splitChainLine(line);
    if (split === undefined) throw new Error(`line ${index + 1} is not sealed: ${line}`);
    expect(sha256(split.text)).toBe(split.hash);
    expect(JSON.parse(line)).toMatchObject({ seq: index + 1, prev });
    prev = split.hash;
  });
}

async function trailOf(pauseId: string) {
  const trail = await store.audit.readAudit({ pauseId });
  return {
    events: trail.map((entry) => entry.event),
    lines: trail.map((entry) => entry.line ?? ''),
  };
}

async function streamLinesOf(pauseId: string): Promise<string[]> {
  const page = await store.audit.readAudit({ count: 1000 });
  return page.filter((entry) => entry.pauseId === pauseId).map((entry) => entry.line ?? '');
}

describe('a transition sealing its own audit lines', () => {
  it('the replica that recorded a pause seals its deciding vote in the vote itself: no separate seal, a verified chain, each line mirrored once', async () => {
    const input = newPause();
    await store.pauses.createPause(input);
    const vote = { pauseId: input.id, callId: firstCallId(input), voter: APPROVER, now: T0 + 5 };
    const seals = await sealCallsDuring(() => store.pauses.vote({ ...vote, choice: 'approve' }));
    expect(seals).toBe(0);
    const trail = await trailOf(input.id);
    expect(trail.events).toEqual(['created', 'voted', 'approved']);
    expectChained(trail.lines);
    expect(await streamLinesOf(input.id)).toEqual(trail.lines);
    expect(await redis.hexists(storeKeys(keyPrefix).pause(input.id), UNSEALED_FIELD)).toBe(0);
    expect((await exportedAudit(store)).verdict).toMatchObject({ ok: true });
  });

  it('votes short of a quorum and a reject are sealed ahead too, with the tally each line states', async () => {
    const quorumTwo = newPause({ policies: [policy({ quorum: 2 })] });
    const rejected = newPause();
    await store.pauses.createPause(quorumTwo);
    await store.pauses.createPause(rejected);
    const seals = await sealCallsDuring(async () => {
      const gate = {
        pauseId: quorumTwo.id,
        callId: firstCallId(quorumTwo),
        choice: 'approve' as const,
      };
      expect(await store.pauses.vote({ ...gate, voter: 'U0FIRST', now: T0 + 1 })).toMatchObject({
        kind: 'counted',
      });
      expect(await store.pauses.vote({ ...gate, voter: 'U0SECOND', now: T0 + 2 })).toMatchObject({
        kind: 'decided',
      });
      const no = {
        pauseId: rejected.id,
        callId: firstCallId(rejected),
        voter: APPROVER,
        now: T0 + 3,
      };
      expect(
        await store.pauses.vote({ ...no, choice: 'reject', reason: 'a/b paths' }),
      ).toMatchObject({ kind: 'decided' });
    });
    expect(seals).toBe(0);
    const counted = await trailOf(quorumTwo.id);
    expect(counted.events).toEqual(['created', 'voted', 'voted', 'approved']);
    expectChained(counted.lines);
    expect(JSON.parse(counted.lines[3] ?? '')).toMatchObject({ detail: 'approvals=2/2' });
    const no = await trailOf(rejected.id);
    expect(no.events).toEqual(['created', 'voted', 'rejected']);
    expectChained(no.lines);
    expect((await exportedAudit(store)).verdict).toMatchObject({ ok: true });
  });

  it('a replica that never saw the pause seals after its vote, as before', async () => {
    const input = newPause();
    await store.pauses.createPause(input);
    const other = await connectTestRedis();
    const elsewhere = openRedisStore({ redis: other, keyPrefix });
    try {
      const vote = { pauseId: input.id, callId: firstCallId(input), voter: APPROVER, now: T0 + 5 };
      const seals = await sealCallsDuring(() =>
        elsewhere.pauses.vote({ ...vote, choice: 'approve' }),
      );
      expect(seals).toBe(1);
    } finally {
      other.disconnect();
    }
    const trail = await trailOf(input.id);
    expect(trail.events).toEqual(['created', 'voted', 'approved']);
    expectChained(trail.lines);
  });

  it("a body an earlier version's replica left unsealed is sealed in its place by the next vote, and audit verify passes on the export", async () => {
    const input = newPause();
    const callId = firstCallId(input);
    await store.pauses.createPause(input);
    // As the previous version leaves a transition: its body written, its seal not (yet) run.
    const pauseKey = storeKeys(keyPrefix).pause(input.id);
    const [seq] = await redis.hmget(pauseKey, 'auditSeq');
    const body = chainBody({
      pauseId: input.id,
      seq: Number(seq) + 1,
      at: T0 + 1,
      event: 'card_posted',
      actor: 'system',
      callId: '',
      detail: '',
    });
    await redis.hset(pauseKey, 'auditSeq', Number(seq) + 1, UNSEALED_FIELD, body);

    const seals = await sealCallsDuring(() =>
      store.pauses.vote({
        pauseId: input.id,
        callId,
        voter: APPROVER,
        choice: 'approve',
        now: T0 + 5,
      }),
    );
    // The vote's offer did not match what was there: the separate seal sealed all three.
    expect(seals).toBe(1);
    const trail = await trailOf(input.id);
    expect(trail.events).toEqual(['created', 'card_posted', 'voted', 'approved']);
    expectChained(trail.lines);
    expect(await streamLinesOf(input.id)).toEqual(trail.lines);
    expect((await exportedAudit(store)).verdict).toMatchObject({ ok: true });
  });
});

/** Another replica of the same store: its own connection, knowing none of this one's chains. */
async function withOtherReplica(work: (other: ApprovalStore) => Promise<void>): Promise<void> {
  const client = await connectTestRedis();
  const other = openRedisStore({ redis: client, keyPrefix });
  try {
    await work(other);
  } finally {
    await other.lifecycle.close();
    client.disconnect();
  }
}

/** The trail of a pause: chained from the genesis, mirrored once, nothing left unsealed. */
async function expectSealedOnce(pauseId: string, events: string[]): Promise<void> {
  const trail = await trailOf(pauseId);
  expect(trail.events).toEqual(events);
  expectChained(trail.lines);
  expect(await streamLinesOf(pauseId)).toEqual(trail.lines);
  expect(await redis.hexists(storeKeys(keyPrefix).pause(pauseId), UNSEALED_FIELD)).toBe(0);
  expect((await exportedAudit(store)).verdict).toMatchObject({ ok: true });
}

describe('every transition of one decision sealing its own lines', () => {
  it('the replica that records a pause seals its created line in create_pause: no separate seal', async () => {
    const input = newPause();
    const seals = await sealCallsDuring(() => store.pauses.createPause(input));
    expect(seals).toBe(0);
    await expectSealedOnce(input.id, ['created']);
    // Recorded again (a retried request): nothing written, nothing to seal.
    const again = await sealCallsDuring(() => store.pauses.createPause(input));
    expect(again).toBe(0);
    await expectSealedOnce(input.id, ['created']);
  });

  it('create, card posted, deciding vote, claim and finish on one replica send no separate seal at all', async () => {
    const input = newPause();
    const { id: pauseId } = input;
    const seals = await sealCallsDuring(async () => {
      await store.pauses.createPause(input);
      expect(await store.pauses.setCardTs(pauseId, '1795326457.000200', T0 + 1)).toBeDefined();
      const vote = { pauseId, callId: firstCallId(input), voter: APPROVER, now: T0 + 5 };
      await store.pauses.vote({ ...vote, choice: 'approve' });
      const claim = { pauseId, owner: 'replica-a', now: T0 + 6, leaseMs: 30_000 };
      expect(await store.leases.claimResume(claim)).toMatchObject({ kind: 'claimed', attempt: 1 });
      const finish = { pauseId, owner: 'replica-a', now: T0 + 7 };
      expect(await store.leases.markResumed(finish)).toMatchObject({ kind: 'ok' });
    });
    expect(seals).toBe(0);
    const events = ['created', 'card_posted', 'voted', 'approved', 'resume_claimed', 'resumed'];
    await expectSealedOnce(pauseId, events);
  });

  it("a lapsed lease's takeover, a failed resume and its retry are sealed ahead with the attempt and former owner their lines state", async () => {
    const input = newPause();
    const { id: pauseId } = input;
    await store.pauses.createPause(input);
    const vote = { pauseId, callId: firstCallId(input), voter: APPROVER, now: T0 + 5 };
    await store.pauses.vote({ ...vote, choice: 'approve' });
    const seals = await sealCallsDuring(async () => {
      await store.leases.claimResume({ pauseId, owner: 'replica-a', now: T0 + 6, leaseMs: 100 });
      const takeover = { pauseId, owner: 'replica-b', now: T0 + 1_000, leaseMs: 100 };
      expect(await store.leases.claimResume(takeover)).toMatchObject({ attempt: 2 });
      const failed = { pauseId, owner: 'replica-b', now: T0 + 1_001, error: 'agent unreachable' };
      expect(await store.leases.markResumeFailed(failed)).toMatchObject({ kind: 'ok' });
      const retry = { pauseId, owner: 'replica-c', now: T0 + 2_000, leaseMs: 100 };
      expect(await store.leases.claimResume({ ...retry, retryFailed: true })).toMatchObject({
        kind: 'claimed',
        attempt: 3,
        retried: true,
      });
    });
    expect(seals).toBe(0);
    const events = ['resume_claimed', 'resume_claimed', 'resume_failed', 'resume_claimed'];
    await expectSealedOnce(pauseId, ['created', 'voted', 'approved', ...events]);
    const { lines } = await trailOf(pauseId);
    expect(JSON.parse(lines[4] ?? '')).toMatchObject({
      detail: 'attempt=2 lease_ms=100 took_over_from=replica-a',
    });
    expect(JSON.parse(lines[6] ?? '')).toMatchObject({ detail: 'attempt=3 lease_ms=100' });
  });

  it('a claim or finish after another replica moved the chain seals separately, and audit verify passes', async () => {
    const input = newPause();
    const { id: pauseId } = input;
    await store.pauses.createPause(input);
    let elsewhere = 0;
    await withOtherReplica(async (other) => {
      const vote = { pauseId, callId: firstCallId(input), voter: APPROVER, now: T0 + 5 };
      elsewhere = await sealCallsDuring(() => other.pauses.vote({ ...vote, choice: 'approve' }));
    });
    // The other replica never saw the pause's chain: it sealed its vote after the script.
    expect(elsewhere).toBe(1);
    // This replica's chain is stale: its claim's offer does not match, the separate seal runs.
    const claim = { pauseId, owner: 'replica-a', now: T0 + 6, leaseMs: 30_000 };
    expect(await sealCallsDuring(() => store.leases.claimResume(claim))).toBe(1);
    await withOtherReplica(async (other) => {
      const renew = { pauseId, owner: 'replica-a', now: T0 + 7, leaseMs: 30_000 };
      await other.leases.renewLease(renew);
      // Moves the chain: a failed resume recorded by the other replica, then retried there.
      await other.leases.markResumeFailed({ ...renew, error: 'boom' });
      const retry = { pauseId, owner: 'replica-b', now: T0 + 8, leaseMs: 30_000 };
      await other.leases.claimResume({ ...retry, retryFailed: true });
    });
    const finish = { pauseId, owner: 'replica-b', now: T0 + 9 };
    expect(await sealCallsDuring(() => store.leases.markResumed(finish))).toBe(1);
    await expectSealedOnce(pauseId, [
      'created',
      'voted',
      'approved',
      'resume_claimed',
      'resume_failed',
      'resume_claimed',
      'resumed',
    ]);
  });

  it("a claim after an earlier version's replica left a body unsealed seals separately, the body first, and audit verify passes", async () => {
    const input = newPause();
    const { id: pauseId } = input;
    await store.pauses.createPause(input);
    const vote = { pauseId, callId: firstCallId(input), voter: APPROVER, now: T0 + 5 };
    await store.pauses.vote({ ...vote, choice: 'approve' });
    // As the previous version leaves a transition: its body written, its seal not (yet) run.
    const pauseKey = storeKeys(keyPrefix).pause(pauseId);
    const [seq] = await redis.hmget(pauseKey, 'auditSeq');
    const body = chainBody({
      pauseId,
      seq: Number(seq) + 1,
      at: T0 + 6,
      event: 'card_posted',
      actor: 'system',
      callId: '',
      detail: '',
    });
    await redis.hset(pauseKey, 'auditSeq', Number(seq) + 1, UNSEALED_FIELD, body);
    const claim = { pauseId, owner: 'replica-a', now: T0 + 7, leaseMs: 30_000 };
    expect(await sealCallsDuring(() => store.leases.claimResume(claim))).toBe(1);
    // The chain is known again: the finish seals its own line.
    const finish = { pauseId, owner: 'replica-a', now: T0 + 8 };
    expect(await sealCallsDuring(() => store.leases.markResumed(finish))).toBe(0);
    const events = ['created', 'voted', 'approved', 'card_posted', 'resume_claimed', 'resumed'];
    await expectSealedOnce(pauseId, events);
  });

  it('the sweeper of the replica that recorded a pause seals its expiry ahead, a cancelling one with every line it writes', async () => {
    const expiring = newPause({ policies: [policy({ expiresInMs: 1_000 })] });
    const cancelling = newPause({
      gates: 2,
      policies: [policy({ expiresInMs: 1_000, onExpiry: 'cancel' }), policy()],
    });
    await store.pauses.createPause(expiring);
    await store.pauses.createPause(cancelling);
    const seals = await sealCallsDuring(async () => {
      expect(await store.sweeps.expireDue(T0 + 1_000)).toHaveLength(2);
    });
    expect(seals).toBe(0);
    await expectSealedOnce(expiring.id, ['created', 'expired']);
    await expectSealedOnce(cancelling.id, ['created', 'expired', 'cancelled', 'abandoned']);
  });

  it('an expiry after another replica moved the chain seals separately, and audit verify passes', async () => {
    const input = newPause({
      gates: 2,
      policies: [policy({ expiresInMs: 1_000 }), policy({ expiresInMs: 5_000 })],
    });
    await store.pauses.createPause(input);
    await withOtherReplica(async (other) => {
      const vote = { pauseId: input.id, callId: firstCallId(input), voter: APPROVER, now: T0 + 5 };
      await other.pauses.vote({ ...vote, choice: 'approve' });
    });
    const seals = await sealCallsDuring(async () => {
      expect(await store.sweeps.expireDue(T0 + 5_000)).toHaveLength(1);
    });
    expect(seals).toBe(1);
    await expectSealedOnce(input.id, ['created', 'voted', 'approved', 'expired']);
  });
});
