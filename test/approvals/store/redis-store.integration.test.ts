import type { Command } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { storeKeys } from '../../../src/approvals/store/keys.js';
import {
  connectRedis,
  type RedisClient,
  redactUrl,
} from '../../../src/approvals/store/redis-connection.js';
import { openRedisStore } from '../../../src/approvals/store/redis-store.js';
import {
  RECENT_DECISIONS_MAX,
  RECENT_DECISIONS_SLACK,
  RECENT_DECISIONS_TTL_MS,
} from '../../../src/approvals/store/rules.js';
import type { ApprovalStore } from '../../../src/approvals/store.js';
import { StoreError } from '../../../src/approvals/store.js';
import {
  connectTestRedis,
  deleteWithPrefix,
  keysWithPrefix,
  randomPrefix,
  usingCluster,
} from '../../support/redis.js';
import { describeStoreContract, type StoreHarness } from './contract.js';
import {
  APPROVER,
  approvalOfFirstGate,
  CHANNEL,
  callIdsOf,
  firstCallId,
  newPause,
  policy,
  T0,
} from './fixtures.js';
import { describeNudgesContract } from './nudges-contract.js';

const where = usingCluster ? 'Redis Cluster' : 'Redis';

/** Every store of a test gets its own connection, as a replica would; all share one prefix. */
async function openHarness(): Promise<StoreHarness> {
  const keyPrefix = randomPrefix();
  const stores: ApprovalStore[] = [];
  const open = async () => {
    const redis = await connectTestRedis();
    const store = openRedisStore({ redis, keyPrefix, ownsClient: true });
    stores.push(store);
    return store;
  };
  const admin = await connectTestRedis();
  return {
    store: await open(),
    replica: open,
    cleanup: async () => {
      await deleteWithPrefix(admin, keyPrefix);
      await Promise.all(stores.map((store) => store.lifecycle.close()));
      admin.disconnect();
    },
  };
}

describeStoreContract(where, openHarness);
describeNudgesContract(where, openHarness);

