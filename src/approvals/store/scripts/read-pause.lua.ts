import { PAUSE_PRELUDE } from './prelude.lua.js';

/**
 * read_pause: one consistent snapshot of a pause and its gates; writes nothing.
 * KEYS: [1] pause hash, [2] pause audit list (not read), [3..] gate hashes in callIds order
 * ARGV: [1] '' (a read depends on no clock)
 * Returns OK | NOT_FOUND | CORRUPT | KEYS_MISMATCH, as the transitions' `reply` does.
 *
 * The transitions' `load` and its checks, so that a garbled record is reported, never returned:
 * one HMGET of the pause (with what the reply reads) and one per gate, the audit list's type not
 * asked (`load(true)`), and a reply that reads nothing again. Every card's click reads this, as
 * does each App Home entry.
 */
export const READ_PAUSE_LUA = `${PAUSE_PRELUDE}
local pause, gates = load(true)
if not pause then return gates end
return reply(CODE.OK)
`;
