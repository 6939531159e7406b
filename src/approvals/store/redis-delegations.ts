import type { z } from 'zod';
import { parseJsonText } from '../../json.js';
import {
  DELEGATION_AUDIT_KEPT,
  type Delegation,
  type DelegationAuditEntry,
  type DelegationStore,
  delegationAudit,
  delegationAuditEntrySchema,
  delegationSchema,
} from '../delegations.js';
import { assertNoHashTag } from './keys.js';
import { type RedisClient, redisCall } from './redis-connection.js';

/**
 * Hand-overs in Redis: one hash (`<prefix>delegations`: the delegation as JSON by delegator id)
 * and its audit list (`<prefix>delegations:audit`, JSON lines, the last `DELEGATION_AUDIT_KEPT`).
 * A change and its audit entry are one MULTI. Ended hand-overs are left out on read and removed
 * when their delegator sets a new one or ends theirs; a hash of one field per person stays small.
 * The two keys share a hash tag, so that Redis Cluster runs the MULTI on one node.
 */
export class RedisDelegationStore implements DelegationStore {
  private readonly key: string;
  private readonly auditKey: string;

  constructor(
    private readonly redis: RedisClient,
    prefix: string,
  ) {
    assertNoHashTag('The key prefix', prefix);
    this.key = `${prefix}{delegations}`;
    this.auditKey = `${prefix}{delegations}:audit`;
  }

  async get(delegator: string, now: number): Promise<Delegation | undefined> {
    const text = await redisCall(`read ${this.key}`, () => this.redis.hget(this.key, delegator));
    const found = text === null ? undefined : parseDelegation(text);
    return found !== undefined && found.endsAt > now ? found : undefined;
  }

  async list(now: number): Promise<Delegation[]> {
    const all = await redisCall(`read ${this.key}`, () => this.redis.hvals(this.key));
    return all.flatMap((text) => {
      const found = parseDelegation(text);
      return found !== undefined && found.endsAt > now ? [found] : [];
    });
  }

  async set(delegation: Delegation): Promise<void> {
    const entry = delegationAudit('delegation_set', delegation, delegation.setAt);
    const multi = this.redis.multi();
    multi.hset(this.key, delegation.delegator, JSON.stringify(delegation));
    multi.rpush(this.auditKey, JSON.stringify(entry));
    multi.ltrim(this.auditKey, -DELEGATION_AUDIT_KEPT, -1);
    await redisCall(`set a delegation in ${this.key}`, () => multi.exec());
  }

  async end(delegator: string, now: number): Promise<Delegation | undefined> {
    const found = await this.get(delegator, now);
    const multi = this.redis.multi();
    multi.hdel(this.key, delegator);
    if (found !== undefined) {
      multi.rpush(this.auditKey, JSON.stringify(delegationAudit('delegation_ended', found, now)));
      multi.ltrim(this.auditKey, -DELEGATION_AUDIT_KEPT, -1);
    }
    await redisCall(`end a delegation in ${this.key}`, () => multi.exec());
    return found;
  }

  async history(limit = 100): Promise<DelegationAuditEntry[]> {
    const lines = await redisCall(`read ${this.auditKey}`, () =>
      this.redis.lrange(this.auditKey, -limit, -1),
    );
    return lines.flatMap((line) => {
      const parsed = parseWith(delegationAuditEntrySchema, line);
      return parsed === undefined ? [] : [parsed];
    });
  }
}

function parseDelegation(text: string): Delegation | undefined {
  return parseWith(delegationSchema, text);
}

/** A value this class did not write (or a newer shape) is left out rather than trusted. */
function parseWith<T>(schema: z.ZodType<T>, text: string): T | undefined {
  const json = parseJsonText(text);
  if (!json.ok) return undefined;
  const parsed = schema.safeParse(json.value);
  return parsed.success ? parsed.data : undefined;
}