describe(`${where}: what only a durable, shared store shows`, () => {
  let keyPrefix: string;
  let redis: RedisClient;
  let store: ApprovalStore;
  const retentionMs = 60_000;

  beforeEach(async () => {
    keyPrefix = randomPrefix();
    redis = await connectTestRedis();
    store = openRedisStore({ redis, keyPrefix, retentionMs });
  });
  afterEach(async () => {
    await deleteWithPrefix(redis, keyPrefix);
    await store.lifecycle.close();
    redis.disconnect();
  });

  it('marks the resume due before a vote runs, so a crash after a deciding vote delays its resume by one sweep, not minutes', async () => {
    const recheckMs = 5 * 60_000;
    const checking = openRedisStore({ redis, keyPrefix, resumeRecheckMs: recheckMs });
    const input = newPause({ policies: [policy({ quorum: 2 })] });
    await checking.pauses.createPause(input);
    const resume = storeKeys(keyPrefix).resume;
    expect(Number(await redis.zscore(resume, input.id))).toBe(T0 + recheckMs);
    const vote = { pauseId: input.id, callId: firstCallId(input), choice: 'approve' as const };
    await checking.pauses.vote({ ...vote, voter: 'U1', now: T0 + 10 });
    // Only counted, yet due at once: what a deciding vote's lost update would leave behind.
    expect(Number(await redis.zscore(resume, input.id))).toBe(T0 + 10);
    // The next sweep finds gates still pending and puts the check back.
    expect(await checking.leases.dueResumes(T0 + 11)).toEqual([]);
    expect(Number(await redis.zscore(resume, input.id))).toBe(T0 + 11 + recheckMs);
  });

  it('a vote that claims the resume it decides marks it due when the lease lapses: one write of the resume set', async () => {
    const resumeWrites: unknown[][] = [];
    const resume = storeKeys(keyPrefix).resume;
    const watched = new Proxy(redis, {
      get(target, property, receiver) {
        const value = Reflect.get(target, property, receiver);
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          if (args[0] === resume) resumeWrites.push([property, ...args.slice(1)]);
          return Reflect.apply(value, target, args);
        };
      },
    });
    const claiming = openRedisStore({ redis: watched, keyPrefix });
    const input = newPause();
    await claiming.pauses.createPause(input);
    resumeWrites.length = 0;
    const leaseMs = 10_000;
    const result = await claiming.pauses.vote(
      approvalOfFirstGate(input, T0 + 5, { resumeClaim: { owner: 'replica-a', leaseMs } }),
    );
    expect(result).toMatchObject({ kind: 'decided', claimed: { attempt: 1 } });
    expect(resumeWrites).toEqual([['zadd', 'LT', T0 + 5 + leaseMs, input.id]]);
    expect(Number(await redis.zscore(resume, input.id))).toBe(T0 + 5 + leaseMs);
    await claiming.lifecycle.close();
  });

  it('reads a marker placed by an earlier version (its start time alone) as present', async () => {
    await redis.set(storeKeys(keyPrefix).marker, String(T0));
    expect(await store.lifecycle.readMarker()).toEqual({ kind: 'present', placedAt: T0 });
  });

  it('keeps pauses across a restart: a new store instance on a new connection carries on', async () => {
    const input = newPause({ policies: [policy({ quorum: 2 })] });
    await store.pauses.createPause(input);
    await store.pauses.vote({
      pauseId: input.id,
      callId: firstCallId(input),
      voter: 'U1',
      choice: 'approve',
      now: T0 + 1,
    });
    const restarted = openRedisStore({
      redis: await connectTestRedis(),
      keyPrefix,
      ownsClient: true,
    });
    try {
      const view = await restarted.pauses.getPause(input.id);
      expect(view?.gates[0]?.votes.map((v) => v.voter)).toEqual(['U1']);
      const second = await restarted.pauses.vote({
        pauseId: input.id,
        callId: firstCallId(input),
        voter: 'U2',
        choice: 'approve',
        now: T0 + 2,
      });
      expect(second).toMatchObject({ kind: 'decided', state: 'approved', pauseDecided: true });
    } finally {
      await restarted.lifecycle.close();
    }
  });

  it('reports a gate key holding garbage as a corrupt record naming the key, never skips it', async () => {
    const input = newPause({ policies: [policy({ expiresInMs: 10 })] });
    await store.pauses.createPause(input);
    const gateKey = storeKeys(keyPrefix).gate(input.id, firstCallId(input));
    await redis.unlink(gateKey);
    await redis.set(gateKey, 'garbage');
    const reading = store.pauses.getPause(input.id);
    await expect(reading).rejects.toBeInstanceOf(StoreError);
    await expect(reading).rejects.toMatchObject({ reason: 'corrupt_record' });
    await expect(reading).rejects.toThrow(gateKey);
    await expect(
      store.pauses.vote({
        pauseId: input.id,
        callId: firstCallId(input),
        voter: 'U1',
        choice: 'approve',
        now: T0,
      }),
    ).rejects.toMatchObject({ reason: 'corrupt_record' });
    await expect(store.sweeps.expireDue(T0 + 10)).rejects.toMatchObject({
      reason: 'corrupt_record',
    });
    await expect(reading).rejects.toThrow('holds a string, not a hash');
  });

  it('reports a pause key holding another type as a corrupt record naming the key and the type', async () => {
    const input = newPause();
    await store.pauses.createPause(input);
    const pauseKey = storeKeys(keyPrefix).pause(input.id);
    await redis.unlink(pauseKey);
    await redis.rpush(pauseKey, 'garbage');
    const reading = store.pauses.getPause(input.id);
    await expect(reading).rejects.toMatchObject({ reason: 'corrupt_record' });
    await expect(reading).rejects.toThrow(`${pauseKey} does not hold a valid record: holds a list`);
  });

  it('reports a record field that does not parse, naming the key and the problem', async () => {
    const input = newPause();
    await store.pauses.createPause(input);
    const gateKey = storeKeys(keyPrefix).gate(input.id, firstCallId(input));
    await redis.hset(gateKey, 'votes', '[{"voter":""}]');
    const reading = store.pauses.getPause(input.id);
    await expect(reading).rejects.toMatchObject({ reason: 'corrupt_record' });
    await expect(reading).rejects.toThrow(new RegExp(`${escapeRegExp(gateKey)}.*votes`, 's'));
    await redis.hset(gateKey, 'votes', '[]', 'state', 'maybe');
    await expect(
      store.pauses.vote({
        pauseId: input.id,
        callId: firstCallId(input),
        voter: 'U1',
        choice: 'approve',
        now: T0,
      }),
    ).rejects.toThrow(/field state/);
  });

  it("keeps a person's newest recent decisions only, and forgets them a while after the last", async () => {
    const voter = 'U0BUSYVOTER';
    const key = storeKeys(keyPrefix).recentDecisions(voter);
    const inputs = Array.from({ length: RECENT_DECISIONS_MAX + RECENT_DECISIONS_SLACK + 3 }, () =>
      newPause(),
    );
    const lengths: number[] = [];
    for (const [i, input] of inputs.entries()) {
      await store.pauses.createPause(input);
      await store.pauses.vote({
        pauseId: input.id,
        callId: firstCallId(input),
        voter,
        choice: 'approve',
        now: T0 + i,
      });
      lengths.push(await redis.llen(key));
    }
    // Grown one by one up to the slack past the cap, then cut back to the cap once: one LTRIM
    // for RECENT_DECISIONS_SLACK writes, not one per write.
    const cut = RECENT_DECISIONS_MAX + RECENT_DECISIONS_SLACK;
    expect(lengths.slice(0, cut)).toEqual(Array.from({ length: cut }, (_, i) => i + 1));
    expect(lengths.slice(cut)).toEqual([
      RECENT_DECISIONS_MAX,
      RECENT_DECISIONS_MAX + 1,
      RECENT_DECISIONS_MAX + 2,
    ]);
    // Reads show the newest RECENT_DECISIONS_MAX, never more, whatever the list holds.
    const recent = await store.audit.readRecentDecisions(voter, RECENT_DECISIONS_MAX + 10);
    expect(recent).toHaveLength(RECENT_DECISIONS_MAX);
    expect(recent[0]?.pauseId).toBe(inputs.at(-1)?.id);
    expect(recent.at(-1)?.pauseId).toBe(inputs.at(-RECENT_DECISIONS_MAX)?.id);
    const ttl = await redis.pttl(key);
    expect(ttl).toBeGreaterThan(RECENT_DECISIONS_TTL_MS - 60_000);
    expect(ttl).toBeLessThanOrEqual(RECENT_DECISIONS_TTL_MS);
  });

  it('writes what transitions that come while a write is under way leave behind together: one stream entry, one recent-list write per person and one ZREM per shared index per write, each line once in the stream', async () => {
    const inputs = Array.from({ length: 20 }, () => newPause());
    await Promise.all(inputs.map((input) => store.pauses.createPause(input)));
    const commands = countCommands(redis, ['xadd', 'lpush', 'zrem']);
    const results = await Promise.all(
      inputs.map((input, i) =>
        store.pauses.vote({
          pauseId: input.id,
          callId: firstCallId(input),
          voter: APPROVER,
          choice: 'approve',
          now: T0 + i,
        }),
      ),
    );
    expect(results.map((result) => result.kind)).toEqual(inputs.map(() => 'decided'));
    // Every vote's entries reached the stream before its vote returned, each with its own time.
    const approved = (await store.audit.readAudit({ count: 1_000 })).filter(
      (entry) => entry.event === 'approved',
    );
    expect(approved.map((entry) => [entry.pauseId, entry.at]).sort()).toEqual(
      inputs.map((input, i) => [input.id, T0 + i]).sort(),
    );
    expect(await store.audit.readRecentDecisions(APPROVER, 50)).toHaveLength(20);
    // The forty lines (voted, approved), each once, in the stream entries of the writes.
    const lines = (await store.audit.readAudit({ count: 1_000 })).filter(
      (entry) => entry.event !== 'created',
    );
    expect(lines).toHaveLength(40);
    expect(new Set(lines.map((entry) => entry.line)).size).toBe(40);
    // Twenty transitions, not forty list writes (the approver's and the requester's lists) or
    // twenty stream entries: the first goes at once and the rest together after it (two of each
    // here), more where replies straggle in (a Cluster's nodes, three, on a loaded machine: CI
    // saw ten); one write per transition and person would be forty.
    expect(commands.count('xadd')).toBeGreaterThanOrEqual(2);
    expect(commands.count('xadd')).toBeLessThanOrEqual(10);
    expect(commands.count('lpush')).toBeGreaterThanOrEqual(2);
    expect(commands.count('lpush')).toBeLessThanOrEqual(16);
    // Their gates leave the indexes they share (expiry, approver, requester, and the channel list
    // earlier versions wrote) in one ZREM per key and write: one per key and vote would be eighty.
    const zrems = commands.count('zrem');
    expect(zrems).toBeGreaterThanOrEqual(4);
    expect(zrems).toBeLessThanOrEqual(40);
    // Gone from them before the votes returned.
    const keys = storeKeys(keyPrefix);
    expect(await redis.zcard(keys.pending('requester:U0REQUESTER'))).toBe(0);
    expect(await redis.zcard(keys.pendingByUser(APPROVER))).toBe(0);
  });

  it('records no call-id key; resumes finished together remove those an earlier version wrote in a few commands, not one each', async () => {
    const inputs = Array.from({ length: 20 }, () => newPause());
    await Promise.all(inputs.map((input) => store.pauses.createPause(input)));
    const keys = storeKeys(keyPrefix);
    const callKeys = inputs.map((input) => keys.call(firstCallId(input)));
    for (const key of callKeys) expect(await redis.exists(key)).toBe(0);
    // As a replica of an earlier version recorded them: each call id names its pause.
    for (const [i, input] of inputs.entries()) await redis.set(callKeys[i] ?? '', input.id);
    for (const input of inputs) {
      await store.pauses.vote(approvalOfFirstGate(input, T0 + 1));
      await store.leases.claimResume({
        pauseId: input.id,
        owner: 'r1',
        now: T0 + 2,
        leaseMs: 1_000,
      });
    }
    const callKeyPrefix = keys.call('');
    let callKeyCommands = 0;
    const client = redis as unknown as {
      sendCommand(command: Command, ...rest: unknown[]): unknown;
    };
    const send = client.sendCommand.bind(client);
    client.sendCommand = (command, ...rest) => {
      if (command.args.some((arg) => String(arg).startsWith(callKeyPrefix))) callKeyCommands += 1;
      return send(command, ...rest);
    };
    await Promise.all(
      inputs.map((input) =>
        store.leases.markResumed({ pauseId: input.id, owner: 'r1', now: T0 + 3 }),
      ),
    );
    // The first goes at once, those that came meanwhile together after it: one each would be 20.
    expect(callKeyCommands).toBeGreaterThanOrEqual(1);
    expect(callKeyCommands).toBeLessThanOrEqual(usingCluster ? 20 : 6);
    for (const key of callKeys) expect(await redis.exists(key)).toBe(0);
  });

  it('parses what never changes once per text: later reads share it, frozen; a bad one still fails', async () => {
    const input = newPause();
    await store.pauses.createPause(input);
    const first = await store.pauses.getPause(input.id);
    const second = await store.pauses.getPause(input.id);
    expect(second?.pause.adk).toBe(first?.pause.adk);
    expect(second?.gates[0]?.policy).toBe(first?.gates[0]?.policy);
    expect(second?.gates[0]?.originalCall).toBe(first?.gates[0]?.originalCall);
    expect(Object.isFrozen(first?.gates[0]?.originalCall.args)).toBe(true);
    // The record a reader gets is its own: the mutable parts are not shared.
    expect(second?.gates[0]?.votes).not.toBe(first?.gates[0]?.votes);

    const keys = storeKeys(keyPrefix);
    await redis.hset(keys.pause(input.id), 'policy:1', '{"rule":');
    await expect(store.pauses.getPause(input.id)).rejects.toThrow(
      new RegExp(`${escapeRegExp(keys.gate(input.id, firstCallId(input)))}.*policy`, 's'),
    );
  });

  it('keeps a finished pause for the retention period, then Redis removes it', async () => {
    const input = newPause({ gates: 2 });
    await store.pauses.createPause(input);
    const keys = storeKeys(keyPrefix);
    for (const callId of callIdsOf(input)) {
      await store.pauses.vote({
        pauseId: input.id,
        callId,
        voter: APPROVER,
        choice: 'approve',
        now: T0 + 1,
      });
    }
    // The trail is a field of the pause hash: a new pause has no audit list key.
    expect(await redis.exists(keys.pauseAudit(input.id))).toBe(0);
    const pauseKeys = keys
      .scriptKeys(input.id, callIdsOf(input))
      .filter((key) => key !== keys.pauseAudit(input.id));
    for (const key of pauseKeys) expect(await redis.pttl(key)).toBe(-1);
    await store.leases.claimResume({ pauseId: input.id, owner: 'r1', now: T0 + 2, leaseMs: 1_000 });
    await store.leases.markResumed({ pauseId: input.id, owner: 'r1', now: T0 + 3 });
    for (const key of pauseKeys) {
      const ttl = await redis.pttl(key);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(retentionMs);
    }
    expect(await redis.zscore(keys.resume, input.id)).toBeNull();
  });

  it('a Retry of a failed resume lifts the retention; abandoning sets it', async () => {
    const failed = newPause();
    const abandoned = newPause();
    await store.pauses.createPause(failed);
    await store.pauses.createPause(abandoned);
    const keys = storeKeys(keyPrefix);
    await store.pauses.vote({
      pauseId: failed.id,
      callId: firstCallId(failed),
      voter: 'U1',
      choice: 'reject',
      now: T0,
    });
    await store.leases.claimResume({ pauseId: failed.id, owner: 'r1', now: T0, leaseMs: 1_000 });
    await store.leases.markResumeFailed({ pauseId: failed.id, owner: 'r1', now: T0, error: 'x' });
    expect(await redis.pttl(keys.pause(failed.id))).toBeGreaterThan(0);
    await store.leases.claimResume({
      pauseId: failed.id,
      owner: 'r2',
      now: T0 + 1,
      leaseMs: 1_000,
      retryFailed: true,
    });
    expect(await redis.pttl(keys.pause(failed.id))).toBe(-1);
    // A call-id key an earlier version recorded goes when its pause is abandoned.
    await redis.set(keys.call(firstCallId(abandoned)), abandoned.id);
    await store.pauses.cancel({ pauseId: abandoned.id, by: 'U9', now: T0 });
    expect(await redis.pttl(keys.gate(abandoned.id, firstCallId(abandoned)))).toBeGreaterThan(0);
    expect(await redis.exists(keys.call(firstCallId(abandoned)))).toBe(0);
  });

  it('finds a decided pause whose "resume due" update was lost, at its next re-check', async () => {
    const recheckMs = 60_000;
    const checking = openRedisStore({ redis, keyPrefix, resumeRecheckMs: recheckMs });
    const input = newPause();
    await checking.pauses.createPause(input);
    await checking.pauses.vote({
      pauseId: input.id,
      callId: firstCallId(input),
      voter: 'U1',
      choice: 'approve',
      now: T0 + 1,
    });
    // As if the process died between the vote script and the index update.
    await redis.zadd(storeKeys(keyPrefix).resume, T0 + recheckMs, input.id);
    expect(await checking.leases.dueResumes(T0 + 2)).toEqual([]);
    expect(await checking.leases.dueResumes(T0 + recheckMs)).toEqual([input.id]);
  });

  it('re-checks a pending pause later instead of listing it, and drops entries of vanished pauses', async () => {
    const recheckMs = 60_000;
    const checking = openRedisStore({ redis, keyPrefix, resumeRecheckMs: recheckMs });
    const keys = storeKeys(keyPrefix);
    const input = newPause();
    await checking.pauses.createPause(input);
    await redis.zadd(keys.resume, T0, 'p-vanished');
    expect(await checking.leases.dueResumes(T0 + recheckMs)).toEqual([]);
    expect(Number(await redis.zscore(keys.resume, input.id))).toBe(T0 + 2 * recheckMs);
    expect(await redis.zscore(keys.resume, 'p-vanished')).toBeNull();
  });

  it('drops expiry entries of decided gates, and of missing pauses once a minute overdue', async () => {
    const keys = storeKeys(keyPrefix);
    const input = newPause({ policies: [policy({ expiresInMs: 1_000 })] });
    await store.pauses.createPause(input);
    await store.pauses.vote({
      pauseId: input.id,
      callId: firstCallId(input),
      voter: 'U1',
      choice: 'approve',
      now: T0 + 1,
    });
    const stale = JSON.stringify([input.id, firstCallId(input)]);
    const orphan = JSON.stringify(['p-being-created', 'c1']);
    await redis.zadd(keys.expiry, T0 + 1_000, stale, T0 + 1_000, orphan);
    expect(await store.sweeps.expireDue(T0 + 1_000)).toEqual([]);
    expect(await redis.zscore(keys.expiry, stale)).toBeNull();
    expect(await redis.zscore(keys.expiry, orphan)).not.toBeNull();
    expect(await store.sweeps.expireDue(T0 + 62_000)).toEqual([]);
    expect(await redis.zscore(keys.expiry, orphan)).toBeNull();
  });

  it('one sweep batch of many pauses leaves no index entry of an expired gate and mirrors every expiry to the global audit', async () => {
    const keys = storeKeys(keyPrefix);
    const expiring = policy({ expiresInMs: 1_000 });
    const rejecting = Array.from({ length: 20 }, () => newPause({ policies: [expiring] }));
    const both = newPause({ gates: 2, policies: [expiring] });
    const abandoning = newPause({
      gates: 2,
      policies: [policy({ expiresInMs: 1_000, onExpiry: 'cancel' })],
    });
    const inputs = [...rejecting, both, abandoning];
    await Promise.all(inputs.map((input) => store.pauses.createPause(input)));
    const swept = openRedisStore({
      redis: await connectTestRedis(),
      keyPrefix,
      ownsClient: true,
    });
    try {
      const expired = await swept.sweeps.expireDue(T0 + 1_000, 1_000);
      expect(expired.length).toBeGreaterThanOrEqual(23);
      expect(await redis.zcard(keys.expiry)).toBe(0);
      expect(await redis.zcard(keys.pending('requester:U0REQUESTER'))).toBe(0);
      expect(await redis.zcard(keys.pendingByUser(APPROVER))).toBe(0);
      expect(await store.leases.dueResumes(T0 + 1_000, 100)).toHaveLength(21);
      const mirrored = (await store.audit.readAudit({ count: 1_000 })).filter(
        (e) => e.event === 'expired',
      );
      expect(mirrored).toHaveLength(expired.length);
      expect(await swept.sweeps.expireDue(T0 + 1_000, 1_000)).toEqual([]);
    } finally {
      await swept.lifecycle.close();
    }
  });

  it('lists a pending gate again after its approver entry was lost, once the pause is recorded again', async () => {
    const keys = storeKeys(keyPrefix);
    const input = newPause();
    await store.pauses.createPause(input);
    await redis.unlink(keys.pendingByUser(APPROVER));
    expect(await store.pending.listPendingByApprover(APPROVER)).toEqual([]);
    expect((await store.pauses.createPause(input)).kind).toBe('existed');
    expect(await store.pending.listPendingByApprover(APPROVER)).toEqual([
      { pauseId: input.id, callId: firstCallId(input) },
    ]);
  });

  it('lists no gate by channel; a channel entry an earlier version wrote goes when its gate is decided', async () => {
    const keys = storeKeys(keyPrefix);
    const listed = newPause();
    const other = newPause();
    await store.pauses.createPause(listed);
    await store.pauses.createPause(other);
    expect(await redis.exists(keys.pendingByChannel(CHANNEL))).toBe(0);
    // As a replica of an earlier version listed them.
    const members = [listed, other].map((input) => JSON.stringify([input.id, firstCallId(input)]));
    await redis.zadd(keys.pendingByChannel(CHANNEL), T0, members[0] ?? '', T0, members[1] ?? '');
    await store.pauses.vote(approvalOfFirstGate(listed, T0 + 1));
    await store.pauses.cancel({ pauseId: other.id, by: 'U9', now: T0 + 1 });
    expect(await redis.exists(keys.pendingByChannel(CHANNEL))).toBe(0);
  });

  it('a pause and its gates live in one hash slot; no key is left without the prefix', async () => {
    const input = newPause({ gates: 2, policies: [policy({ expiresInMs: 1_000 })] });
    await store.pauses.createPause(input);
    const keys = storeKeys(keyPrefix).scriptKeys(input.id, callIdsOf(input));
    const slots = new Set(keys.map((key) => /\{([^}]*)\}/.exec(key)?.[1]));
    expect(slots).toEqual(new Set([input.id]));
    const all = await keysWithPrefix(redis, keyPrefix);
    expect(all.length).toBeGreaterThan(keys.length);
  });
});

