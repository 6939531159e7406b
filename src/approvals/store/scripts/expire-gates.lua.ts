import { LUA_EXPIRE_DUE } from './expire-gate.lua.js';
import { LuaScript } from './lua-script.js';
import { PAUSE_PRELUDE } from './prelude.lua.js';

/** ARGV positions each pause takes in expire_gates, after its key count. */
export const EXPIRE_GATES_PER_PAUSE = 4;

/**
 * expire_gates: expire_gate (expire-gate.lua.ts) on the due gates of many pauses in one call, one
 * gate per pause, each exactly as expire_gate would on its own: the prelude's helpers are pointed
 * at each pause in turn (select_pause). Only where all the keys are on one node (a single Redis).
 * KEYS: each pause's keys as expire_gate takes them ([pause hash, audit list, gates...]), in turn
 * ARGV: [1] now, [2] the expiry's decision (JSON), [3] retention ms if an expiry abandons, then
 *   per pause: its key count, the gate's 1-based index, and expire_gate's three seal offer args
 * Returns one expire_gate reply per pause, in order.
 */
export const EXPIRE_GATES = new LuaScript(
  'expire_gates',
  [
    PAUSE_PRELUDE,
    LUA_EXPIRE_DUE,
    `
local decision, retention_ms = ARGV[2], tonumber(ARGV[3])
local replies = {}
local k, a = 0, 4
while a <= #ARGV do
  local count = tonumber(ARGV[a])
  local keys = {}
  for j = 1, count do keys[j] = KEYS[k + j] end
  k = k + count
  select_pause(keys)
  offer_seal(ARGV[a + 2], ARGV[a + 3], ARGV[a + 4])
  replies[#replies + 1] = expire_due(tonumber(ARGV[a + 1]), decision, retention_ms)
  a = a + 1 + ${EXPIRE_GATES_PER_PAUSE}
end
return replies
`,
  ].join('\n'),
);
