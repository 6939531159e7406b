import type { CardClaimInput, CardClaims } from '../card-claims.js';
import type { StoreKeys } from './keys.js';
import { type RedisClient, redisCall } from './redis-connection.js';
import { RELEASE_CARD_CLAIM_LUA, RENEW_CARD_CLAIM_LUA } from './scripts/card-claim.lua.js';
import { ScriptCode } from './scripts/codes.js';
import { LuaScript } from './scripts/lua-script.js';

const RENEW = new LuaScript('renew_card_claim', RENEW_CARD_CLAIM_LUA);
const RELEASE = new LuaScript('release_card_claim', RELEASE_CARD_CLAIM_LUA);

/**
 * Card claims in Redis: `<prefix>{<pauseId>}:card-claim`, the owner's name with the lease as
 * the key's expiry (the same key `claimCardless` sets for the sweeper).
 */
export class RedisCardClaims implements CardClaims {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: Pick<StoreKeys, 'cardClaim'>,
  ) {}

  async claim({ pauseId, owner, leaseMs }: CardClaimInput): Promise<boolean> {
    const key = this.keys.cardClaim(pauseId);
    const won = await redisCall(`claim ${key}`, () =>
      this.redis.set(key, owner, 'PX', leaseMs, 'NX'),
    );
    return won === 'OK';
  }

  async renew({ pauseId, owner, leaseMs }: CardClaimInput): Promise<boolean> {
    const key = this.keys.cardClaim(pauseId);
    const code = await redisCall(`renew ${key}`, () =>
      RENEW.run(this.redis, [key], [owner, leaseMs]),
    );
    return code === ScriptCode.OK;
  }

  async release({ pauseId, owner }: Pick<CardClaimInput, 'pauseId' | 'owner'>): Promise<void> {
    const key = this.keys.cardClaim(pauseId);
    await redisCall(`release ${key}`, () => RELEASE.run(this.redis, [key], [owner]));
  }
}
