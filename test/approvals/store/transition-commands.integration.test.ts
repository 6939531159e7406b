import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RedisClient } from '../../../src/approvals/store/redis-connection.js';
import { openRedisStore } from '../../../src/approvals/store/redis-store.js';
import type { ApprovalStore } from '../../../src/approvals/store.js';
import { countingLua } from '../../support/counting-lua.js';
import {
  connectTestRedis,
  deleteWithPrefix,
  randomPrefix,
  usingCluster,
} from '../../support/redis.js';
import { approvalOfFirstGate, newPause, T0 } from './fixtures.js';

/**
 * What a decision's transitions cost inside Redis, pinned script by script: the app bench's
 * "Redis commands per decision" counts every command a script runs. Each script the store sends
 * is run as it is, with `redis` shadowed by a table that counts each call and pcall (a client
 * sees only its EVALSHA).
 */

let keyPrefix: string;
let redis: RedisClient;

beforeEach(async () => {
  keyPrefix = randomPrefix();
  redis = await connectTestRedis();
});
afterEach(async () => {
  await deleteWithPrefix(redis, keyPrefix);
  redis.disconnect();
});

/** How many commands each script call ran inside Redis, in the order called. */
type Counted = Array<{ commands: number }>;

/**
 * A client whose scripts count the commands they run: EVALSHA answers NOSCRIPT, so that the store
 * sends each script's source, which is run inside a counting wrapper.
 */
function countingClient(client: RedisClient, counted: Counted): RedisClient {
  const evalCounting = async (source: string, ...rest: unknown[]) => {
    const [commands, reply] = (await Reflect.apply(client.eval, client, [
      countingLua(source),
      ...rest,
    ])) as [number, unknown];
    counted.push({ commands });
    return reply;
  };
  return new Proxy(client, {
    get(target, property, receiver) {
      if (property === 'evalsha') return () => Promise.reject(new Error('NOSCRIPT counted'));
      if (property === 'eval') return evalCounting;
      const value = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

describe.skipIf(usingCluster)('a decision’s transitions inside Redis', () => {
  let store: ApprovalStore;
  const counted: Counted = [];
  beforeEach(() => {
    counted.length = 0;
    store = openRedisStore({ redis: countingClient(redis, counted), keyPrefix });
  });
  afterEach(() => store.lifecycle.close());

  it('create, a deciding vote, the claim and the finish: each hash read once and written once', async () => {
    const input = newPause();
    await store.pauses.createPause(input);
    // A new pause's hashes are known to be empty: nothing of them is read. Whether the pause
    // exists, the gate's DEL (a leftover gate), the audit list's type (none: the pause is
    // recorded as having none, and its later transitions do not ask), then one HSET per hash.
    expect(counted.splice(0)).toEqual([{ commands: 5 }]);

    const vote = await store.pauses.vote(approvalOfFirstGate(input, T0 + 1));
    expect(vote.kind).toBe('decided');
    // The pause's fields (with its gate's audit facts and the trail the sealed lines go to), the
    // gate's fields (with the voter's vote), then one HSET per hash: no HDEL of the audit body
    // the call sealed itself, and no TYPE of the audit list the pause was recorded without.
    expect(counted.splice(0)).toEqual([{ commands: 4 }]);

    const claim = await store.leases.claimResume({
      pauseId: input.id,
      owner: 'replica-a',
      now: T0 + 2,
      leaseMs: 60_000,
    });
    expect(claim.kind).toBe('claimed');
    expect(counted.splice(0)).toEqual([{ commands: 3 }]);

    const finish = await store.leases.markResumed({
      pauseId: input.id,
      owner: 'replica-a',
      now: T0 + 3,
    });
    expect(finish.kind).toBe('ok');
    // As the claim, and the retention set on the pause and its gate: not on the audit list the
    // pause does not have.
    expect(counted.splice(0, 1)).toEqual([{ commands: 5 }]);
  });

  it('a deciding vote given a claim owner claims the resume in its own script, its lines sealed in it', async () => {
    const input = newPause();
    await store.pauses.createPause(input);
    counted.length = 0;
    const vote = await store.pauses.vote(
      approvalOfFirstGate(input, T0 + 1, { resumeClaim: { owner: 'replica-a', leaseMs: 60_000 } }),
    );
    expect(vote).toMatchObject({ kind: 'decided', claimed: { attempt: 1 } });
    // One script call (no claim_resume, no separate seal), running what the vote alone runs.
    expect(counted.splice(0)).toEqual([{ commands: 4 }]);
    const trail = await store.audit.readAudit({ pauseId: input.id });
    expect(trail.map((entry) => [entry.event, entry.line !== undefined])).toEqual([
      ['created', true],
      ['voted', true],
      ['approved', true],
      ['resume_claimed', true],
    ]);
  });

  it('a replica that only read the pause seals its deciding vote’s lines in the vote: no separate seal', async () => {
    const input = newPause();
    const recorder = openRedisStore({ redis, keyPrefix });
    await recorder.pauses.createPause(input);
    await recorder.lifecycle.close();
    expect(await store.pauses.getPause(input.id)).toBeDefined();
    // The read: one HMGET of the pause (its chain with it) and one of its gate.
    expect(counted.splice(0)).toEqual([{ commands: 2 }]);
    const vote = await store.pauses.vote(approvalOfFirstGate(input, T0 + 1));
    expect(vote.kind).toBe('decided');
    expect(counted.splice(0)).toEqual([{ commands: 4 }]);
    const trail = await store.audit.readAudit({ pauseId: input.id });
    expect(trail.map((entry) => entry.event)).toEqual(['created', 'voted', 'approved']);
  });
});
