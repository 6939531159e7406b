import { PAUSE_PRELUDE } from './prelude.lua.js';

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
local pause, gates = load()
if not pause then return gates end
local gate = gates[tonumber(ARGV[2])]
if gate.state ~= STATE.pending then return reply(CODE.ALREADY_DECIDED, {gate.state}) end
if is_due(gate) then
  local state = expire(pause, gates, gate, ARGV[8], ARGV[9])
  return reply(CODE.EXPIRED, {state, pause_decided(pause)})
end
local voter, choice = ARGV[3], ARGV[4]
if redis.call('HSETNX', gate.key, 'v:' .. voter, choice) == 0 then
  return reply(CODE.ALREADY_VOTED)
end
-- The votes field is a JSON array written by TypeScript: append without decoding it.
local votes = redis.call('HGET', gate.key, 'votes')
if votes == '[]' then votes = '[' .. ARGV[5] .. ']' else votes = string.sub(votes, 1, -2) .. ',' .. ARGV[5] .. ']' end
redis.call('HSET', gate.key, 'votes', votes)
bump(gate.key)
audit(EVENT.voted, voter, gate.call_id, ARGV[10])
if choice == CHOICE.reject then
  decide(pause, gate, VOTE_OUTCOME.reject, ARGV[7], ARGV[6])
  audit(EVENT.rejected, voter, gate.call_id, '')
  return reply(CODE.DECIDED, {VOTE_OUTCOME.reject, pause_decided(pause)})
end
local approvals = redis.call('HINCRBY', gate.key, 'approvals', 1)
if ARGV[6] ~= '' then redis.call('HSET', gate.key, 'lastPayload', ARGV[6]) end
if approvals < gate.quorum then return reply(CODE.COUNTED, {approvals, gate.quorum}) end
-- This vote's payload if it has one, else the latest earlier approve vote's.
decide(pause, gate, VOTE_OUTCOME.approve, ARGV[7], redis.call('HGET', gate.key, 'lastPayload'))
audit(EVENT.approved, voter, gate.call_id, detail(FACT.approvals, {approvals, gate.quorum}))
return reply(CODE.DECIDED, {VOTE_OUTCOME.approve, pause_decided(pause)})
`;
