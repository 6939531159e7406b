import type { JsonValue } from '../../../json.js';
import { type GateDecision, type GateState, gateStateSchema, type Vote } from '../../records.js';
import { StoreError } from '../../store.js';
import { initiatorOf } from '../audit-chain.js';
import type { PauseSeen, PlannedEntry } from '../redis-chain-offers.js';
import { approvedDetail, VOTE_OUTCOME } from '../rules.js';
import { LUA_TAKE_LEASE, plannedClaimEntries } from './claim-resume.lua.js';
import {
  type ArgsOf,
  arg,
  type CodeAndInfo,
  LUA_OFFER_SEAL,
  PauseScript,
  SEAL_OFFER_ARGS,
} from './pause-script.js';

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
  if hsetnx(gate.key, 'v:' .. voter, choice) == 0 then
    return CODE.ALREADY_VOTED, {}
  end
  -- The votes field is a JSON array written by TypeScript: append without decoding it.
  local votes = hget(gate.key, 'votes')
  if votes == '[]' then votes = '[' .. vote_json .. ']' else votes = string.sub(votes, 1, -2) .. ',' .. vote_json .. ']' end
  hset(gate.key, 'votes', votes)
  bump(gate.key)
  audit(EVENT.voted, voter, gate, vote_detail)
  if choice == CHOICE.reject then
    decide(pause, gate, VOTE_OUTCOME.reject, decision_json, payload)
    audit(EVENT.rejected, voter, gate, '')
    return CODE.DECIDED, {VOTE_OUTCOME.reject, pause_decided(pause)}
  end
  local approvals = hincrby(gate.key, 'approvals', 1)
  if payload ~= '' then hset(gate.key, 'lastPayload', payload) end
  if approvals < gate.quorum then return CODE.COUNTED, {approvals, gate.quorum} end
  -- This vote's payload if it has one, else the latest earlier approve vote's.
  if payload == '' then payload = hget(gate.key, 'lastPayload') end
  decide(pause, gate, VOTE_OUTCOME.approve, decision_json, payload)
  if gate.undo_ms > 0 and initiator_of(voter) == 'person' then hold(NOW_MS + gate.undo_ms) end
  audit(EVENT.approved, voter, gate, detail(FACT.approvals, {approvals, gate.quorum}))
  return CODE.DECIDED, {VOTE_OUTCOME.approve, pause_decided(pause)}
end
`;

/** What one gate's vote came to, as vote and vote_all reply it and the memory twin returns it. */
export type VoteGateReply =
  | { code: 'COUNTED'; approvals: number; quorum: number }
  /** `claimedAttempt`: vote only, given a resume claim: the resume is claimed, this attempt. */
  | { code: 'DECIDED'; state: GateState; pauseDecided: boolean; claimedAttempt?: number }
  | { code: 'EXPIRED'; state: GateState; pauseDecided: boolean }
  | { code: 'ALREADY_VOTED' }
  | { code: 'ALREADY_DECIDED' }
  /** vote only, given the gates' version its caller checked: a gate changed since. */
  | { code: 'STALE' };

/** One gate's vote reply from its code and its two info values. */
export function decodeVoteGate(script: string, { code, info }: CodeAndInfo): VoteGateReply {
  const [first = '', second = '', third = ''] = info;
  switch (code) {
    case 'COUNTED':
      return { code, approvals: Number(first), quorum: Number(second) };
    case 'DECIDED': {
      const decided = { code, state: gateStateSchema.parse(first), pauseDecided: second === '1' };
      return third === '' ? decided : { ...decided, claimedAttempt: Number(third) };
    }
    case 'EXPIRED':
      return { code, state: gateStateSchema.parse(first), pauseDecided: second === '1' };
    case 'ALREADY_VOTED':
    case 'ALREADY_DECIDED':
    case 'STALE':
      return { code };
    default:
      throw new StoreError('script', `script ${script} answered ${code}, which it never should`);
  }
}

const VOTE_ARGS = {
  now: arg.number,
  /** 1-based, in callIds order. */
  gateIndex: arg.number,
  voter: arg.text(),
  choice: arg.text<Vote['choice']>(),
  vote: arg.json<Vote>(),
  payload: arg.optionalJson<JsonValue>(),
  /** The decision this vote makes if it decides. */
  decision: arg.json<GateDecision>(),
  /** The decision of an expiry, if the gate turns out to be due. */
  expiry: arg.json<GateDecision>(),
  /** Applies if the expiry abandons the pause. */
  retentionMs: arg.number,
  /** The audit detail of the vote. */
  detail: arg.text(),
  /**
   * The version of the pause's gates (`gatesVersion`) when the voter was checked, 0 for none: the
   * vote is only applied to the gates as checked.
   */
  checkedGatesVersion: arg.number,
  /**
   * Who resumes the pause if this vote decides it ('' for no claim): the resume is claimed for
   * them in the same step, unless an undo window holds it.
   */
  claimOwner: arg.text(),
  /** The claim's lease (ms). */
  claimLeaseMs: arg.number,
  ...SEAL_OFFER_ARGS,
};
export type VoteArgs = ArgsOf<typeof VOTE_ARGS>;

/**
 * vote: one voter's approve or reject on one gate, compare-and-set on the gate's state; given a
 * claim owner, a vote that decides the pause's last gate also claims its resume (claim_resume's
 * lease, attempt and line), unless an undo window holds it.
 * KEYS: [1] pause hash, [2] pause audit list, [3..] gate hashes in callIds order
 * ARGV: VOTE_ARGS, in that order (the last four: lines sealed ahead, redis-chain-offers.ts)
 * Returns COUNTED {approvals, quorum} | DECIDED {state, pauseDecided '1'|'0', the claim's attempt
 *   when claimed} | ALREADY_VOTED |
 *   ALREADY_DECIDED {state} | EXPIRED {state, pauseDecided} | STALE (the gates' version is not
 *   checkedGatesVersion) | NOT_FOUND | CORRUPT | KEYS_MISMATCH
 */
export const VOTE = new PauseScript(
  'vote',
  VOTE_ARGS,
  {
    functions: VOTE_GATE + LUA_TAKE_LEASE,
    body: `
