import type { PauseView } from '../records.js';
import { StoreError } from '../store.js';
import type { VoteResult } from '../store-roles/pauses.js';
import type { VoteGateReply } from './scripts/vote.lua.js';

/**
 * A gate's vote outcome from what the vote rule replied and the pause as the step left it: one
 * reading of the reply for the Redis store and its memory twin.
 */
export function voteResultOf(reply: VoteGateReply, view: PauseView, callId: string): VoteResult {
  switch (reply.code) {
    case 'COUNTED':
      return { kind: 'counted', view, approvals: reply.approvals, quorum: reply.quorum };
    case 'DECIDED': {
      const { state, pauseDecided, claimedAttempt } = reply;
      const decided = { kind: 'decided', view, state, pauseDecided } as const;
      return claimedAttempt === undefined
        ? decided
        : { ...decided, claimed: { attempt: claimedAttempt } };
    }
    case 'EXPIRED':
      return { kind: 'expired', view, state: reply.state, pauseDecided: reply.pauseDecided };
    case 'ALREADY_VOTED':
      return { kind: 'already_voted', view };
    case 'STALE':
      return { kind: 'stale', view };
    case 'ALREADY_DECIDED': {
      const gate = view.gates.find((g) => g.confirmationCallId === callId);
      if (gate?.decision === undefined) {
        const where = `gate ${callId} of pause ${view.pause.id}`;
        throw new StoreError('corrupt_record', `${where} is decided without a decision`);
      }
      return { kind: 'already_decided', view, state: gate.state, decision: gate.decision };
    }
  }
}
