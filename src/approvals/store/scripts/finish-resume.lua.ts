import type { PlannedEntry } from '../redis-chain-offers.js';
import { FINISH_EVENT, type FinishOutcome } from '../rules.js';
import { type ArgsOf, arg, LUA_OFFER_SEAL, PauseScript, SEAL_OFFER_ARGS } from './pause-script.js';

const FINISH_RESUME_ARGS = {
  now: arg.number,
  owner: arg.text(),
  outcome: arg.text<FinishOutcome>(),
  retentionMs: arg.number,
  /** The error text of a failed or refused resume, else ''. */
  error: arg.text(),
  /** The audit detail. */
  detail: arg.text(),
  ...SEAL_OFFER_ARGS,
};
export type FinishResumeArgs = ArgsOf<typeof FINISH_RESUME_ARGS>;

/**
 * finish_resume: records how a resume ended, only for the current lease owner. The same call
 * repeated by that owner is answered OK again (a retried request), without a second entry.
 * KEYS: [1] pause hash, [2] pause audit list, [3..] gate hashes in callIds order
 * ARGV: FINISH_RESUME_ARGS, in that order (outcome: FINISH_EVENT's keys; the last four: lines
 *   sealed ahead, redis-chain-offers.ts)
 * Returns OK {the lease's leaseUntil} | LOST_LEASE | NOT_FOUND | CORRUPT | KEYS_MISMATCH
 */
export const FINISH_RESUME = new PauseScript(
  'finish_resume',
  FINISH_RESUME_ARGS,
  {
    body: `
${LUA_OFFER_SEAL}
local pause, gates = load()
if not pause then return gates end
local owner, outcome = args.owner, args.outcome
local lease_until = tostring(pause.lease_until or '')
if pause.lease_owner ~= owner then return reply(CODE.LOST_LEASE) end
if pause.resume_state == outcome then return reply(CODE.OK, {lease_until}) end
if pause.resume_state ~= RESUME.resuming then return reply(CODE.LOST_LEASE) end
hset(PAUSE, 'resumeState', outcome, 'resumeAt', NOW)
if outcome ~= RESUME.resumed then hset(PAUSE, 'lastError', args.error) end
bump(PAUSE)
audit(FINISH_EVENT[outcome], owner, nil, args.detail)
retain(args.retentionMs)
return reply(CODE.OK, {lease_until})
`,
  },
  ({ code }) => code,
);

/**
 * The audit entry finish_resume writes when the lease owner finishes (the twin of its `audit`
 * call): the line a replica seals ahead (redis-chain-offers.ts). A repeated finish writes none.
 */
export function plannedFinishEntries(finish: {
  owner: string;
  outcome: FinishOutcome;
  detail: string;
}): PlannedEntry[] {
  const event = FINISH_EVENT[finish.outcome];
  return [{ event, actor: finish.owner, callId: '', detail: finish.detail }];
}
