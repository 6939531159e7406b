import { z } from 'zod';
import { parseJsonText } from '../../json.js';
import { StoreError } from '../store.js';
import {
  type ClaimNudgesInput,
  type DueNudge,
  NUDGE_KINDS,
  type NudgeKind,
  type NudgeQueue,
} from '../store-roles/nudges.js';
import type { StoreKeys } from './keys.js';
import { type RedisClient, redisCall } from './redis-connection.js';
import { DEFAULT_LIMIT } from './rules.js';
import { LuaScript } from './scripts/lua-script.js';
import { parseCodeReply } from './scripts/reply.js';
import { ZSET_CAS_LUA } from './scripts/zset-cas.lua.js';

/**
 * The Redis store's reminder and escalation index: one sorted set of `[pauseId, callId, kind]`
 * by due time, written before the pause's records (as its expiry entries are), so that no
 * pending gate exists without its nudges. A claim moves an entry's score to the end of its lease
 * with a compare-and-set, so exactly one replica wins it; finishing removes it only if that
 * claim still holds it. A replica that dies in between leaves it due again when the lease ends.
 */
const memberSchema = z.tuple([z.string(), z.string(), z.enum(NUDGE_KINDS)]);
const ZSET_CAS = new LuaScript('zset_cas', ZSET_CAS_LUA);
/** An entry whose pause does not exist may belong to a pause being created right now. */
const ORPHAN_GRACE_MS = 60_000;

export function nudgeMember(pauseId: string, callId: string, kind: NudgeKind): string {
  return JSON.stringify([pauseId, callId, kind]);
}

export class RedisNudges implements NudgeQueue {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: StoreKeys,
  ) {}

  /** Before a pause's records exist; NX: recording the pause again changes nothing. */
  beforeCreate(
    pauseId: string,
    nudges: readonly { callId: string; kind: NudgeKind; dueAt: number }[],
  ): Promise<unknown> {
    if (nudges.length === 0) return Promise.resolve();
    const args = nudges.flatMap(({ callId, kind, dueAt }) => [
      dueAt,
      nudgeMember(pauseId, callId, kind),
    ]);
    return redisCall('index the new pause', () => this.redis.zadd(this.keys.nudges, 'NX', ...args));
  }

  async claimDueNudges(input: ClaimNudgesInput): Promise<DueNudge[]> {
    const { now, leaseMs, limit = DEFAULT_LIMIT } = input;
    const key = this.keys.nudges;
    const raw = await redisCall(`read ${key}`, () =>
      this.redis.zrangebyscore(key, '-inf', now, 'WITHSCORES', 'LIMIT', 0, limit),
    );
    const claimed: DueNudge[] = [];
    for (let i = 0; i + 1 < raw.length; i += 2) {
      const member = raw[i] ?? '';
      const score = raw[i + 1] ?? '';
      const [pauseId, callId, kind] = parseMember(key, member);
      const gateKey = this.keys.gate(pauseId, callId);
      const state = await redisCall(`read ${gateKey}`, () => this.redis.hget(gateKey, 'state'));
      if (state === null) {
        if (Number(score) < now - ORPHAN_GRACE_MS) await this.cas(member, score, '');
        continue;
      }
      if (state !== 'pending') {
        await this.cas(member, score, '');
        continue;
      }
      const claimedUntil = now + leaseMs;
      if (await this.cas(member, score, String(claimedUntil))) {
        claimed.push({ pauseId, callId, kind, claimedUntil });
      }
    }
    return claimed;
  }

  async finishNudge(nudge: DueNudge): Promise<void> {
    const member = nudgeMember(nudge.pauseId, nudge.callId, nudge.kind);
    await this.cas(member, String(nudge.claimedUntil), '');
  }

  /** True when the entry still had `expected` as its score and now has `next` (or is gone). */
  private async cas(member: string, expected: string, next: string): Promise<boolean> {
    const key = this.keys.nudges;
    const raw = await redisCall(`update ${key}`, () =>
      ZSET_CAS.run(this.redis, [key], [member, expected, next]),
    );
    return parseCodeReply(ZSET_CAS.name, raw) === 'OK';
  }
}

function parseMember(key: string, member: string): [string, string, NudgeKind] {
  const json = parseJsonText(member);
  const parsed = memberSchema.safeParse(json.ok ? json.value : undefined);
  if (!parsed.success) {
    throw new StoreError(
      'corrupt_record',
      `${key} holds an entry that is not [pauseId, callId, kind]`,
    );
  }
  return parsed.data;
}
