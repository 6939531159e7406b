import type { JsonValue } from '../../../json.js';
import type { GateDecision, Vote } from '../../records.js';
import type { VoteResult } from '../../store-roles/pauses.js';
import { initiatorOf } from '../audit-chain.js';
import { approvedDetail, isDue, VOTE_OUTCOME } from '../rules.js';
import type { MemoryGate, PauseRun } from './prelude.js';

/** What the vote script gets as ARGV, beyond the clock and the gate. */
export interface VoteArgs {
  vote: Vote;
  payload: JsonValue | undefined;
  /** The decision this vote makes if it decides. */
  decision: GateDecision;
  /** The decision of an expiry, if the gate turns out to be due. */
  expiry: GateDecision;
  /** Applies if the expiry abandons the pause. */
  retentionMs: number;
  /** The audit detail of the vote. */
  detail: string;
}

/** Twin of scripts/vote.lua.ts: one voter's approve or reject on one gate. */
export function vote(run: PauseRun, gate: MemoryGate, args: VoteArgs): VoteResult {
  const record = gate.record;
  const callId = record.confirmationCallId;
  if (record.state !== 'pending') {
    if (record.decision === undefined) throw new Error(`gate ${callId} decided without decision`);
    const decision = structuredClone(record.decision);
    return { kind: 'already_decided', view: run.view(), state: record.state, decision };
  }
  if (isDue(record.expiresAt, run.now)) {
    const state = run.expire(gate, args.expiry, args.retentionMs);
    return { kind: 'expired', view: run.view(), state, pauseDecided: run.pauseDecided() };
  }
  const { voter, choice } = args.vote;
  if (gate.voters.has(voter)) return { kind: 'already_voted', view: run.view() };
  gate.voters.add(voter);
  record.votes.push(structuredClone(args.vote));
  record.version += 1;
  run.audit('voted', voter, callId, args.detail);
  if (choice === 'reject') {
    const state = VOTE_OUTCOME.reject;
    run.decide(gate, state, args.decision, args.payload);
    run.audit('rejected', voter, callId, '');
    return { kind: 'decided', view: run.view(), state, pauseDecided: run.pauseDecided() };
  }
  gate.approvals += 1;
  if (args.payload !== undefined) gate.lastPayload = structuredClone(args.payload);
  const quorum = record.policy.quorum;
  if (gate.approvals < quorum) {
    return { kind: 'counted', view: run.view(), approvals: gate.approvals, quorum };
  }
  // This vote's payload if it has one, else the latest earlier approve vote's.
  const state = VOTE_OUTCOME.approve;
  run.decide(gate, state, args.decision, gate.lastPayload);
  const undoMs = record.policy.undoWindowMs ?? 0;
  if (undoMs > 0 && initiatorOf(voter) === 'person') run.hold(run.now + undoMs);
  run.audit('approved', voter, callId, approvedDetail(gate.approvals, quorum));
  return { kind: 'decided', view: run.view(), state, pauseDecided: run.pauseDecided() };
}

/** Twin of vote_all in scripts/vote.lua.ts: one voter's vote on several gates in one step. */
export function voteAll(
  run: PauseRun,
  gates: readonly MemoryGate[],
  args: Omit<VoteArgs, 'payload'>,
): { callId: string; result: VoteResult }[] {
  const results = gates.map((gate) => ({
    callId: gate.record.confirmationCallId,
    result: vote(run, gate, { ...args, payload: undefined }),
  }));
  // Every outcome carries the pause as the whole step left it, as the script's reply does.
  const view = run.view();
  return results.map(({ callId, result }) => ({
    callId,
    result: result.kind === 'not_found' ? result : { ...result, view },
  }));
}
