import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { storeKeys } from '../../../src/approvals/store/keys.js';
import type { RedisClient } from '../../../src/approvals/store/redis-connection.js';
import { indexMember } from '../../../src/approvals/store/redis-index-members.js';
import { BATCH_PART } from '../../../src/approvals/store/redis-pause-scripts.js';
import { openRedisStore } from '../../../src/approvals/store/redis-store.js';
import { EXPIRE_GATE } from '../../../src/approvals/store/scripts/expire-gate.lua.js';
import { EXPIRE_GATES } from '../../../src/approvals/store/scripts/expire-gates.lua.js';
import { UNSEALED_FIELD } from '../../../src/approvals/store/scripts/fields.js';
import { LuaScript } from '../../../src/approvals/store/scripts/lua-script.js';
import {
  SEAL_AUDIT_LUA,
  SEAL_AUDITS_LUA,
} from '../../../src/approvals/store/scripts/seal-audit.lua.js';
import { type ApprovalStore, StoreError } from '../../../src/approvals/store.js';
import {
  connectTestRedis,
  deleteWithPrefix,
  randomPrefix,
  usingCluster,
} from '../../support/redis.js';
import { exportedAudit } from './audit-exports.js';
import { firstCallId, newPause, policy, T0 } from './fixtures.js';
import { whileScriptsRun } from './script-calls.js';

/**
 * On a single Redis the sweeper expires the due gates of many pauses in one expire_gates call
 * and seals the lines of those whose chain it did not know in one seal_audits call, each gate
 * exactly as expire_gate would (redis-sweeps.ts); beside it, a previous version's replica still
 * expiring one gate per call must not expire any gate twice.
 */
const SCRIPT_NAMES = new Map<string, string>([
  [EXPIRE_GATES.sha, 'expire_gates'],
  [EXPIRE_GATE.lua.sha, 'expire_gate'],
  [new LuaScript('seal_audit', SEAL_AUDIT_LUA).sha, 'seal_audit'],
  [new LuaScript('seal_audits', SEAL_AUDITS_LUA).sha, 'seal_audits'],
]);

let keyPrefix: string;
let redis: RedisClient;
let creator: ApprovalStore;
const others: { store: ApprovalStore; client: RedisClient }[] = [];

beforeEach(async () => {
  keyPrefix = randomPrefix();
  redis = await connectTestRedis();
  creator = openRedisStore({ redis, keyPrefix });
});
afterEach(async () => {
  await deleteWithPrefix(redis, keyPrefix);
  for (const { store, client } of others.splice(0)) {
    await store.lifecycle.close();
    client.disconnect();
  }
  await creator.lifecycle.close();
  redis.disconnect();
});

/** A replica that never saw these pauses: no call ids cached, no chain known. */
async function otherReplica(): Promise<ApprovalStore> {
  const client = await connectTestRedis();
  const store = openRedisStore({ redis: client, keyPrefix });
  others.push({ store, client });
  return store;
}

/**
 * A replica of the previous version: every due entry through its own expire_gate call, its
 * lines sealed by seal_audit (what the sweeper does per entry, and did for all before batches).
 */
async function previousVersionReplica(): Promise<ApprovalStore> {
  const store = await otherReplica();
  Object.defineProperty(store.sweeps, 'expireBatch', {
    value: async (entries: readonly unknown[]) => [...entries.keys()],
  });
  return store;
}

/** The scripts (by name) all clients of this file ran on this test's keys during `work`. */
async function scriptsRunDuring(work: () => Promise<unknown>): Promise<Map<string, number>> {
  const runs = new Map<string, number>();
  await whileScriptsRun((sha, firstKey) => {
    if (typeof firstKey !== 'string' || !firstKey.startsWith(keyPrefix)) return;
    const name = SCRIPT_NAMES.get(sha) ?? 'another';
    runs.set(name, (runs.get(name) ?? 0) + 1);
  }, work);
  return runs;
}

/** Every pause's trail sealed (nothing left unsealed) and mirrored line for line, once. */
async function expectTrailsSealedOnce(pauseIds: readonly string[]): Promise<void> {
  const page = await creator.audit.readAudit({ count: 10_000 });
  for (const pauseId of pauseIds) {
    const trail = await creator.audit.readAudit({ pauseId });
    const mirrored = page.filter((entry) => entry.pauseId === pauseId);
    expect(mirrored.map((entry) => entry.line)).toEqual(trail.map((entry) => entry.line));
    const pauseKey = storeKeys(keyPrefix).pause(pauseId);
    expect(await redis.hexists(pauseKey, UNSEALED_FIELD)).toBe(0);
  }
  expect((await exportedAudit(creator)).verdict).toMatchObject({ ok: true });
}

/** Single pauses expiring to a deny, and two-gate pauses whose first gate's expiry cancels. */
function duePauses(count: number) {
  return Array.from({ length: count }, (_, i) =>
    i % 3 === 2
      ? newPause({
          gates: 2,
          policies: [policy({ expiresInMs: 1_000, onExpiry: 'cancel' }), policy()],
        })
      : newPause({ policies: [policy({ expiresInMs: 1_000 })] }),
  );
}

