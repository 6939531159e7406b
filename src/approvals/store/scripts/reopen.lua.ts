import { PAUSE_PRELUDE } from './prelude.lua.js';

/**
 * reopen: the re-check before a resume found an approval no longer valid (an approver the policy
 * in force no longer allows): those gates go back to pending, with every vote cleared and the
 * reason kept (`reopened`), and the pause's resume back to idle, so that nothing is sent until
 * someone allowed decides again. Only the resume's lease owner may do it, while it resumes.
 * KEYS: [1] pause hash, [2] pause audit list, [3..] gate hashes in callIds order
 * ARGV: [1] now, [2] owner, [3] {at, why} as JSON, [4] audit detail (the why), [5..] indexes
 *       (1-based, callIds order) of the gates to send back
 * Returns REOPENED {call ids sent back...} | LOST_LEASE | NOT_FOUND | CORRUPT | KEYS_MISMATCH
 */
export const REOPEN_LUA = `${PAUSE_PRELUDE}
local pause, gates = load()
if not pause then return gates end
local owner = ARGV[2]
if pause.lease_owner ~= owner or pause.resume_state ~= RESUME.resuming then
  return reply(CODE.LOST_LEASE)
end
local reopened = {}
for i = 5, #ARGV do
  local gate = gates[tonumber(ARGV[i])]
  if gate and gate.state == STATE.approved then
    send_back(pause, gate, ARGV[3])
    audit(EVENT.reopened, owner, gate, ARGV[4])
    reopened[#reopened + 1] = gate.call_id
  end
end
if #reopened > 0 then
  redis.call('HDEL', PAUSE, 'leaseOwner', 'leaseUntil')
  set_resume(RESUME.idle)
  for i = 1, #KEYS do redis.call('PERSIST', KEYS[i]) end
end
return reply(CODE.REOPENED, reopened)
`;
