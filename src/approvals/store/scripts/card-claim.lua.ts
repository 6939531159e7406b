import { luaCodeTable } from './codes.js';

/**
 * renew_card_claim: the poster of a card extends its claim while the post waits (a heartbeat).
 * KEYS: [1] the pause's card-claim key
 * ARGV: [1] owner, [2] lease (ms)
 * Returns OK (renewed) | LOST_LEASE (the key is gone or holds another owner)
 */
export const RENEW_CARD_CLAIM_LUA = `${luaCodeTable()}
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return CODE.LOST_LEASE end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return CODE.OK
`;

/**
 * release_card_claim: the poster of a card lets go of its claim; another owner's is kept.
 * KEYS: [1] the pause's card-claim key
 * ARGV: [1] owner
 * Returns OK (released) | UNCHANGED (not this owner's)
 */
export const RELEASE_CARD_CLAIM_LUA = `${luaCodeTable()}
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return CODE.UNCHANGED end
redis.call('DEL', KEYS[1])
return CODE.OK
`;
