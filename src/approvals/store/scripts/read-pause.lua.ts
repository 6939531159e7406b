import { CHAIN_HEAD_FIELD, UNSEALED_FIELD } from './fields.js';
import { PAUSE_PRELUDE } from './prelude.lua.js';

/**
 * read_pause: one consistent snapshot of a pause and its gates; writes nothing.
 * KEYS: [1] pause hash, [2] pause audit list (not read), [3..] gate hashes in callIds order
 * ARGV: [1] '' (a read depends on no clock)
 * Returns OK | NOT_FOUND | CORRUPT | KEYS_MISMATCH, as the transitions' `reply` does. OK's info,
 * when every line of the pause's chain is sealed: its head, its seq, the pause's `audit:` facts
 * and each gate's, in callIds order ('' for none), so that the reader can seal its next
 * transition's lines ahead (redis-chain-offers.ts); empty otherwise.
 *
 * The transitions' `load` and its checks, so that a garbled record is reported, never returned:
 * one HMGET of the pause (with what the reply reads) and one per gate, and a reply that reads
 * nothing again. Every card's click reads this, as
 * does each App Home entry.
 */
export const READ_PAUSE_LUA = `${PAUSE_PRELUDE}
local pause, gates = load()
if not pause then return gates end
local chain = hmget(PAUSE, {'${CHAIN_HEAD_FIELD}', '${UNSEALED_FIELD}', 'auditSeq', 'audit:'})
if not chain[1] or (chain[2] and chain[2] ~= '') then return reply(CODE.OK) end
local info = {chain[1], chain[3] or '0', chain[4] or ''}
for _, gate in ipairs(gates) do info[#info + 1] = hget(PAUSE, 'audit:' .. gate.call_id) or '' end
return reply(CODE.OK, info)
`;

/** The chain a read_pause reply carries (see there), or undefined when it carries none. */
export function chainOfRead(
  info: readonly string[],
  callIds: readonly string[],
): { head: string; seq: number; whats: [string, string | null][] } | undefined {
  const [head = '', seq = '', pauseWhat = '', ...gateWhats] = info;
  if (head === '' || !/^\d+$/.test(seq) || gateWhats.length !== callIds.length) return undefined;
  const whats: [string, string | null][] = [['', pauseWhat === '' ? null : pauseWhat]];
  callIds.forEach((callId, i) => {
    const what = gateWhats[i] ?? '';
    whats.push([callId, what === '' ? null : what]);
  });
  return { head, seq: Number(seq), whats };
}
