import { describe, expect, it } from 'vitest';
import { adkDefaultHint } from '../../../src/adk/gate.js';
import { storeKeys } from '../../../src/approvals/store/keys.js';
import type { RedisClient } from '../../../src/approvals/store/redis-connection.js';
import { indexMember } from '../../../src/approvals/store/redis-index-members.js';
import { openRedisStore } from '../../../src/approvals/store/redis-store.js';
import { recordedGates } from '../../../src/approvals/store/rules.js';
import { NO_AUDIT_LIST_FIELD } from '../../../src/approvals/store/scripts/fields.js';
import type { ApprovalStore } from '../../../src/approvals/store.js';
import type { NewPause } from '../../../src/approvals/store-roles/pauses.js';
import { displayHint } from '../../../src/slack/render/hint.js';
import { deleteWithPrefix, randomPrefix, redisStoreForEachTest } from '../../support/redis.js';
import { APPROVER, callIdsOf, newPause, policy, T0 } from './fixtures.js';

/**
 * Pending gates live for days, so an upgrade meets records written by the version before it.
 * `writeFirstLayout` writes a pause exactly as the store wrote it up to commit 8d4018a: each
 * gate's record (with its call id, pause id and createdAt) and policy in the gate's own hash.
 */
async function writeFirstLayout(redis: RedisClient, prefix: string, input: NewPause) {
  const keys = storeKeys(prefix);
  const { gates, now, card: location, ...fields } = input;
  const { ts, ...card } = location;
  const callIds = callIdsOf(input);
  const pauseRecord = { ...fields, card, callIds, createdAt: now };
  const pauseKey = keys.pause(input.id);
  await redis.hset(pauseKey, {
    record: JSON.stringify(pauseRecord),
    version: 1,
    gateCount: gates.length,
    pending: gates.length,
    resumeState: 'idle',
    attempts: 0,
    ...(ts === undefined ? {} : { cardTs: ts }),
  });
  for (const gate of recordedGates(gates)) {
    const { policy: gatePolicy, ...gateFields } = gate;
    const callId = gate.confirmationCallId;
    const expiresAt =
      gatePolicy.expiresInMs === undefined ? undefined : now + gatePolicy.expiresInMs;
    await redis.hset(keys.gate(input.id, callId), {
      callId,
      record: JSON.stringify({ ...gateFields, pauseId: input.id, createdAt: now }),
      policy: JSON.stringify(gatePolicy),
      state: 'pending',
      version: 1,
      votes: '[]',
      approvals: 0,
      ...(expiresAt === undefined ? {} : { expiresAt }),
    });
    if (expiresAt !== undefined) {
      await redis.zadd(keys.expiry, expiresAt, indexMember(input.id, callId));
    }
  }
  await redis.rpush(
    keys.pauseAudit(input.id),
    JSON.stringify({
      at: String(now),
      actor: input.requester,
      event: 'created',
      detail: 'gates=2',
    }),
  );
  await redis.zadd(keys.resume, now + 300_000, input.id);
}

let redis: RedisClient;
let prefix: string;
let store: ApprovalStore;
redisStoreForEachTest((opened) => {
  ({ redis, keyPrefix: prefix, store } = opened);
});

