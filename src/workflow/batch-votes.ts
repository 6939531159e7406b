import { gateKind } from '../adk/gate.js';
import type { BatchPick, Refusal } from '../approvals/outcomes.js';
import type { GateRecord, PauseView } from '../approvals/records.js';
import type { PauseStore } from '../approvals/store-roles/pauses.js';
import type { ApprovalChecks } from './approval-checks.js';
import {
  type AppliedVote,
  type Decider,
  type DecisionReply,
  reasonRefusal,
  type VoteRequest,
} from './decider.js';
import type { DecisionQueue, Tell } from './decision-queue.js';

export type BatchRequest = Omit<VoteRequest, 'callId' | 'payload'>;
export type BatchRef = readonly [pauseId: string, callId: string];

export interface BatchVotesDeps {
  store: { pauses: Pick<PauseStore, 'getPause'> };
  checks: Pick<ApprovalChecks, 'check'>;
  decider: Pick<Decider, 'voteSelected'>;
  /** Each pause's votes run as a click's: in its order, tracked, failures worded. */
  decisions: Pick<DecisionQueue, 'decide'>;
}

const DONE: DecisionReply = { kind: 'done' };

/**
 * A batch from the App Home. Each picked call is checked on its own against the policy in force,
 * as a click on its card would be (the voter may decide it, it still waits), and then as a batch:
 * its rule does not say `batch: false`, it is not a question, and a rejection carries a reason
 * where its rule asks for one. The calls that pass are voted on, each pause's in one atomic
 * store step; those that do not are left as they are. The answer says what became of every pick
 * (approved, rejected, counted towards a quorum, or refused and why): nothing picked goes unsaid.
 */
export class BatchVotes {
  constructor(private readonly deps: BatchVotesDeps) {}

  async vote(request: BatchRequest, refs: readonly BatchRef[], tell?: Tell): Promise<BatchPick[]> {
    const byPause = new Map<string, string[]>();
    for (const [pauseId, callId] of refs) {
      byPause.set(pauseId, [...(byPause.get(pauseId) ?? []), callId]);
    }
    const picks: BatchPick[] = [];
    for (const [pauseId, callIds] of byPause) {
      const found: BatchPick[] = [];
      const answer = await this.deps.decisions.decide(
        pauseId,
        async () => {
          await this.votePause(request, pauseId, callIds, refs.length, found);
          return DONE;
        },
        {
          clickedAt: performance.now(),
          unknown: { check: { pauseId, voter: request.voter, callIds }, tell },
        },
      );
      // The step failed (the store out of reach): the calls it did not get to say why.
      const refusal: Refusal =
        answer.kind === 'refused' ? answer.refusal : { kind: 'decision_failed' };
      for (const callId of callIds) {
        const pick = found.find((one) => one.callId === callId);
        picks.push(pick ?? { pauseId, callId, outcome: { kind: 'refused', refusal } });
      }
    }
    return picks;
  }

  /** Checks each call of one pause, then votes on those that passed in one step. */
  private async votePause(
    request: BatchRequest,
    pauseId: string,
    callIds: readonly string[],
    batch: number,
    found: BatchPick[],
  ): Promise<void> {
    const view = await this.deps.store.pauses.getPause(pauseId);
    const pickOf = (callId: string, outcome: BatchPick['outcome']): BatchPick => {
      const gate = view?.gates.find((g) => g.confirmationCallId === callId);
      const call = view === undefined || gate === undefined ? undefined : callOf(view, gate);
      return { pauseId, callId, ...(call === undefined ? {} : { call }), outcome };
    };
    // By whom they are decided for: the voter's own standing (''), or a hand-over's delegator.
    const allowed = new Map<string, string[]>();
    for (const callId of callIds) {
      const verdict = await this.refusalOf(request, pauseId, callId);
      if (verdict.kind === 'refused') {
        found.push(pickOf(callId, verdict));
        continue;
      }
      const key = verdict.onBehalfOf ?? '';
      allowed.set(key, [...(allowed.get(key) ?? []), callId]);
    }
    for (const [onBehalfOf, ids] of allowed) {
      const applied = await this.deps.decider.voteSelected({
        ...request,
        ...(onBehalfOf === '' ? {} : { onBehalfOf }),
        pauseId,
        callIds: ids,
        batch,
      });
      for (const callId of ids) {
        const vote = applied?.find((one) => one.callId === callId);
        found.push(pickOf(callId, outcomeOf(vote)));
      }
    }
  }

  /** Why this call may not be decided in this batch now, or for whom it may be. */
  private async refusalOf(
    request: BatchRequest,
    pauseId: string,
    callId: string,
  ): Promise<{ kind: 'refused'; refusal: Refusal } | { kind: 'allowed'; onBehalfOf?: string }> {
    const check = await this.deps.checks.check(pauseId, [callId], request.voter);
    if (check.kind === 'refused') return check;
    const [gate] = check.gates;
    const [policy] = check.policies;
    const refused = (refusal: Refusal) => ({ kind: 'refused', refusal }) as const;
    if (gate === undefined || policy === undefined) return refused({ kind: 'not_found' });
    if (gateKind(gate) === 'input') return refused({ kind: 'answer_required' });
    if (policy.batch === false) return refused({ kind: 'not_batchable', rule: policy.rule });
    const noReason = reasonRefusal(request, [policy]);
    if (noReason !== undefined) return refused(noReason);
    return check.onBehalfOf === undefined
      ? { kind: 'allowed' }
      : { kind: 'allowed', onBehalfOf: check.onBehalfOf };
  }
}

function callOf(view: PauseView, gate: GateRecord): NonNullable<BatchPick['call']> {
  return {
    tool: gate.originalCall.name,
    args: gate.originalCall.args,
    requester: view.pause.requester,
    app: view.pause.adk.appName,
    channelId: view.pause.card.channelId,
  };
}

function outcomeOf(vote: AppliedVote | undefined): BatchPick['outcome'] {
  if (vote === undefined) return { kind: 'refused', refusal: { kind: 'pause_gone' } };
  const { result, reply } = vote;
  if (result.kind === 'counted') {
    return { kind: 'counted', approvals: result.approvals, quorum: result.quorum };
  }
  if (result.kind === 'decided' && (result.state === 'approved' || result.state === 'rejected')) {
    return { kind: result.state };
  }
  return {
    kind: 'refused',
    refusal: reply.kind === 'refused' ? reply.refusal : { kind: 'not_found' },
  };
}
