import { Cluster, Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { auditExportLines } from '../../../src/approvals/audit-export.js';
import { AuditVerifier } from '../../../src/approvals/audit-verify.js';
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
import { connectTestRedis, deleteWithPrefix, randomPrefix } from '../../support/redis.js';
import { APPROVER, firstCallId, newPause, policy, T0 } from './fixtures.js';

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

beforeEach(async () => {
  keyPrefix = randomPrefix();
  redis = await connectTestRedis();
  store = openRedisStore({ redis, keyPrefix });
});
afterEach(async () => {
  await deleteWithPrefix(redis, keyPrefix);
  await store.lifecycle.close();
  redis.disconnect();
});

/**
 * How many separate seals of this test's pauses the stores sent during `work`, counted where
 * every client of this file sends its scripts (EVALSHA, or EVAL when Redis lacked the script).
 * (Counted at the client, not with MONITOR: ioredis's monitor connection once mistook another
 * test file's command for a reply under load.)
 */
async function sealCallsDuring(work: () => Promise<unknown>): Promise<number> {
  let seals = 0;
  const count = (script: unknown, keys: unknown[]) => {
    const firstKey = keys[1];
    const isSeal = script === SEAL_SHA || script === SEAL_AUDIT_LUA;
    if (isSeal && typeof firstKey === 'string' && firstKey.startsWith(keyPrefix)) seals += 1;
  };
  const restore = [Redis.prototype, Cluster.prototype].flatMap((proto) =>
    (['evalsha', 'eval'] as const).map((name) => {
      const own = Object.hasOwn(proto, name);
      const original = proto[name];
      Object.defineProperty(proto, name, {
        configurable: true,
        writable: true,
        value(this: unknown, script: unknown, ...rest: unknown[]) {
          count(script, rest);
          return Reflect.apply(original, this, [script, ...rest]);
        },
      });
      return () => {
        if (own)
          Object.defineProperty(proto, name, {
            configurable: true,
            writable: true,
            value: original,
          });
        else Reflect.deleteProperty(proto, name);
      };
    }),
  );
  try {
    await work();
    return seals;
  } finally {
    for (const undo of restore) undo();
  }
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

/** What `audit verify` says of an export of the whole store-wide audit. */
async function verifyExport(from: ApprovalStore) {
  const verifier = new AuditVerifier();
  for await (const line of auditExportLines(from, { limit: 10_000 })) verifier.add(line);
  return verifier.result();
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
    expect(await verifyExport(store)).toMatchObject({ ok: true });
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
    expect(await verifyExport(store)).toMatchObject({ ok: true });
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
    expect(await verifyExport(store)).toMatchObject({ ok: true });
  });
});
