import { z } from 'zod';
import type { CardClaimInput, CardClaims } from '../card-claims.js';
import type { StoreKeys } from './keys.js';
import { type RedisClient, redisCall } from './redis-connection.js';
import { LuaScript } from './scripts/lua-script.js';

/**
 * claim_card: takes a card claim nobody holds, or renews the holder's own.
 * KEYS: [1] the pause's card-claim key
 * ARGV: [1] owner, [2] lease ms
 * Returns 1 (taken or renewed) | 0 (another holds it)
 */
const CLAIM_CARD_LUA = `
local holder = redis.call('GET', KEYS[1])
if holder and holder ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1
`;

/**
 * release_card: deletes a card claim, only its holder's.
 * KEYS: [1] the pause's card-claim key
 * ARGV: [1] owner
 * Returns 1 (released) | 0 (another holds it, or nobody)
 */
const RELEASE_CARD_LUA = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1])
return 1
`;

const claimScript = new LuaScript('claim_card', CLAIM_CARD_LUA);
const releaseScript = new LuaScript('release_card', RELEASE_CARD_LUA);
const replySchema = z.union([z.literal(0), z.literal(1)]);

/**
 * Card claims in Redis: `<prefix>{<pauseId>}:card-claim`, the key the sweeper's `claimCardless`
 * sets too (keys.ts), holding the owner and expiring with the lease.
 */
export class RedisCardClaims implements CardClaims {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: StoreKeys,
  ) {}

  async claim(input: CardClaimInput): Promise<boolean> {
    const key = this.keys.cardClaim(input.pauseId);
    const reply = await redisCall('claim a card', () =>
      claimScript.run(this.redis, [key], [input.owner, Math.max(1, Math.ceil(input.leaseMs))]),
    );
    return replySchema.parse(reply) === 1;
  }

  async release(input: { pauseId: string; owner: string }): Promise<void> {
    const key = this.keys.cardClaim(input.pauseId);
    await redisCall('release a card claim', () =>
      releaseScript.run(this.redis, [key], [input.owner]),
    );
  }
}
