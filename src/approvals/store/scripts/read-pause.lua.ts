import { PAUSE_PRELUDE } from './prelude.lua.js';

/**
 * read_pause: one consistent snapshot of a pause and its gates; writes nothing.
 * KEYS: [1] pause hash, [2] pause audit list (not read), [3..] gate hashes in callIds order
 * ARGV: [1] '' (a read depends on no clock)
 * Returns OK | NOT_FOUND | CORRUPT | KEYS_MISMATCH, as the transitions' `reply` does.
 *
 * The transitions' `load` then `reply` read each hash twice and the audit key's type (6 commands
 * for a one-gate pause); a read needs one HMGET of the pause (its fields, the fields of its
 * gates kept on it and the two the checks add) and one per gate (3 commands), with the same
 * checks as `load`, so that a garbled record is reported, never returned. The audit list is not
 * read, so its type is not asked. Every card's click reads this, as does each App Home entry.
 */
export const READ_PAUSE_LUA = `${PAUSE_PRELUDE}
local gate_count = #KEYS - 2
local fields = {unpack(PAUSE_FIELDS)}
local on_pause = #fields
for i = 1, gate_count do append_gate_fields_on_pause(fields, i) end
local checks_at = #fields
fields[checks_at + 1], fields[checks_at + 2] = 'gateCount', 'pending'
local values, problem = hash_fields(PAUSE, 1, fields)
if not values then return problem end
if not values[1] and redis.call('EXISTS', PAUSE) == 0 then
  return {CODE.NOT_FOUND, {}, 0, {}, {}, {}}
end
local pause = {}
for k = 1, #PAUSE_FIELDS do pause[k] = values[k] end
local function pause_field(name)
  for k = 1, #PAUSE_FIELDS do if PAUSE_FIELDS[k] == name then return values[k] end end
end
local count = tonumber(values[checks_at + 1] or '')
if not count then return corrupt(1, 'field gateCount') end
if count ~= gate_count then return {CODE.KEYS_MISMATCH, {}, 0, {}, {}, {}} end
if not tonumber(values[checks_at + 2] or '') then return corrupt(1, 'field pending') end
if not rawget(RESUME, pause_field('resumeState') or '') then return corrupt(1, 'field resumeState') end
if not tonumber(pause_field('attempts') or '') then return corrupt(1, 'field attempts') end
local lease_until = pause_field('leaseUntil')
if lease_until and not tonumber(lease_until) then return corrupt(1, 'field leaseUntil') end

local gate_fields = {unpack(GATE_FIELDS)}
local call_id_at = #gate_fields + 1
gate_fields[call_id_at] = 'callId'
local function gate_field(g, name)
  for k = 1, #GATE_FIELDS do if GATE_FIELDS[k] == name then return g[k] end end
end
local gates = {}
for i = 3, #KEYS do
  local g, garbled = hash_fields(KEYS[i], i, gate_fields)
  if not g then return garbled end
  local call_id = g[call_id_at]
  g[call_id_at] = nil
  -- No such gate: the caller built its keys from stale or guessed call ids.
  if not call_id and redis.call('EXISTS', KEYS[i]) == 0 then
    return {CODE.KEYS_MISMATCH, {}, 0, {}, {}, {}}
  end
  if not call_id then return corrupt(i, 'field callId') end
  g = fill_gate_fields(g, values, on_pause + (i - 3) * GATE_FIELDS_ON_PAUSE_COUNT)
  if not rawget(STATE, gate_field(g, 'state') or '') then return corrupt(i, 'field state') end
  if not tonumber(gate_field(g, 'version') or '') then return corrupt(i, 'field version') end
  local expires_at = gate_field(g, 'expiresAt')
  if expires_at and not tonumber(expires_at) then return corrupt(i, 'field expiresAt') end
  local ok, policy = pcall(cjson.decode, gate_field(g, 'policy') or '')
  if not ok or type(policy) ~= 'table' or type(policy.quorum) ~= 'number'
    or type(policy.onExpiry) ~= 'string' or not rawget(EXPIRY_OUTCOME, policy.onExpiry) then
    return corrupt(i, 'field policy')
  end
  gates[#gates + 1] = g
end
return {CODE.OK, {}, 0, pause, gates, {}}
`;