describe('Redis: pauses recorded by the previous version', () => {
  it('reads a pending pause written in the first layout as the same view a new pause has', async () => {
    const input = newPause({ gates: 2, policies: [policy({ expiresInMs: 60_000 })] });
    await writeFirstLayout(redis, prefix, input);
    const old = await store.pauses.getPause(input.id);

    const fresh = randomPrefix();
    const current = openRedisStore({ redis, keyPrefix: fresh });
    try {
      await current.pauses.createPause(input);
      expect(old).toEqual(await current.pauses.getPause(input.id));
    } finally {
      await deleteWithPrefix(redis, fresh);
    }
  });

  it('votes, decides, claims and resumes a pause written in the first layout', async () => {
    const input = newPause({ gates: 2, policies: [policy({ quorum: 2 })] });
    await writeFirstLayout(redis, prefix, input);
    const [first = '', second = ''] = callIdsOf(input);
    const vote = { pauseId: input.id, choice: 'approve', now: T0 + 1 } as const;
    expect(await store.pauses.vote({ ...vote, callId: first, voter: APPROVER })).toMatchObject({
      kind: 'counted',
      approvals: 1,
      quorum: 2,
    });
    expect(await store.pauses.vote({ ...vote, callId: first, voter: 'U2' })).toMatchObject({
      kind: 'decided',
      state: 'approved',
      pauseDecided: false,
    });
    const rejected = await store.pauses.vote({
      ...vote,
      callId: second,
      voter: 'U2',
      choice: 'reject',
    });
    expect(rejected).toMatchObject({ kind: 'decided', state: 'rejected', pauseDecided: true });
    expect(await store.leases.dueResumes(T0 + 2)).toEqual([input.id]);
    const claim = { pauseId: input.id, owner: 'r1', now: T0 + 2, leaseMs: 30_000 };
    expect(await store.leases.claimResume(claim)).toMatchObject({ kind: 'claimed', attempt: 1 });
    const resumed = await store.leases.markResumed(claim);
    const delivery = { state: 'delivered', attempts: 1, at: T0 + 4 } as const;
    expect(await store.reports.recordDelivery({ pauseId: input.id, delivery, actor: 'r1' })).toBe(
      'recorded',
    );
    expect(resumed.kind === 'ok' && resumed.view.gates.map((gate) => gate.votes.length)).toEqual([
      2, 1,
    ]);
    // The lines of this version, in the store-wide audit: the fixture's `created` entry is only in
    // the pause's list (the first layout's version copied it to the stream; the fixture did not).
    const events = (await store.audit.readAudit({ pauseId: input.id })).map((entry) => entry.event);
    expect(events).toEqual([
      'voted',
      'voted',
      'approved',
      'voted',
      'rejected',
      'resume_claimed',
      'resumed',
      'delivery',
    ]);
    // Each line is kept once, in the store-wide audit: nothing more goes to the pause's list.
    expect(await redis.llen(storeKeys(prefix).pauseAudit(input.id))).toBe(1);
  });

  it('votes on a pause whose list a replica from before the trail moved into the hash appended to during a rolling upgrade, and leaves the list alone', async () => {
    const input = newPause({ policies: [policy({ quorum: 2 })] });
    await store.pauses.createPause(input);
    // Recorded by a version that kept the trail in the hash but did not say it had no list.
    const pauseKey = storeKeys(prefix).pause(input.id);
    expect(await redis.hget(pauseKey, NO_AUDIT_LIST_FIELD)).toBe('1');
    await redis.hdel(pauseKey, NO_AUDIT_LIST_FIELD);
    const callId = callIdsOf(input)[0] ?? '';
    // What the previous version's vote script appends: an entry on the pause's list key.
    const entry = { at: String(T0 + 1), event: 'voted', actor: 'U1', callId, detail: 'x=1' };
    const listKey = storeKeys(prefix).pauseAudit(input.id);
    await redis.rpush(listKey, JSON.stringify(entry));
    const vote = {
      pauseId: input.id,
      callId,
      voter: 'U2',
      choice: 'approve',
      now: T0 + 2,
    } as const;
    expect(await store.pauses.vote(vote)).toMatchObject({
      kind: 'counted',
      approvals: 1,
    });
    const trail = await store.audit.readAudit({ pauseId: input.id });
    expect(trail.map((e) => [e.event, e.actor])).toEqual([
      ['created', 'U0REQUESTER'],
      ['voted', 'U2'],
    ]);
    // The previous version's entry stays where that version reads it; this one's are not added.
    expect(await redis.lrange(listKey, 0, -1)).toEqual([JSON.stringify(entry)]);
  });

  it('expires a gate written in the first layout when the sweep finds it due', async () => {
    const input = newPause({ policies: [policy({ expiresInMs: 1_000 })] });
    await writeFirstLayout(redis, prefix, input);
    const expired = await store.sweeps.expireDue(T0 + 1_000);
    expect(expired.map((gate) => [gate.callId, gate.state])).toEqual([
      [callIdsOf(input)[0], 'expired'],
    ]);
  });
});

