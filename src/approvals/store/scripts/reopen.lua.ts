import type { Reopened } from '../../records.js';
import { type ArgsOf, arg, PauseScript } from './pause-script.js';

const REOPEN_ARGS = {
  now: arg.number,
  owner: arg.text(),
  reopened: arg.json<Reopened>(),
  /** The audit detail (the why). */
  detail: arg.text(),
  /** 1-based, in callIds order: the gates to send back. */
  gateIndexes: arg.numbers,
};
export type ReopenArgs = ArgsOf<typeof REOPEN_ARGS>;

/**
 * reopen: the re-check before a resume found an approval no longer valid (an approver the policy
 * in force no longer allows): those gates go back to pending, with every vote cleared and the
 * reason kept (`reopened`), and the pause's resume back to idle, so that nothing is sent until
 * someone allowed decides again. Only the resume's lease owner may do it, while it resumes.
 * KEYS: [1] pause hash, [2] pause audit list, [3..] gate hashes in callIds order
 * ARGV: REOPEN_ARGS, in that order (the gate indexes last, as many as there are)
 * Returns REOPENED {call ids sent back...} | LOST_LEASE | NOT_FOUND | CORRUPT | KEYS_MISMATCH
 */
export const REOPEN = new PauseScript(
  'reopen',
  REOPEN_ARGS,
  {
    body: `
local pause, gates = load()
if not pause then return gates end
local owner = args.owner
if pause.lease_owner ~= owner or pause.resume_state ~= RESUME.resuming then
  return reply(CODE.LOST_LEASE)
end
local reopened = {}
for _, index in ipairs(args.gateIndexes) do
  local gate = gates[index]
  if gate and gate.state == STATE.approved then
    send_back(pause, gate, args.reopened)
    audit(EVENT.reopened, owner, gate, args.detail)
    reopened[#reopened + 1] = gate.call_id
  end
end
if #reopened > 0 then
  hdel(PAUSE, 'leaseOwner', 'leaseUntil')
  set_resume(RESUME.idle)
  for i = 1, #KEYS do redis.call('PERSIST', KEYS[i]) end
end
return reply(CODE.REOPENED, reopened)
`,
  },
  ({ code }) => code,
);
