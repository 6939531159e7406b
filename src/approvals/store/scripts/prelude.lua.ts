import { luaInitiatorOf, luaWriteChainBody } from '../audit-chain.js';
import { luaCodeTable } from './codes.js';
import {
  CHAIN_HEAD_FIELD,
  GATE_FIELDS,
  luaFieldList,
  luaGateFieldsOnPause,
  NO_AUDIT_LIST_FIELD,
  PAUSE_FIELDS,
  UNSEALED_FIELD,
} from './fields.js';
import { LUA_HASH_CACHE } from './hash-cache.lua.js';
import { luaRules } from './rules.lua.js';
import { LUA_MOVE_CHAIN_HEAD } from './seal-audit.lua.js';

/**
 * What \`load\` reads of each gate: first the fields it checks (in this order), then what a
 * reply and a vote read, so that the call reads each gate once.
 */
const GATE_LOAD_FIELDS = [
  ...new Set([
    'callId',
    'state',
    'version',
    'expiresAt',
    'policy',
    ...GATE_FIELDS,
    'approvals',
    'lastPayload',
  ]),
];

/**
 * Helpers prepended to every per-pause script. Every such script takes the same KEYS:
 * [1] the pause hash, [2] the pause's audit list, [3..] its gate hashes in `callIds` order
 * (all `{<pauseId>}`-tagged: one slot); and ARGV[1] is always the caller's clock in ms (empty
 * for read_pause, which reads no clock). The store's rules come in as Lua tables (rules.lua.ts).
 * Each returns `{code, info, how many audit entries it wrote, pause fields, gate fields, chain}`, where
 * `chain` is `{}` when it wrote no audit entry, else `{chain head, unsealed bodies}` as they
 * stand after its writes, for Node to seal (audit-chain.ts).
 */
