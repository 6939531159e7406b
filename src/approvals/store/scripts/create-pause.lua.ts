import type { PlannedEntry } from '../redis-chain-offers.js';
import { NO_AUDIT_LIST_FIELD } from './fields.js';
import { PAUSE_PRELUDE } from './prelude.lua.js';

/**
 * create_pause: records a pause and its gates, unless the pause already exists.
 * KEYS: [1] pause hash, [2] pause audit list, [3..] gate hashes in callIds order
 * ARGV: [1] now, [2] pause record JSON, [3] card ts or '', [4] requester, [5] audit detail,
 *       [6] the pause's audit facts JSON, [7..9] its `created` line sealed ahead (the chain
 *       head it follows, the new head, the body's SHA-1; all '' for none: SEAL_OFFER_ARGS,
 *       redis-chain-offers.ts), then 5 per gate, in KEYS order: call id, gate record JSON,
 *       policy JSON, expiresAt or '', its audit facts JSON (audit-facts.ts)
 * Returns CREATED | EXISTED (nothing written) | CORRUPT {key index, problem} | KEYS_MISMATCH
 */
export const CREATE_PAUSE_LUA = `${PAUSE_PRELUDE}
offer_seal(ARGV[7], ARGV[8], ARGV[9])
if redis.call('EXISTS', PAUSE) == 1 then
  local pause, failure = load()
  if not pause then return failure end
  return reply(CODE.EXISTED)
end
local gate_count = #KEYS - 2
hash_known_empty(PAUSE)
hset(PAUSE, 'record', ARGV[2], 'version', 1, 'gateCount', gate_count,
  'pending', gate_count, 'resumeState', RESUME.idle, 'attempts', 0, 'audit:', ARGV[6])
-- No audit list is left there (fields.ts): its scripts need not ask for one.
if key_type(AUDIT) == 'none' then hset(PAUSE, '${NO_AUDIT_LIST_FIELD}', '1') end
if ARGV[3] ~= '' then hset(PAUSE, 'cardTs', ARGV[3]) end
for i = 3, #KEYS do
  local a = 10 + (i - 3) * 5
  -- A gate left over without its pause (deleted by hand) must not lend its voters to this one.
  redis.call('DEL', KEYS[i])
  hash_known_empty(KEYS[i])
  -- The large JSON values go to the pause hash, so that the gate hash stays small (fields.ts).
  hset(PAUSE, 'record:' .. (i - 2), ARGV[a + 1], 'policy:' .. (i - 2), ARGV[a + 2],
    'audit:' .. ARGV[a], ARGV[a + 4])
  -- Its call id is in its key (gates recorded before commit ad71a6f repeat it in a callId field).
  hset(KEYS[i], 'state', STATE.pending, 'version', 1, 'votes', '[]', 'approvals', 0)
  if ARGV[a + 3] ~= '' then hset(KEYS[i], 'expiresAt', ARGV[a + 3]) end
end
audit(EVENT.created, ARGV[4], nil, ARGV[5])
return reply(CODE.CREATED)
`;

/**
 * The audit entry create_pause writes for a new pause (the twin of its `audit` call): the first
 * line of its chain, which the recording replica seals ahead (redis-chain-offers.ts's offerNew).
 */
export function plannedCreateEntries(requester: string, detail: string): PlannedEntry[] {
  return [{ event: 'created', actor: requester, callId: '', detail }];
}
