import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openMemoryStore } from '../../../src/approvals/store/memory-store.js';
import type { RedisClient } from '../../../src/approvals/store/redis-connection.js';
import {
  approvedDetail,
  assertSamePause,
  checkNewPause,
  claimDetail,
  EXPIRY_CANCEL_DETAIL,
  expiredDetail,
  voteDetail,
} from '../../../src/approvals/store/rules.js';
import { luaRules } from '../../../src/approvals/store/scripts/rules.lua.js';
import { connectTestRedis } from '../../support/redis.js';
import { callIdsOf, newPause } from './fixtures.js';

describe('store rules', () => {
  it('a new pause needs an id, gates, and distinct call ids; it answers the call ids in order', () => {
    const input = newPause({ gates: 2 });
    expect(checkNewPause(input)).toEqual(callIdsOf(input));
    expect(() => checkNewPause({ ...input, id: '' })).toThrow('must not be empty');
    expect(() => checkNewPause({ ...input, gates: [] })).toThrow('has no gates');
    const [first] = input.gates;
    if (first === undefined) throw new Error('the fixture has no gate');
    expect(() => checkNewPause({ ...input, gates: [first, first] })).toThrow('call id twice');
  });

  it('a pause found under a new pause id is the same pause only with the same call ids', async () => {
    const input = newPause({ gates: 2 });
    const { view: found } = await openMemoryStore().pauses.createPause(input);
    const callIds = callIdsOf(input);
    expect(() => assertSamePause(input.id, found, [...callIds].reverse())).not.toThrow();
    expect(() => assertSamePause(input.id, found, callIds.slice(1))).toThrow('other call ids');
    expect(() => assertSamePause(input.id, undefined, callIds)).toThrow('other call ids');
  });

  it('audit details state facts, never values', () => {
    expect(voteDetail({ choice: 'reject', payload: { a: 1 }, reason: 'four' })).toBe(
      'choice=reject payload=yes reason_length=4',
    );
    expect(approvedDetail(2, 3)).toBe('approvals=2/3');
    expect(claimDetail({ attempt: 2, leaseMs: 30_000, tookOverFrom: 'r1' })).toBe(
      'attempt=2 lease_ms=30000 took_over_from=r1',
    );
    expect(expiredDetail('cancelled')).toBe('outcome=cancelled');
    expect(EXPIRY_CANCEL_DETAIL).toBe('cause=expiry');
  });
});

describe('store rules in Lua', () => {
  let redis: RedisClient;
  beforeAll(async () => {
    redis = await connectTestRedis();
  });
  afterAll(() => {
    redis.disconnect();
  });

  const evaluate = (body: string) => redis.eval(`${luaRules()}\n${body}`, 0);

  it('the Lua `detail` writes what `auditDetail` writes, leaving out missing values', async () => {
    const lua = await evaluate(`return {
      detail(FACT.approvals, {2, 3}),
      detail(FACT.attempt, 2, FACT.lease_ms, '30000', FACT.took_over_from, 'r1'),
      detail(FACT.attempt, 1, FACT.lease_ms, '30000', FACT.took_over_from, false),
      EXPIRED_DETAIL[STATE.expired],
      EXPIRY_CANCEL_DETAIL
    }`);
    expect(lua).toEqual([
      approvedDetail(2, 3),
      claimDetail({ attempt: 2, leaseMs: 30_000, tookOverFrom: 'r1' }),
      claimDetail({ attempt: 1, leaseMs: 30_000, tookOverFrom: undefined }),
      expiredDetail('expired'),
      EXPIRY_CANCEL_DETAIL,
    ]);
  });

  it('carries the outcome tables, and a name missing from a vocabulary is an error', async () => {
    const lua = await evaluate(`return {
      VOTE_OUTCOME[CHOICE.reject], EXPIRY_OUTCOME.cancel, FINISH_EVENT[RESUME.failed], SYSTEM,
      tostring(RESUME_FINISHED[RESUME.abandoned]), tostring(rawget(STATE, 'maybe'))
    }`);
    expect(lua).toEqual(['rejected', 'cancelled', 'resume_failed', 'system', 'true', 'nil']);
    await expect(evaluate('return EVENT.creatd')).rejects.toThrow('EVENT has no creatd');
  });
});
