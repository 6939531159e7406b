import type { JsonValue } from '../adk/gate.js';
import type { Log } from '../log.js';
import * as notices from '../slack/notices.js';
import { ApproverLookupError, type ApproverDirectory, authorize } from './authorize.js';
import type { ApprovalCards } from './cards.js';
import { type Policy, resolveGatePolicy } from './policy.js';
import type { Clock, SlackMessage } from './ports.js';
import type { GatePolicy, GateRecord, PauseView } from './records.js';
import type { ConfirmationStore } from './store.js';

export interface VoteRequest {
  pauseId: string;
  callId: string;
  voter: string;
  choice: 'approve' | 'reject';
  payload?: JsonValue;
  reason?: string;
}

/** What the voter hears back: nothing (the card shows it), or an ephemeral saying why not. */
export type DecisionReply = { kind: 'done' } | { kind: 'refused'; notice: SlackMessage };

export type VoterCheck =
  | { kind: 'allowed'; view: PauseView; gates: GateRecord[]; policies: GatePolicy[] }
  | { kind: 'refused'; notice: SlackMessage };

const DONE: DecisionReply = { kind: 'done' };

/**
 * Step 5 of the flow: checks the voter against the current policy, applies the vote with one
 * atomic store call, and keeps the card in sync. Every refusal says why.
 */
export class Decider {
  constructor(
    private readonly deps: {
      store: ConfirmationStore;
      cards: ApprovalCards;
      directory: ApproverDirectory;
      policy: () => Policy;
      clock: Clock;
      log: Log;
      /** Called once a vote or an expiry has decided the last gate of a pause. */
      onPauseDecided: (pauseId: string) => void;
    },
  ) {}

  /**
   * May `voter` vote on these gates (all pending gates when `callIds` is empty)? Used before a
   * vote and before opening a modal, so that nobody fills in a form only to be refused.
   */
  async check(pauseId: string, callIds: readonly string[], voter: string): Promise<VoterCheck> {
    const view = await this.deps.store.getPause(pauseId);
    if (view === undefined) return { kind: 'refused', notice: notices.gateNotFound() };
    const gates =
      callIds.length === 0
        ? view.gates.filter((gate) => gate.state === 'pending')
        : view.gates.filter((gate) => callIds.includes(gate.confirmationCallId));
    if (gates.length === 0 || gates.length < callIds.length) {
      return { kind: 'refused', notice: notices.gateNotFound() };
    }
    const decided = gates.find((gate) => gate.state !== 'pending');
    if (decided !== undefined) {
      return {
        kind: 'refused',
        notice:
          decided.decision === undefined
            ? notices.gateNotFound()
            : notices.alreadyDecided(decided.state, decided.decision),
      };
    }

    const policies: GatePolicy[] = [];
    for (const gate of gates) {
      const policy = this.currentPolicy(view, gate);
      const refusal = await this.authorizeOne(view, gate, policy, voter);
      if (refusal !== undefined) return refusal;
      policies.push(policy);
    }
    return { kind: 'allowed', view, gates, policies };
  }

  /** The Retry button: the requester, or anyone who may approve one of the gates. */
  async checkRetry(
    pauseId: string,
    user: string,
  ): Promise<{ kind: 'allowed' } | { kind: 'refused'; notice: SlackMessage }> {
    const view = await this.deps.store.getPause(pauseId);
    if (view === undefined) return { kind: 'refused', notice: notices.gateNotFound() };
    if (user === view.pause.requester) return { kind: 'allowed' };
    let refusal: { kind: 'refused'; notice: SlackMessage } | undefined;
    for (const gate of view.gates) {
      refusal = await this.authorizeOne(view, gate, this.currentPolicy(view, gate), user);
      if (refusal === undefined) return { kind: 'allowed' };
    }
    return refusal ?? { kind: 'refused', notice: notices.gateNotFound() };
  }

