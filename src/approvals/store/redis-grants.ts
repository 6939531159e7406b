import { z } from 'zod';
import { parseJsonText } from '../../json.js';
import {
  GRANT_MAX_MS,
  type Grant,
  type GrantableCall,
  type GrantStore,
  type GrantUseOptions,
  grantSchema,
  scopeOfOffer,
} from '../grants.js';
import { StoreError } from '../store.js';
import { assertNoHashTag } from './keys.js';
import { type RedisClient, redisCall } from './redis-connection.js';
import { LuaScript } from './scripts/lua-script.js';

/**
 * Grants in Redis, every key in the hash slot `{grants}`, so that using and revoking a grant are
 * single atomic steps on Redis Cluster as on one Redis:
 *
 * ```
 * <prefix>{grants}:grant:<id>          hash  grant (JSON, as given), uses; expires with the grant
 * <prefix>{grants}:all                 zset  grant ids by expiresAt
 * <prefix>{grants}:requester:<user>    zset  the grants covering a requester's calls, by expiresAt
 * <prefix>{grants}:granter:<user>      zset  the grants a person gave, by expiresAt
 * ```
 *
 * The indexes are pruned of expired ids whenever a grant is given; readers skip ids whose grant
 * has expired (its hash expires on its own).
 */

/**
 * use_grant: the first of the candidate grants that covers the call (the Lua twin of
 * `grantCovers`), its uses counted.
 * KEYS: candidate grant hashes, soonest to expire first
 * ARGV: [1] now, [2] app, [3] tool, [4] requester, [5] rule, [6] scopes offered (comma list),
 *       [7] session key, [8] arguments digest, [9] '1' to count the use, '0' to only look,
 *       [10] the call's origin (a grant without one covers nothing)
 * Returns {grant JSON, uses} or false
 */
const USE_GRANT_LUA = `
local now = tonumber(ARGV[1])
local offered = {}
for scope in string.gmatch(ARGV[6], '[^,]+') do offered[scope] = true end
for _, key in ipairs(KEYS) do
  local text = redis.call('HGET', key, 'grant')
  if text then
    local ok, g = pcall(cjson.decode, text)
    if ok and type(g) == 'table' and type(g.expiresAt) == 'number' and g.expiresAt > now
      and g.app == ARGV[2] and g.tool == ARGV[3] and g.requester == ARGV[4]
      and g.rule == ARGV[5] and offered[g.scope] and g.origin == ARGV[10]
      and (g.scope ~= 'session' or g.sessionKey == ARGV[7])
      and (g.scope ~= 'exactArgs' or g.argsDigest == ARGV[8]) then
      if ARGV[9] == '0' then return {text, redis.call('HGET', key, 'uses') or '0'} end
      return {text, redis.call('HINCRBY', key, 'uses', 1)}
    end
  end
end
return false
`;

/**
 * revoke_grant: removes a grant and its index entries, once.
 * KEYS: [1] the grant hash, [2..] the indexes that list it
 * ARGV: [1] the grant id
 * Returns {grant JSON, uses} or false when it was gone already
 */
const REVOKE_GRANT_LUA = `
local text = redis.call('HGET', KEYS[1], 'grant')
if not text then return false end
local uses = redis.call('HGET', KEYS[1], 'uses') or '0'
redis.call('DEL', KEYS[1])
for i = 2, #KEYS do redis.call('ZREM', KEYS[i], ARGV[1]) end
return {text, uses}
`;

const useScript = new LuaScript('use_grant', USE_GRANT_LUA);
const revokeScript = new LuaScript('revoke_grant', REVOKE_GRANT_LUA);
const pairSchema = z.tuple([z.string(), z.union([z.string(), z.number()])]);

/** The fields a grant's JSON holds: everything but its use count, which the hash counts. */
type GrantFacts = Omit<Grant, 'uses'>;
const grantFactsSchema = grantSchema.omit({ uses: true });

export class RedisGrantStore implements GrantStore {
  private readonly tag: string;

  constructor(
    private readonly redis: RedisClient,
    prefix: string,
  ) {
    assertNoHashTag('The key prefix', prefix);
    this.tag = `${prefix}{grants}`;
  }

  async create(grant: Grant): Promise<void> {
    const { uses: _uses, ...facts } = grant;
    const key = this.grantKey(grant.id);
    const multi = this.redis.multi();
    multi.hset(key, 'grant', JSON.stringify(facts), 'uses', grant.uses);
    multi.pexpireat(key, grant.expiresAt);
    for (const index of this.indexesOf(grant)) {
      multi.zremrangebyscore(index, '-inf', grant.createdAt);
      multi.zadd(index, grant.expiresAt, grant.id);
      // No grant lives longer: an index nobody added to since is empty.
      multi.pexpire(index, GRANT_MAX_MS + 60_000);
    }
    await redisCall(`give grant ${key}`, () => multi.exec());
  }

