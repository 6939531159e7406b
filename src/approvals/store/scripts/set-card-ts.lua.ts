import { PAUSE_PRELUDE } from './prelude.lua.js';

/**
 * set_card_ts: remembers the Slack message ts of the pause's card.
 * KEYS: [1] pause hash, [2] pause audit list, [3..] gate hashes in callIds order
 * ARGV: [1] now, [2] ts
 * Returns OK | NOT_FOUND | CORRUPT | KEYS_MISMATCH
 */
export const SET_CARD_TS_LUA = `${PAUSE_PRELUDE}
local pause, gates = load()
if not pause then return gates end
redis.call('HSET', PAUSE, 'cardTs', ARGV[2])
bump(PAUSE)
audit(EVENT.card_posted, SYSTEM, nil, '')
return reply(CODE.OK)
`;