export const PAUSE_PRELUDE = `
${luaCodeTable()}
${luaFieldList('PAUSE_FIELDS', PAUSE_FIELDS)}
${luaFieldList('GATE_FIELDS', GATE_FIELDS)}
${luaFieldList('GATE_LOAD_FIELDS', GATE_LOAD_FIELDS)}
${luaRules()}
local NOW = ARGV[1]
local NOW_MS = tonumber(NOW)
-- The keys of the pause this script works on: KEYS, but for expire_gates (expire-gates.lua.ts),
-- which works on several pauses in turn and selects each with select_pause.
local PK = KEYS
local PAUSE, AUDIT = PK[1], PK[2]
local audited = 0
${luaGateFieldsOnPause()}

${LUA_HASH_CACHE}
${LUA_MOVE_CHAIN_HEAD}
-- Lines Node sealed ahead for this call's audit entries (audit-chain.ts: it knows the chain head
-- and the bodies this call would write, from the last reply it saw): the head moves past them at
-- the reply when it is still the one they follow and the bodies written are exactly those (their
-- SHA-1 is the one offered), else they are left unsealed for the separate seal
-- (seal-audit.lua.ts). Node keeps the lines and copies them to the store-wide audit once the
-- reply says they are sealed.
local seal_offer = nil
local function offer_seal(after, new_head, digest)
  if digest ~= '' then seal_offer = {after = after, head = new_head, digest = digest} end
end
local function seal_offered()
  if not seal_offer or audited == 0 then return false end
  local f = hmget(PAUSE, {'${CHAIN_HEAD_FIELD}', '${UNSEALED_FIELD}'})
  if (f[1] or '') ~= seal_offer.after or not f[2] then return false end
  if redis.sha1hex(f[2]) ~= seal_offer.digest then return false end
  move_chain_head(PAUSE, seal_offer.head, '')
  return true
end

-- The pause hash's fields a reply carries: its own, each gate's fields kept on it (fields.ts),
-- and the chain. \`load\` reads them with the fields it decides on, so that the reply reads
-- nothing again.
-- Built once per pause (select_pause forgets it); callers do not change it.
local pause_reply_fields = nil
local function reply_pause_fields()
  if pause_reply_fields then return pause_reply_fields end
  local fields = {unpack(PAUSE_FIELDS)}
  for i = 1, #PK - 2 do append_gate_fields_on_pause(fields, i) end
  fields[#fields + 1], fields[#fields + 2] = '${CHAIN_HEAD_FIELD}', '${UNSEALED_FIELD}'
  pause_reply_fields = fields
  return fields
end

-- The retention this call set on a pause's keys (retain), applied once its writes are done.
local retention = nil
local function finish_writes()
  flush_hashes()
  if retention then
    -- A key the call found missing (the audit list of a pause recorded without one) is not
    -- there to expire.
    for _, key in ipairs(retention.keys) do
      if key_types[key] ~= 'none' then redis.call('PEXPIRE', key, retention.ms) end
    end
    retention = nil
  end
end

-- Writes what the call changed (hash-cache.lua.ts), then answers with the pause as it stands:
-- its fields, each gate's fields kept on it (fields.ts), and the chain when this call wrote to it.
local function reply(code, info)
  local pause, gates = {}, {}
  local sealed = seal_offered()
  finish_writes()
  local fields = reply_pause_fields()
  local on_pause = #PAUSE_FIELDS
  local chain_at = #fields - 2
  local values = hmget(PAUSE, fields)
  -- Every pause holds its record (PAUSE_FIELDS[1]): only without it is EXISTS asked.
  if values[1] or redis.call('EXISTS', PAUSE) == 1 then
    for k = 1, #PAUSE_FIELDS do pause[k] = values[k] end
    for i = 3, #PK do
      local own = hmget(PK[i], GATE_FIELDS)
      gates[#gates + 1] = fill_gate_fields(own, values, on_pause + (i - 3) * GATE_FIELDS_ON_PAUSE_COUNT)
    end
  end
  local chain = {}
  if audited > 0 then chain = {values[chain_at + 1] or '', values[chain_at + 2] or ''} end
  if sealed then chain[3] = '1' end
  return {code, info or {}, audited, pause, gates, chain}
end

local function corrupt(key_index, problem)
  finish_writes()
  return {CODE.CORRUPT, {key_index, problem}, audited, {}, {}, {}}
end

-- A hash's fields (HMGET), or nil and the corrupt reply when the key holds another type: the
-- read itself finds out, so that a well-formed record costs no TYPE call. What it read is kept
-- for the rest of the call (hash-cache.lua.ts).
local function hash_fields(key, key_index, fields)
  local values = redis.pcall('HMGET', key, unpack(fields))
  if values.err then return nil, corrupt(key_index, 'holds a ' .. key_type(key) .. ', not a hash') end
  hash_learn(key, fields, values)
  return values
end

-- Reads and checks the fields the scripts decide on before anything is written, so that a
-- garbled record is reported instead of half-updated. Returns pause, gates; or nil, a reply.
-- \`voter\`: a vote's voter, whose vote on each gate is read with it.
local function load(voter)
  -- The gates' policies are kept on the pause (fields.ts): read with its own fields.
  local fields = {'gateCount', 'pending', 'resumeState', 'attempts', 'leaseOwner', 'leaseUntil'}
  local policies_at = #fields
  for i = 1, #PK - 2 do fields[policies_at + i] = 'policy:' .. i end
  -- Read now too: what the audit and the reply read (one HMGET for the whole call).
  for _, field in ipairs(reply_pause_fields()) do fields[#fields + 1] = field end
  fields[#fields + 1], fields[#fields + 2] = 'auditSeq', 'audit:'
  -- What an audit entry about a gate reads (its audit:<call id> facts, the call id taken from the
  -- gate's key; read_pause answers them too).
  for i = 3, #PK do
    local call_id = string.match(PK[i], '}:gate:(.*)$')
    if call_id then fields[#fields + 1] = 'audit:' .. call_id end
  end
  fields[#fields + 1] = '${NO_AUDIT_LIST_FIELD}'
  local no_list_at = #fields
  local f, problem = hash_fields(PAUSE, 1, fields)
  if not f then return nil, problem end
  if not f[1] and redis.call('EXISTS', PAUSE) == 0 then return nil, reply(CODE.NOT_FOUND) end
  -- A pause recorded with no audit list has none to expire with it (fields.ts).
  if f[no_list_at] then key_types[AUDIT] = 'none' end
  local pause = {
    gate_count = tonumber(f[1]), pending = tonumber(f[2]), resume_state = f[3],
    attempts = tonumber(f[4]), lease_owner = f[5], lease_until = tonumber(f[6] or ''),
  }
  if not pause.gate_count then return nil, corrupt(1, 'field gateCount') end
  if pause.gate_count ~= #PK - 2 then return nil, {CODE.KEYS_MISMATCH, {}, audited, {}, {}, {}} end
  if not pause.pending then return nil, corrupt(1, 'field pending') end
  if not rawget(RESUME, pause.resume_state or '') then return nil, corrupt(1, 'field resumeState') end
  if not pause.attempts then return nil, corrupt(1, 'field attempts') end
  if f[6] and not pause.lease_until then return nil, corrupt(1, 'field leaseUntil') end
  local gates = {}
  -- A vote reads whether the voter voted on the gate: read with the gate's fields.
  local gate_fields = GATE_LOAD_FIELDS
  if voter then gate_fields = {unpack(GATE_LOAD_FIELDS)}; gate_fields[#gate_fields + 1] = 'v:' .. voter end
  for i = 3, #PK do
    local g, garbled = hash_fields(PK[i], i, gate_fields)
    if not g then return nil, garbled end
    -- No such gate: the caller built its keys from stale or guessed call ids. (Every gate holds
    -- its state: only without it is EXISTS asked.)
    if not g[2] and redis.call('EXISTS', PK[i]) == 0 then
      return nil, {CODE.KEYS_MISMATCH, {}, audited, {}, {}, {}}
    end
    -- A gate's call id is in its key; gates recorded before commit ad71a6f repeat it in a field.
    local call_id = g[1] or string.match(PK[i], '}:gate:(.*)$')
    local gate = {key = PK[i], call_id = call_id, state = g[2], version = tonumber(g[3] or ''),
      expires_at = tonumber(g[4] or '')}
    if not call_id then return nil, corrupt(i, 'field callId') end
    if not rawget(STATE, gate.state or '') then return nil, corrupt(i, 'field state') end
    if not gate.version then return nil, corrupt(i, 'field version') end
    if g[4] and not gate.expires_at then return nil, corrupt(i, 'field expiresAt') end
    local policy_json = g[5] or f[policies_at + i - 2] or ''
    local ok, policy = pcall(cjson.decode, policy_json)
    if not ok or type(policy) ~= 'table' or type(policy.quorum) ~= 'number'
      or type(policy.onExpiry) ~= 'string' or not rawget(EXPIRY_OUTCOME, policy.onExpiry) then
      return nil, corrupt(i, 'field policy')
    end
    gate.quorum, gate.on_expiry = policy.quorum, policy.onExpiry
    gate.undo_ms = tonumber(policy.undoWindowMs) or 0
    gates[#gates + 1] = gate
  end
  return pause, gates
end

${luaInitiatorOf()}

${luaWriteChainBody()}
-- An audit entry about the pause, or about one of its gates (nil: the pause): the body of its
-- chain line (audit-chain.ts), with the gate's decision once it has one, among the pause's
-- unsealed bodies; Node seals it after the script and copies it to the store-wide audit. A
-- pending gate has no decision; one decided by this call carries the decision it was given.
local PAUSE_ID = string.match(PAUSE, '{(.-)}')
-- Makes the helpers work on another pause (keys laid out as KEYS are for one pause), with no
-- audit entry written nor seal offered yet: what a script run on those keys would start from.
local function select_pause(keys)
  forget_hashes()
  PK, PAUSE, AUDIT = keys, keys[1], keys[2]
  pause_reply_fields = nil
  PAUSE_ID = string.match(PAUSE, '{(.-)}')
  audited, seal_offer = 0, nil
end
local function audit(event, actor, gate, detail)
  local call_id, decision = '', nil
  if gate then
    call_id = gate.call_id
    if gate.state ~= STATE.pending then
      decision = gate.decision or hget(gate.key, 'decision') or nil
    end
  end
  write_chain_body(PAUSE, PAUSE_ID, NOW_MS, event, actor, call_id, detail, decision)
  audited = audited + 1
end

local function bump(key)
  hincrby(key, 'version', 1)
end

local function pause_decided(pause)
  if pause.pending == 0 then return '1' end
  return '0'
end

local function is_due(gate)
  return gate.expires_at ~= nil and NOW_MS >= gate.expires_at
end

-- Moves a pending gate to its final state; payload is JSON, or false / '' for none.
local function decide(pause, gate, state, decision, payload)
  local writes = {'state', state, 'decision', decision}
  if payload and payload ~= '' then writes[5], writes[6] = 'decisionPayload', payload end
  hset(gate.key, unpack(writes))
  bump(gate.key)
  gate.state, gate.decision = state, decision
  pause.pending = hincrby(PAUSE, 'pending', -1)
end

local function set_resume(state)
  hset(PAUSE, 'resumeState', state, 'resumeAt', NOW)
  bump(PAUSE)
end

-- An undo window: the resume is not claimed before until_ms (the latest of the pause's holds).
local function hold(until_ms)
  local current = tonumber(hget(PAUSE, 'holdUntil') or '') or 0
  if until_ms > current then
    hset(PAUSE, 'holdUntil', string.format('%d', until_ms))
    bump(PAUSE)
  end
end

-- The end of the undo window that holds the pause's resume, while it holds (the resume idle, the
-- end not reached); nil otherwise: a claim may go ahead, an undo comes too late.
local function held_until(pause)
  if pause.resume_state ~= RESUME.idle then return nil end
  local until_ms = tonumber(hget(PAUSE, 'holdUntil') or '')
  if until_ms and NOW_MS < until_ms then return until_ms end
  return nil
end

-- An approved gate back to pending (the re-check or an undo): its votes cleared, why kept.
local function send_back(pause, gate, reopened_json)
  flush_hashes()
  for _, field in ipairs(redis.call('HKEYS', gate.key)) do
    if string.sub(field, 1, 2) == 'v:' then hdel(gate.key, field) end
  end
  hdel(gate.key, 'decision', 'decisionPayload', 'approvals', 'lastPayload')
  hset(gate.key, 'state', STATE.pending, 'votes', '[]', 'reopened', reopened_json)
  bump(gate.key)
  gate.state, gate.decision = STATE.pending, nil
  pause.pending = hincrby(PAUSE, 'pending', 1)
end

-- A finished pause is kept for the retention period, then Redis removes all its keys at once
-- (set by finish_writes, after the call's last write).
local function retain(ms)
  retention = {keys = PK, ms = ms}
end

-- Cancels every gate still pending; the pause is abandoned and will never be resumed.
local function abandon(pause, gates, actor, decision, detail, retention_ms)
  local cancelled = {}
  for _, gate in ipairs(gates) do
    if gate.state == STATE.pending then
      decide(pause, gate, STATE.cancelled, decision, false)
      audit(EVENT.cancelled, actor, gate, detail)
      cancelled[#cancelled + 1] = gate.call_id
    end
  end
  set_resume(RESUME.abandoned)
  audit(EVENT.abandoned, actor, nil, '')
  retain(retention_ms)
  return cancelled
end

-- The outcome the gate's policy names for when its time runs out (EXPIRY_OUTCOME); a cancel
-- abandons the whole pause. Used by the sweeper and a late vote.
local function expire(pause, gates, gate, decision, retention_ms)
  local state = EXPIRY_OUTCOME[gate.on_expiry]
  decide(pause, gate, state, decision, false)
  audit(EVENT.expired, SYSTEM, gate, EXPIRED_DETAIL[state])
  if state == STATE.cancelled then
    abandon(pause, gates, SYSTEM, decision, EXPIRY_CANCEL_DETAIL, retention_ms)
  end
  return state
end
`;
