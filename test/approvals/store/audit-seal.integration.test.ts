import { describe, expect, it } from 'vitest';
import {
  AUDIT_GENESIS,
  chainBody,
  sha256,
  splitChainLine,
} from '../../../src/approvals/store/audit-chain.js';
import { storeKeys } from '../../../src/approvals/store/keys.js';
import { appendToAuditStream } from '../../../src/approvals/store/redis-audit.js';
import { AuditSealer } from '../../../src/approvals/store/redis-audit-seal.js';
import type { RedisClient } from '../../../src/approvals/store/redis-connection.js';
import { UNSEALED_FIELD } from '../../../src/approvals/store/scripts/fields.js';
import type { ApprovalStore } from '../../../src/approvals/store.js';
import { connectTestRedis, redisStoreForEachTest } from '../../support/redis.js';
import { APPROVER, firstCallId, newPause, T0 } from './fixtures.js';

/**
 * The audit chain's lines are written as bodies by the transition's script and sealed in Node
 * after it (audit-chain.ts). What only the sealing shows, on real Redis: of replicas sealing the
 * same bodies at once one seals them, so each line is copied to the store-wide audit once, and
 * bodies whose writer died before sealing them are sealed, in their place in the chain, by the
 * pause's next transition.
 */
let keyPrefix: string;
let redis: RedisClient;
let store: ApprovalStore;

redisStoreForEachTest((opened) => {
  ({ keyPrefix, redis, store } = opened);
});

/** Each line's hash is over its text, its seq one more and its prev the hash of the line before. */
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

/**
 * Bodies as a transition's script writes them, left unsealed as a process that died right after
 * its script would leave them; returns the chain state the script would have returned.
 */
async function leaveUnsealed(pauseId: string, callId: string, events: readonly string[]) {
  const pauseKey = storeKeys(keyPrefix).pause(pauseId);
  const [seqText, head] = await redis.hmget(pauseKey, 'auditSeq', 'auditHead');
  const seq = Number(seqText);
  const bodies = events.map((event, i) =>
    chainBody({
      pauseId,
      seq: seq + i + 1,
      at: T0 + i,
      event,
      actor: 'U0SOMEONE',
      callId,
      detail: `left unsealed ${i + 1}`,
    }),
  );
  await redis.hset(pauseKey, 'auditSeq', seq + bodies.length, UNSEALED_FIELD, bodies.join('\n'));
  return { head: head ?? '', unsealed: bodies.join('\n') };
}

async function streamLinesOf(pauseId: string): Promise<string[]> {
  const page = await store.audit.readAudit({ count: 1000 });
  return page.filter((entry) => entry.pauseId === pauseId).map((entry) => entry.line ?? '');
}

describe('sealing the audit chain after the script', () => {
  it('of two replicas sealing the same bodies at once, one seals them: each line is copied to the store-wide audit once', async () => {
    const input = newPause();
    await store.pauses.createPause(input);
    const state = await leaveUnsealed(input.id, firstCallId(input), ['outcome', 'outcome']);
    const keys = storeKeys(keyPrefix);
    const where = keys.pause(input.id);
    const other = await connectTestRedis();
    try {
      const [mine, theirs] = await Promise.all([
        new AuditSealer(redis, undefined).seal(where, state),
        new AuditSealer(other, undefined).seal(where, state),
      ]);
      // One of them sealed both bodies; the other found the head moved and nothing left.
      expect([mine.length, theirs.length].sort()).toEqual([0, 2]);
      // Each copies what it sealed, as the store does after a transition.
      const sealed = [...mine, ...theirs].map((entry) => ({ pauseId: input.id, entry, at: '1' }));
      await appendToAuditStream(redis, keys.audit, sealed);
    } finally {
      other.disconnect();
    }
    const trail = await store.audit.readAudit({ pauseId: input.id });
    expect(trail.map((entry) => entry.detail ?? '')).toEqual([
      expect.any(String),
      'left unsealed 1',
      'left unsealed 2',
    ]);
    expectChained(trail.map((entry) => entry.line ?? ''));
    expect(await redis.hexists(keys.pause(input.id), UNSEALED_FIELD)).toBe(0);
  });

  it('bodies a dead writer left are shown unsealed, then sealed in their place by the next transition, which mirrors them once', async () => {
    const input = newPause();
    const callId = firstCallId(input);
    await store.pauses.createPause(input);
    await leaveUnsealed(input.id, callId, ['outcome']);

    const before = await store.audit.readAudit({ pauseId: input.id });
    expect(before).toHaveLength(2);
    expect(before[1]).toMatchObject({ event: 'outcome', detail: 'left unsealed 1' });
    expect(before[1]?.line).toBeUndefined();

    const voted = await store.pauses.vote({
      pauseId: input.id,
      callId,
      voter: APPROVER,
      choice: 'approve',
      now: T0 + 10,
    });
    expect(voted.kind).toBe('decided');
    const trail = await store.audit.readAudit({ pauseId: input.id });
    expect(trail.map((entry) => entry.event)).toEqual(['created', 'outcome', 'voted', 'approved']);
    const lines = trail.map((entry) => entry.line ?? '');
    expectChained(lines);
    expect(await streamLinesOf(input.id)).toEqual(lines);
  });
});
