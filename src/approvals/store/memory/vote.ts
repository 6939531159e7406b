import { initiatorOf } from '../audit-chain.js';
import { approvedDetail, isDue, VOTE_OUTCOME } from '../rules.js';
import { NO_SEAL_OFFER } from '../scripts/pause-script.js';
import type { VoteAllArgs, VoteArgs, VoteGateReply } from '../scripts/vote.lua.js';
import { takeLease } from './claim-resume.js';
import type { MemoryGate, PauseRun } from './prelude.js';

/**
 * Twin of the vote script's body (scripts/vote.lua.ts): nothing when the gates' version is not
 * the one its voter was checked at, else the vote on the gate; a vote that decides the pause
 * claims its resume for `claimOwner`, unless an undo window holds it.
 */
export function voteIfUnchanged(run: PauseRun, gate: MemoryGate, args: VoteArgs): VoteGateReply {
  if (args.checkedGatesVersion > 0) {
    const version = run.entry.gates.reduce((sum, each) => sum + each.record.version, 0);
    if (version !== args.checkedGatesVersion) return { code: 'STALE' };
  }
  const reply = vote(run, gate, args);
  if (reply.code !== 'DECIDED' || !reply.pauseDecided || args.claimOwner === '') return reply;
  if (run.entry.pause.resume.state !== 'idle' || run.heldUntil() !== undefined) return reply;
  const lease = {
    owner: args.claimOwner,
    leaseUntil: run.now + args.claimLeaseMs,
    leaseMs: args.claimLeaseMs,
  };
  return { ...reply, claimedAttempt: takeLease(run, lease) };
}

/**
 * Twin of scripts/vote.lua.ts: one voter's approve or reject on one gate. Takes the script's
 * own arguments (the clock and the gate index come in as `run` and `gate`).
 */
export function vote(run: PauseRun, gate: MemoryGate, args: VoteArgs): VoteGateReply {
  const record = gate.record;
  const callId = record.confirmationCallId;
  if (record.state !== 'pending') return { code: 'ALREADY_DECIDED' };
  if (isDue(record.expiresAt, run.now)) {
    const state = run.expire(gate, args.expiry, args.retentionMs);
    return { code: 'EXPIRED', state, pauseDecided: run.pauseDecided() };
  }
  const { voter, choice } = args;
  if (gate.voters.has(voter)) return { code: 'ALREADY_VOTED' };
  gate.voters.add(voter);
  record.votes.push(structuredClone(args.vote));
  record.version += 1;
  run.audit('voted', voter, callId, args.detail);
  if (choice === 'reject') {
    const state = VOTE_OUTCOME.reject;
    run.decide(gate, state, args.decision, args.payload);
    run.audit('rejected', voter, callId, '');
    return { code: 'DECIDED', state, pauseDecided: run.pauseDecided() };
  }
  gate.approvals += 1;
  if (args.payload !== undefined) gate.lastPayload = structuredClone(args.payload);
  const quorum = record.policy.quorum;
  if (gate.approvals < quorum) return { code: 'COUNTED', approvals: gate.approvals, quorum };
  // This vote's payload if it has one, else the latest earlier approve vote's.
  const state = VOTE_OUTCOME.approve;
  run.decide(gate, state, args.decision, gate.lastPayload);
  const undoMs = record.policy.undoWindowMs ?? 0;
  if (undoMs > 0 && initiatorOf(voter) === 'person') run.hold(run.now + undoMs);
  run.audit('approved', voter, callId, approvedDetail(gate.approvals, quorum));
  return { code: 'DECIDED', state, pauseDecided: run.pauseDecided() };
}

/**
 * Twin of vote_all in scripts/vote.lua.ts: one voter's vote on several gates in one step.
 * `gates` are the ones `args.gateIndexes` name, in that order.
 */
export function voteAll(
  run: PauseRun,
  gates: readonly MemoryGate[],
  args: VoteAllArgs,
): VoteGateReply[] {
  const { gateIndexes: _, ...shared } = args;
  return gates.map((gate, i) =>
    vote(run, gate, {
      ...shared,
      gateIndex: args.gateIndexes[i] ?? 0,
      payload: undefined,
      checkedGatesVersion: 0,
      claimOwner: '',
      claimLeaseMs: 0,
      // The twin seals every line at once: nothing to seal ahead.
      ...NO_SEAL_OFFER,
    }),
  );
}