  async use(
    call: GrantableCall,
    now: number,
    { only, count = true }: GrantUseOptions = {},
  ): Promise<Grant | undefined> {
    const index = this.requesterIndex(call.requester);
    const ids =
      only !== undefined
        ? [only]
        : await redisCall(`read ${index}`, () =>
            this.redis.zrangebyscore(index, `(${now}`, '+inf'),
          );
    if (ids.length === 0) return undefined;
    const scopes = [...new Set(call.offers.map(scopeOfOffer))].join(',');
    const raw = await redisCall(`use a grant of ${index}`, () =>
      useScript.run(
        this.redis,
        ids.map((id) => this.grantKey(id)),
        [
          now,
          call.app,
          call.tool,
          call.requester,
          call.rule,
          scopes,
          call.sessionKey,
          call.argsDigest,
          count ? '1' : '0',
          call.origin,
        ],
      ),
    );
    return raw === null ? undefined : this.decode(`a grant of ${index}`, raw);
  }

  async get(id: string, now: number): Promise<Grant | undefined> {
    const key = this.grantKey(id);
    const [text, uses] = await redisCall(`read ${key}`, () =>
      this.redis.hmget(key, 'grant', 'uses'),
    );
    if (text == null) return undefined;
    const grant = this.decode(key, [text, uses ?? '0']);
    return grant.expiresAt > now ? grant : undefined;
  }

  async list(filter: { person?: string }, now: number): Promise<Grant[]> {
    const { person } = filter;
    const indexes =
      person === undefined
        ? [this.allIndex()]
        : [this.requesterIndex(person), this.granterIndex(person)];
    const listed = await redisCall(`read ${indexes.join(', ')}`, () =>
      Promise.all(indexes.map((index) => this.redis.zrangebyscore(index, `(${now}`, '+inf'))),
    );
    const ids = [...new Set(listed.flat())];
    if (ids.length === 0) return [];
    const pipeline = this.redis.pipeline();
    for (const id of ids) pipeline.hmget(this.grantKey(id), 'grant', 'uses');
    const replies = (await redisCall('read grants', () => pipeline.exec())) ?? [];
    const grants: Grant[] = [];
    replies.forEach(([error, value], i) => {
      const key = this.grantKey(ids[i] ?? '');
      if (error) throw new StoreError('unavailable', `read ${key}: ${error.message}`);
      const [text, uses] = value as (string | null)[];
      if (text == null) return;
      const grant = this.decode(key, [text, uses ?? '0']);
      if (grant.expiresAt > now) grants.push(grant);
    });
    return grants.sort((a, b) => a.expiresAt - b.expiresAt);
  }

  async revoke(id: string, now: number): Promise<Grant | undefined> {
    const known = await this.get(id, now);
    if (known === undefined) return undefined;
    const key = this.grantKey(id);
    const raw = await redisCall(`revoke ${key}`, () =>
      revokeScript.run(this.redis, [key, ...this.indexesOf(known)], [id]),
    );
    return raw === null ? undefined : this.decode(key, raw);
  }

  private decode(key: string, raw: unknown): Grant {
    const pair = pairSchema.safeParse(raw);
    const json = pair.success ? parseJsonText(pair.data[0]) : undefined;
    const facts = json?.ok ? grantFactsSchema.safeParse(json.value) : undefined;
    const uses = pair.success ? Number(pair.data[1]) : Number.NaN;
    if (!facts?.success || !Number.isInteger(uses)) {
      throw new StoreError('corrupt_record', `${key} does not hold a valid grant`);
    }
    const grant: GrantFacts = facts.data;
    return { ...grant, uses };
  }

  private indexesOf(grant: Pick<Grant, 'requester' | 'granter'>): string[] {
    return [
      this.allIndex(),
      this.requesterIndex(grant.requester),
      this.granterIndex(grant.granter),
    ];
  }

  private grantKey(id: string): string {
    return `${this.tag}:grant:${id}`;
  }

  private allIndex(): string {
    return `${this.tag}:all`;
  }

  private requesterIndex(requester: string): string {
    return `${this.tag}:requester:${requester}`;
  }

  private granterIndex(granter: string): string {
    return `${this.tag}:granter:${granter}`;
  }
}