${LUA_OFFER_SEAL}
local pause, gates = load(args.voter)
if not pause then return gates end
if args.checkedGatesVersion > 0 then
  local version = 0
  for _, gate in ipairs(gates) do version = version + gate.version end
  if version ~= args.checkedGatesVersion then return reply(CODE.STALE, {}) end
end
local code, info = vote_gate(pause, gates, gates[args.gateIndex], args.voter, args.choice,
  args.vote, args.payload, args.decision, args.expiry, args.retentionMs, args.detail)
if code == CODE.DECIDED and info[2] == '1' and args.claimOwner ~= ''
    and pause.resume_state == RESUME.idle and not held_until(pause) then
  info[3] = take_lease(pause, args.claimOwner, NOW_MS + args.claimLeaseMs, args.claimLeaseMs)
end
return reply(code, info)
`,
  },
  (reply) => decodeVoteGate('vote', reply),
);

const VOTE_ALL_ARGS = {
  now: arg.number,
  voter: arg.text(),
  choice: arg.text<Vote['choice']>(),
  vote: arg.json<Vote>(),
  decision: arg.json<GateDecision>(),
  expiry: arg.json<GateDecision>(),
  retentionMs: arg.number,
  detail: arg.text(),
  /** 1-based, in callIds order: the gates to vote on. */
  gateIndexes: arg.numbers,
};
export type VoteAllArgs = ArgsOf<typeof VOTE_ALL_ARGS>;

/**
 * vote_all: one voter's approve or reject on several gates of a pause in one step (Approve all,
 * Reject all), so that a crash never leaves part of the decision applied.
 * KEYS: as vote
 * ARGV: VOTE_ALL_ARGS, in that order (the gate indexes last, as many as there are)
 * Returns OK with info = three entries per gate, in ARGV order: the gate's vote code and its two
 *   info values ('' when none) | NOT_FOUND | CORRUPT | KEYS_MISMATCH
 */
export const VOTE_ALL = new PauseScript(
  'vote_all',
  VOTE_ALL_ARGS,
  {
    functions: VOTE_GATE,
    body: `
local pause, gates = load(args.voter)
if not pause then return gates end
local out = {}
for _, index in ipairs(args.gateIndexes) do
  local code, info = vote_gate(pause, gates, gates[index], args.voter, args.choice, args.vote,
    '', args.decision, args.expiry, args.retentionMs, args.detail)
  out[#out + 1] = code
  out[#out + 1] = info[1] or ''
  out[#out + 1] = info[2] or ''
end
return reply(CODE.OK, out)
`,
  },
  ({ code, info }) => {
    if (code !== 'OK') {
      throw new StoreError('script', `script vote_all answered ${code}, which it never should`);
    }
    return info;
  },
);

/**
 * The audit entries vote_gate writes for a first vote on a pending gate that is not due (the
 * twin of its `audit` calls), given the gate's tally before the vote: the lines a replica seals
 * ahead (redis-chain-offers.ts). A wrong guess only costs the separate seal.
 */
export function plannedVoteEntries(
  vote: { voter: string; choice: Vote['choice']; callId: string; detail: string; decision: string },
  tally: { approvals: number; quorum: number },
): PlannedEntry[] {
  const { voter: actor, callId, decision } = vote;
  const voted = { event: 'voted', actor, callId, detail: vote.detail };
  if (vote.choice === 'reject') {
    return [voted, { event: VOTE_OUTCOME.reject, actor, callId, detail: '', decision }];
  }
  const approvals = tally.approvals + 1;
  if (approvals < tally.quorum) return [voted];
  const detail = approvedDetail(approvals, tally.quorum);
  return [voted, { event: VOTE_OUTCOME.approve, actor, callId, detail, decision }];
}

/**
 * plannedVoteEntries, then the claim's line when the vote is expected to decide the pause's last
 * pending gate with nothing holding its resume: a vote given a claim owner claims it then.
 */
export function plannedVoteAndClaimEntries(
  vote: Parameters<typeof plannedVoteEntries>[0],
  seen: PauseSeen,
  claim: { owner: string; leaseMs: number; now: number } | undefined,
): PlannedEntry[] | undefined {
  const tally = seen.pending.get(vote.callId);
  if (tally === undefined) return undefined;
  const entries = plannedVoteEntries(vote, tally);
  const decides = entries.length > 1;
  if (claim === undefined || !decides || seen.pending.size > 1) return entries;
  const holds =
    (seen.resume.holdUntil ?? 0) > claim.now ||
    (vote.choice === 'approve' && tally.undoMs > 0 && initiatorOf(vote.voter) === 'person');
  if (seen.resume.state !== 'idle' || holds) return entries;
  return [...entries, ...plannedClaimEntries(claim, seen.resume)];
}
