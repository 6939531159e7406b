import type { ResumeStatus } from '../../records.js';
import type { PlannedEntry } from '../redis-chain-offers.js';
import { claimDetail } from '../rules.js';
import { type ArgsOf, arg, LUA_OFFER_SEAL, PauseScript, SEAL_OFFER_ARGS } from './pause-script.js';

/**
 * `take_lease(pause, owner, lease_until, lease_ms)`: the resume is this owner's until
 * `lease_until` (`lease_ms` from now), one attempt more, with its audit line; returns the
 * attempt. Shared by claim_resume and a deciding vote that claims its resume (vote.lua.ts).
 */
export const LUA_TAKE_LEASE = `
local function take_lease(pause, owner, lease_until, lease_ms)
  local state = pause.resume_state
  local attempt = pause.attempts + 1
  local took_over_from = nil
  if state == RESUME.resuming then took_over_from = pause.lease_owner end
  hset(PAUSE, 'resumeState', RESUME.resuming, 'resumeAt', NOW, 'leaseOwner', owner,
    'leaseUntil', lease_until, 'attempts', attempt)
  bump(PAUSE)
  audit(EVENT.resume_claimed, owner, nil,
    detail(FACT.attempt, attempt, FACT.lease_ms, lease_ms, FACT.took_over_from, took_over_from))
  return attempt
end
`;

const CLAIM_RESUME_ARGS = {
  now: arg.number,
  owner: arg.text(),
  /** The lease's end (ms). */
  leaseUntil: arg.number,
  /** The lease's length (ms), for the audit. */
  leaseMs: arg.number,
  /** A person asked to retry a failed resume. */
  retryFailed: arg.flag,
  ...SEAL_OFFER_ARGS,
};
export type ClaimResumeArgs = ArgsOf<typeof CLAIM_RESUME_ARGS>;

/**
 * claim_resume: takes the lease to resume a fully decided pause. A lapsed lease may be taken
 * over by anyone (a crashed replica's resume is recovered); a failed resume is claimed again only
 * by a Retry (ARGV[5]). A live lease is never shared, not even with its own owner.
 * KEYS: [1] pause hash, [2] pause audit list, [3..] gate hashes in callIds order
 * ARGV: CLAIM_RESUME_ARGS, in that order (the last four: lines sealed ahead, redis-chain-offers.ts)
 * An undo window holds a first claim until its end (NOT_DUE {holdUntil}).
 * Returns CLAIMED {attempt, the resume state before} | NOT_DECIDED | LEASED {leaseUntil} | FINISHED |
 *   AWAITING_RETRY | NOT_FOUND | CORRUPT | KEYS_MISMATCH
 */
export const CLAIM_RESUME = new PauseScript(
  'claim_resume',
  CLAIM_RESUME_ARGS,
  {
    functions: LUA_TAKE_LEASE,
    body: `
${LUA_OFFER_SEAL}
local pause, gates = load()
if not pause then return gates end
local state = pause.resume_state
if RESUME_FINISHED[state] then return reply(CODE.FINISHED) end
if pause.pending > 0 then return reply(CODE.NOT_DECIDED) end
if state == RESUME.failed and not args.retryFailed then return reply(CODE.AWAITING_RETRY) end
local hold_until = held_until(pause)
if hold_until then return reply(CODE.NOT_DUE, {tostring(hold_until)}) end
if state == RESUME.resuming and pause.lease_until and pause.lease_until > NOW_MS then
  return reply(CODE.LEASED, {tostring(pause.lease_until)})
end
-- A failed pause was set to expire with the retention; a retry makes it live again.
if state == RESUME.failed then
  for i = 1, #KEYS do redis.call('PERSIST', KEYS[i]) end
end
local attempt = take_lease(pause, args.owner, args.leaseUntil, args.leaseMs)
return reply(CODE.CLAIMED, {attempt, state})
`,
  },
  ({ code }) => code,
);

/**
 * The audit entry claim_resume writes when it claims (the twin of its `audit` call), given the
 * pause's resume as last seen: the line a replica seals ahead (redis-chain-offers.ts). A claim
 * that finds the resume otherwise (another replica took or lost the lease) writes another
 * body, which costs only the separate seal.
 */
export function plannedClaimEntries(
  claim: { owner: string; leaseMs: number },
  before: Pick<ResumeStatus, 'state' | 'attempts' | 'leaseOwner'>,
): PlannedEntry[] {
  const attempt = before.attempts + 1;
  const tookOverFrom = before.state === 'resuming' ? before.leaseOwner : undefined;
  const detail = claimDetail({ attempt, leaseMs: claim.leaseMs, tookOverFrom });
  return [{ event: 'resume_claimed', actor: claim.owner, callId: '', detail }];
}
