import { PAUSE_PRELUDE } from './prelude.lua.js';

/**
 * read_pause: one consistent snapshot of a pause and its gates; writes nothing.
 * KEYS: [1] pause hash, [2] pause audit list, [3..] gate hashes in callIds order
 * ARGV: [1] '' (a read depends on no clock)
 * Returns OK | NOT_FOUND | CORRUPT | KEYS_MISMATCH
 */
export const READ_PAUSE_LUA = `${PAUSE_PRELUDE}
local pause, gates = load()
if not pause then return gates end
return reply(CODE.OK)
`;