describe("Redis: ADK's default hint is stored as a flag", () => {
  /** A gate's stored record, as JSON text. */
  const storedGateRecord = async (pauseId: string, gateNumber: number) =>
    (await redis.hget(storeKeys(prefix).pause(pauseId), `record:${gateNumber}`)) ?? '';

  it('stores no text for it, and reads it back word for word; another hint is stored as written', async () => {
    const input = newPause({ gates: 2 });
    const [first, second] = input.gates;
    if (!first || !second) throw new Error('two gates');
    expect(first.hint).toBe(adkDefaultHint(first.originalCall.name));
    const custom = 'Approve only after the change window opens.';
    const withCustom = { ...input, gates: [first, { ...second, hint: custom }] };
    await store.pauses.createPause(withCustom);

    const stored = await storedGateRecord(input.id, 1);
    expect(stored).not.toContain('Please approve or reject');
    expect(JSON.parse(stored)).toMatchObject({ defaultHint: true });
    expect(JSON.parse(await storedGateRecord(input.id, 2))).toMatchObject({ hint: custom });

    const view = await store.pauses.getPause(input.id);
    expect(view?.gates.map((gate) => gate.hint)).toEqual([first.hint, custom]);
  });

  it('a version that does not know the flag reads no hint, and its card shows what it shows today', () => {
    // Cards leave ADK's default hint out (hint.ts): no hint and the default one look the same.
    const hint = adkDefaultHint('transfer_money');
    expect(displayHint(hint)).toBeUndefined();
    expect(displayHint(undefined)).toBeUndefined();
    expect(displayHint(`${hint} `)).toBeUndefined();
    expect(displayHint('Approve only after the change window opens.')).toBeDefined();
  });
});

describe('Redis: gates recorded without their call id field', () => {
  /** Records `input`, then takes each gate's `callId` field away, as the next version records it. */
  const recordWithoutCallIds = async (input: NewPause) => {
    await store.pauses.createPause(input);
    const keys = storeKeys(prefix);
    for (const callId of callIdsOf(input)) await redis.hdel(keys.gate(input.id, callId), 'callId');
  };

  it('reads, votes on and expires them, the call id taken from the gate key; its lines name it', async () => {
    const voted = newPause({ gates: 2 });
    const expiring = newPause({ policies: [policy({ expiresInMs: 1_000 })] });
    await recordWithoutCallIds(voted);
    await recordWithoutCallIds(expiring);
    // Another replica's store: nothing cached from the recording.
    const other = openRedisStore({ redis, keyPrefix: prefix });
    const view = await other.pauses.getPause(voted.id);
    expect(view?.gates.map((gate) => gate.confirmationCallId)).toEqual(callIdsOf(voted));
    for (const callId of callIdsOf(voted)) {
      const vote = { pauseId: voted.id, callId, voter: APPROVER, choice: 'approve' as const };
      expect(await other.pauses.vote({ ...vote, now: T0 + 1 })).toMatchObject({ kind: 'decided' });
    }
    const expired = await other.sweeps.expireDue(T0 + 1_000, 100);
    expect(expired.map((gate) => gate.callId)).toEqual(callIdsOf(expiring));
    const lines = [
      ...(await other.audit.readAudit({ pauseId: voted.id })),
      ...(await other.audit.readAudit({ pauseId: expiring.id })),
    ];
    const decided = lines.filter(
      (entry) => entry.event === 'approved' || entry.event === 'expired',
    );
    expect(decided.map((entry) => entry.callId)).toEqual([
      ...callIdsOf(voted),
      ...callIdsOf(expiring),
    ]);
  });

  it('tells a gate that is not there from one without its call id field', async () => {
    const input = newPause();
    await recordWithoutCallIds(input);
    await redis.unlink(storeKeys(prefix).gate(input.id, callIdsOf(input)[0] ?? ''));
    await expect(
      openRedisStore({ redis, keyPrefix: prefix }).pauses.getPause(input.id),
    ).rejects.toThrow(/gates do not match its call ids/);
  });
});