describe('Redis unreachable', () => {
  it('connectRedis rejects with StoreError("unavailable") naming the URL without credentials', async () => {
    const connecting = connectRedis('redis://someone:hunter2@127.0.0.1:1/0', {
      connectTimeoutMs: 500,
    });
    await expect(connecting).rejects.toBeInstanceOf(StoreError);
    await expect(connecting).rejects.toMatchObject({ reason: 'unavailable' });
    await expect(connecting).rejects.toThrow('redis://127.0.0.1:1/0');
    await expect(connecting).rejects.not.toThrow('hunter2');
  });

  it('a store whose connection is gone rejects with StoreError("unavailable") instead of waiting', async () => {
    const redis = await connectTestRedis();
    const store = openRedisStore({ redis, keyPrefix: randomPrefix() });
    redis.disconnect();
    await expect(store.pauses.getPause('p1')).rejects.toMatchObject({ reason: 'unavailable' });
    await expect(store.pauses.createPause(newPause())).rejects.toMatchObject({
      reason: 'unavailable',
    });
    await expect(store.sweeps.expireDue(T0)).rejects.toMatchObject({ reason: 'unavailable' });
  });

  it('redactUrl keeps host, port and database, and drops the user and password', () => {
    expect(redactUrl('rediss://user:pw@cache.internal:6380/2')).toBe(
      'rediss://cache.internal:6380/2',
    );
  });
});

/** Counts the scripts a client runs (EVALSHA, or EVAL the first time), by their source. */
/** Counts the commands of the given names this client sends from now on (Redis and Cluster alike). */
function countCommands(redis: RedisClient, names: readonly string[]) {
  const counts = new Map<string, number>();
  // Every command, EVALSHA included, goes through sendCommand.
  const client = redis as unknown as { sendCommand(command: Command, ...rest: unknown[]): unknown };
  const send = client.sendCommand.bind(client);
  client.sendCommand = (command, ...rest) => {
    const name = command.name.toLowerCase();
    if (names.includes(name)) counts.set(name, (counts.get(name) ?? 0) + 1);
    return send(command, ...rest);
  };
  return { count: (name: string) => counts.get(name) ?? 0 };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