describe('expiries in batches', () => {
  it.skipIf(usingCluster)(
    'a replica that never saw the pauses expires one gate of each in one expire_gates call and seals all their lines in one seal_audits call',
    async () => {
      const inputs = duePauses(9).filter((input) => input.gates.length === 1);
      for (const input of inputs) await creator.pauses.createPause(input);
      const sweeper = await otherReplica();
      let expired: string[] = [];
      const runs = await scriptsRunDuring(async () => {
        expired = (await sweeper.sweeps.expireDue(T0 + 1_000)).map((gate) => gate.callId);
      });
      expect(expired.sort()).toEqual(inputs.map(firstCallId).sort());
      // (the other scripts: the indexes' and the audit mirror's, batched as before)
      runs.delete('another');
      expect(Object.fromEntries(runs)).toEqual({ expire_gates: 1, seal_audits: 1 });
      await expectTrailsSealedOnce(inputs.map((input) => input.id));
    },
  );

  it.skipIf(usingCluster)(
    'a batch larger than a part goes in parts, each sealed and reported; a gate whose record does not read fails alone, naming its key',
    async () => {
      const inputs = Array.from({ length: 2 * BATCH_PART + 1 }, () =>
        newPause({ policies: [policy({ expiresInMs: 1_000 })] }),
      );
      for (const input of inputs) await creator.pauses.createPause(input);
      // In the second part: the script expires it, Node cannot read it back.
      const garbled = inputs[BATCH_PART + 1];
      if (garbled === undefined) throw new Error('no pause');
      const gateKey = storeKeys(keyPrefix).gate(garbled.id, firstCallId(garbled));
      await redis.hset(gateKey, 'record', '{"kind":"confirmation"}');
      const sweeper = await otherReplica();
      let failed: unknown;
      const runs = await scriptsRunDuring(async () => {
        failed = await sweeper.sweeps.expireDue(T0 + 1_000, 1_000).catch((error: unknown) => error);
      });
      expect(failed).toBeInstanceOf(StoreError);
      expect((failed as StoreError).message).toContain(gateKey);
      runs.delete('another');
      // The last part holds one pause: sealed alone.
      expect(Object.fromEntries(runs)).toEqual({ expire_gates: 3, seal_audits: 2, seal_audit: 1 });
      // Every other pause, its part's neighbours of the garbled one included, is reported.
      const due = await redis.zrange(storeKeys(keyPrefix).expiry, 0, -1);
      expect(due).toEqual([indexMember(garbled.id, firstCallId(garbled))]);
      const fine = inputs.filter((input) => input !== garbled);
      await expectTrailsSealedOnce(fine.map((input) => input.id));
    },
  );

  it('a pause the sweeper guessed wrong (two gates) is expired alone with its real call ids, a cancelling expiry with every line it writes', async () => {
    const inputs = duePauses(6);
    for (const input of inputs) await creator.pauses.createPause(input);
    const sweeper = await otherReplica();
    const expired = await sweeper.sweeps.expireDue(T0 + 1_000);
    expect(expired.map((gate) => gate.callId).sort()).toEqual(inputs.map(firstCallId).sort());
    for (const input of inputs.filter((pause) => pause.gates.length === 2)) {
      const trail = await creator.audit.readAudit({ pauseId: input.id });
      expect(trail.map((entry) => entry.event)).toEqual([
        'created',
        'expired',
        'cancelled',
        'abandoned',
      ]);
    }
    await expectTrailsSealedOnce(inputs.map((input) => input.id));
  });

  it('a garbled gate fails the sweep with a StoreError naming its key, and the other pauses of the batch are expired, reported to the indexes and mirrored', async () => {
    const inputs = duePauses(3).filter((input) => input.gates.length === 1);
    for (const input of inputs) await creator.pauses.createPause(input);
    const [garbled, ...fine] = inputs;
    if (!garbled) throw new Error('no pause');
    const gateKey = storeKeys(keyPrefix).gate(garbled.id, firstCallId(garbled));
    await redis.hset(gateKey, 'state', 'garbled');
    const sweeper = await otherReplica();
    const failed = await sweeper.sweeps.expireDue(T0 + 1_000).catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(StoreError);
    expect((failed as StoreError).message).toContain(gateKey);
    // The others' expiries were applied and reported: no due entry of theirs is left.
    expect(await sweeper.sweeps.expireDue(T0 + 1_000).catch(() => [])).toEqual([]);
    const due = await redis.zrange(storeKeys(keyPrefix).expiry, 0, -1);
    expect(due).toHaveLength(1);
    for (const input of fine) {
      const trail = await creator.audit.readAudit({ pauseId: input.id });
      expect(trail.map((entry) => entry.event)).toEqual(['created', 'expired']);
    }
    await expectTrailsSealedOnce(fine.map((input) => input.id));
  });

  it("a previous version's replica expiring one gate per call, racing the batches on the same due gates: each gate expires exactly once, and audit verify passes on the export", async () => {
    const inputs = duePauses(60);
    for (const input of inputs) await creator.pauses.createPause(input);
    const batching = await otherReplica();
    const previous = await previousVersionReplica();
    const reported: string[] = [];
    const sweepAll = async (store: ApprovalStore, limit: number) => {
      for (;;) {
        const gates = await store.sweeps.expireDue(T0 + 1_000, limit);
        reported.push(...gates.map((gate) => gate.callId));
        if (gates.length === 0) return;
      }
    };
    // The creator sweeps too: it knows the chains, so its lines are sealed ahead.
    await Promise.all([sweepAll(batching, 7), sweepAll(previous, 5), sweepAll(creator, 11)]);
    expect(reported.sort()).toEqual(inputs.map(firstCallId).sort());
    for (const input of inputs) {
      const trail = await creator.audit.readAudit({ pauseId: input.id });
      expect(trail.filter((entry) => entry.event === 'expired')).toHaveLength(1);
    }
    await expectTrailsSealedOnce(inputs.map((input) => input.id));
  });
});