  async vote(request: VoteRequest): Promise<DecisionReply> {
    const check = await this.check(request.pauseId, [request.callId], request.voter);
    if (check.kind === 'refused') return check;
    if (request.choice === 'reject' && needsReason(check.policies) && !request.reason?.trim()) {
      return { kind: 'refused', notice: notices.reasonRequired() };
    }
    return this.apply(request);
  }

  /** Approve all / Reject all: every pending gate the voter may decide, or none at all. */
  async voteAll(
    request: Omit<VoteRequest, 'callId' | 'payload'>,
  ): Promise<DecisionReply> {
    const check = await this.check(request.pauseId, [], request.voter);
    if (check.kind === 'refused') return check;
    if (request.choice === 'reject' && needsReason(check.policies) && !request.reason?.trim()) {
      return { kind: 'refused', notice: notices.reasonRequired() };
    }
    let reply = DONE;
    for (const gate of check.gates) {
      const result = await this.apply({ ...request, callId: gate.confirmationCallId });
      if (result.kind === 'refused' && reply.kind === 'done') reply = result;
    }
    return reply;
  }

  private async apply(request: VoteRequest): Promise<DecisionReply> {
    const { store, cards, log } = this.deps;
    const result = await store.vote({ ...request, now: this.deps.clock() });
    switch (result.kind) {
      case 'not_found':
        return { kind: 'refused', notice: notices.gateNotFound() };
      case 'already_voted':
        return { kind: 'refused', notice: notices.alreadyVoted() };
      case 'already_decided':
        return { kind: 'refused', notice: notices.alreadyDecided(result.state, result.decision) };
      case 'counted':
        log.info('vote counted', {
          pauseId: request.pauseId,
          callId: request.callId,
          voter: request.voter,
          approvals: result.approvals,
          quorum: result.quorum,
        });
        await cards.refresh(request.pauseId);
        return DONE;
      case 'decided':
        log.info('gate decided', {
          pauseId: request.pauseId,
          callId: request.callId,
          state: result.state,
          by: request.voter,
        });
        await cards.refresh(request.pauseId);
        if (result.pauseDecided) this.deps.onPauseDecided(request.pauseId);
        return DONE;
      case 'expired':
        await cards.refresh(request.pauseId);
        if (result.pauseDecided) this.deps.onPauseDecided(request.pauseId);
        return { kind: 'refused', notice: notices.expired() };
    }
  }

  /** Authorization follows the policy as it is now; quorum and expiry stay as recorded. */
  private currentPolicy(view: PauseView, gate: GateRecord): GatePolicy {
    return resolveGatePolicy(this.deps.policy(), {
      app: view.pause.adk.appName,
      tool: gate.originalCall.name,
    }).policy;
  }

  private async authorizeOne(
    view: PauseView,
    gate: GateRecord,
    policy: GatePolicy,
    voter: string,
  ): Promise<{ kind: 'refused'; notice: SlackMessage } | undefined> {
    try {
      const verdict = await authorize(
        {
          voter,
          requester: view.pause.requester,
          policy,
          cardChannelId: view.pause.card.channelId,
        },
        this.deps.directory,
      );
      if (verdict.ok) return undefined;
      this.deps.log.info('vote refused', {
        pauseId: view.pause.id,
        callId: gate.confirmationCallId,
        voter,
        reason: verdict.reason,
      });
      switch (verdict.reason) {
        case 'nobody_may_approve':
          return { kind: 'refused', notice: notices.nobodyMayApprove() };
        case 'self_approval':
          return { kind: 'refused', notice: notices.selfApproval() };
        case 'not_approver':
          return { kind: 'refused', notice: notices.notApprover(verdict.approvers) };
      }
    } catch (error) {
      if (!(error instanceof ApproverLookupError)) throw error;
      this.deps.log.warn('could not resolve approvers; refusing the vote', {
        pauseId: view.pause.id,
        voter,
        error: error.message,
      });
      return { kind: 'refused', notice: notices.permissionCheckFailed() };
    }
  }
}

function needsReason(policies: readonly GatePolicy[]): boolean {
  return policies.some((policy) => policy.reasonRequired);
}
