import { PAUSE_PRELUDE } from './prelude.lua.js';

/**
 * One voter's approve or reject on one pending gate: the rule shared by vote and vote_all.
 * Returns code, info (as the scripts reply them).
 */
const VOTE_GATE = `
local function vote_gate(pause, gates, gate, voter, choice, vote_json, payload, decision_json,
    expiry_json, retention_ms, vote_detail)
  if gate.state ~= STATE.pending then return CODE.ALREADY_DECIDED, {gate.state} end
  if is_due(gate) then
    local state = expire(pause, gates, gate, expiry_json, retention_ms)
    return CODE.EXPIRED, {state, pause_decided(pause)}
  end
  if redis.call('HSETNX', gate.key, 'v:' .. voter, choice) == 0 then
    return CODE.ALREADY_VOTED, {}
  end
  -- The votes field is a JSON array written by TypeScript: append without decoding it.
  local votes = redis.call('HGET', gate.key, 'votes')
  if votes == '[]' then votes = '[' .. vote_json .. ']' else votes = string.sub(votes, 1, -2) .. ',' .. vote_json .. ']' end
  redis.call('HSET', gate.key, 'votes', votes)
  bump(gate.key)
  audit(EVENT.voted, voter, gate, vote_detail)
  if choice == CHOICE.reject then
    decide(pause, gate, VOTE_OUTCOME.reject, decision_json, payload)
    audit(EVENT.rejected, voter, gate, '')
    return CODE.DECIDED, {VOTE_OUTCOME.reject, pause_decided(pause)}
  end
  local approvals = redis.call('HINCRBY', gate.key, 'approvals', 1)
  if payload ~= '' then redis.call('HSET', gate.key, 'lastPayload', payload) end
  if approvals < gate.quorum then return CODE.COUNTED, {approvals, gate.quorum} end
  -- This vote's payload if it has one, else the latest earlier approve vote's.
  if payload == '' then payload = redis.call('HGET', gate.key, 'lastPayload') end
  decide(pause, gate, VOTE_OUTCOME.approve, decision_json, payload)
  if gate.undo_ms > 0 and initiator_of(voter) == 'person' then hold(NOW_MS + gate.undo_ms) end
  audit(EVENT.approved, voter, gate, detail(FACT.approvals, {approvals, gate.quorum}))
  return CODE.DECIDED, {VOTE_OUTCOME.approve, pause_decided(pause)}
end
`;

/**
 * vote: one voter's approve or reject on one gate, compare-and-set on the gate's state.
 * KEYS: [1] pause hash, [2] pause audit list, [3..] gate hashes in callIds order
 * ARGV: [1] now, [2] gate index (1-based, in callIds order), [3] voter, [4] 'approve' | 'reject',
 *       [5] the vote as JSON, [6] its payload as JSON or '', [7] the decision this vote makes if
 *       it decides, as JSON {by, at, reason?}, [8] the expiry decision as JSON, [9] retention ms
 *       (applies if expiry abandons the pause), [10] audit detail of the vote
 * Returns COUNTED {approvals, quorum} | DECIDED {state, pauseDecided '1'|'0'} | ALREADY_VOTED |
 *   ALREADY_DECIDED {state} | EXPIRED {state, pauseDecided} | NOT_FOUND | CORRUPT | KEYS_MISMATCH
 */
export const VOTE_LUA = `${PAUSE_PRELUDE}
${VOTE_GATE}
local pause, gates = load()
if not pause then return gates end
local code, info = vote_gate(pause, gates, gates[tonumber(ARGV[2])], ARGV[3], ARGV[4], ARGV[5],
  ARGV[6], ARGV[7], ARGV[8], ARGV[9], ARGV[10])
return reply(code, info)
`;

/**
 * vote_all: one voter's approve or reject on several gates of a pause in one step (Approve all,
 * Reject all), so that a crash never leaves part of the decision applied.
 * KEYS: as vote
 * ARGV: [1] now, [2] voter, [3] 'approve' | 'reject', [4] the vote as JSON, [5] the decision as
 *       JSON, [6] the expiry decision as JSON, [7] retention ms, [8] audit detail of the vote,
 *       [9..] the gate indexes (1-based, in callIds order) to vote on
 * Returns OK with info = three entries per gate, in ARGV order: the gate's vote code and its two
 *   info values ('' when none) | NOT_FOUND | CORRUPT | KEYS_MISMATCH
 */
export const VOTE_ALL_LUA = `${PAUSE_PRELUDE}
${VOTE_GATE}
local pause, gates = load()
if not pause then return gates end
local out = {}
for i = 9, #ARGV do
  local code, info = vote_gate(pause, gates, gates[tonumber(ARGV[i])], ARGV[2], ARGV[3], ARGV[4],
    '', ARGV[5], ARGV[6], ARGV[7], ARGV[8])
  out[#out + 1] = code
  out[#out + 1] = info[1] or ''
  out[#out + 1] = info[2] or ''
end
return reply(CODE.OK, out)
`;
