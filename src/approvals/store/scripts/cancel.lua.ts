import { PAUSE_PRELUDE } from './prelude.lua.js';

/**
 * cancel: cancels every pending gate of a pause, which is then abandoned (never resumed).
 * KEYS: [1] pause hash, [2] pause audit list, [3..] gate hashes in callIds order
 * ARGV: [1] now, [2] who cancels, [3] the decision as JSON {by, at, reason?}, [4] retention ms,
 *       [5] audit detail
 * Returns CANCELLED {call ids cancelled...} | NOTHING_PENDING | NOT_FOUND | CORRUPT | KEYS_MISMATCH
 */
export const CANCEL_LUA = `${PAUSE_PRELUDE}
local pause, gates = load()
if not pause then return gates end
if pause.pending == 0 then return reply(CODE.NOTHING_PENDING) end
local cancelled = abandon(pause, gates, ARGV[2], ARGV[3], ARGV[5], ARGV[4])
return reply(CODE.CANCELLED, cancelled)
`;
