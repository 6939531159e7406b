import { gateKind } from '../adk/gate.js';
import type { Clock } from '../approvals/clock.js';
import type { Refusal } from '../approvals/outcomes.js';
import type { Policy } from '../approvals/policy.js';
import type { PauseRecord, PauseView } from '../approvals/records.js';
import type { ApprovalStore } from '../approvals/store.js';
import type { Log } from '../log.js';
import type { Metrics } from '../metrics.js';
import { renderWithdrawnNote } from '../slack/render/thread.js';
import { displayNameWithin, type PersonNames } from '../slack/transport/person-names.js';
import type { CardUpdates } from './card-updates.js';
import { closedGate } from './closed-gates.js';
import type { DecisionReply } from './decider.js';
import type { ResumeScheduling } from './resume-scheduler.js';
import type { RunThreads } from './run-thread.js';

export interface WithdrawRequest {
  pauseId: string;
  /** A Slack user id. */
  user: string;
  reason?: string;
}

/**
 * Withdraw: the person who asked (the `/agent` user, or the requester an API pause named) or a
 * policy admin calls a pending request off. Every pending gate becomes `withdrawn` in one store
 * step, the resume tells the agent, the card and the run's thread say who withdrew it. Anyone
 * else is refused, saying who may (fail closed: an API pause naming no Slack user is withdrawn
 * only by an admin, or cancelled by its agent).
 */
export class Withdrawals {
  constructor(
    private readonly deps: {
      store: Pick<ApprovalStore, 'pauses'>;
      policy: () => Policy;
      threads: RunThreads;
      clock: Clock;
      log: Log;
      metrics: Metrics;
      /** The card is redrawn and its Homes follow; never waits on Slack. */
      cards: Pick<CardUpdates, 'pauseChanged'>;
      /** Told of the withdrawn pause: its resume tells the agent. */
      resumes: ResumeScheduling;
      /** The requester's display name, kept in the decision for the audit. Absent: ids only. */
      people?: PersonNames;
    },
  ) {}

  async withdraw(request: WithdrawRequest): Promise<DecisionReply> {
    const { store, log } = this.deps;
    const name = displayNameWithin(this.deps.people, request.user);
    const view = await store.pauses.getPause(request.pauseId);
    if (view === undefined) return refuse({ kind: 'pause_gone' });
    const nothingPending = decidedRefusal(view);
    if (nothingPending !== undefined) return refuse(nothingPending);
    if (!mayWithdraw(view.pause, request.user, this.deps.policy().admins ?? [])) {
      log.info('withdraw refused', { pauseId: request.pauseId, user: request.user });
      return refuse({ kind: 'not_requester', requester: view.pause.requester });
    }
    const now = this.deps.clock();
    if (view.gates.some((gate) => gate.state === 'pending' && gateKind(gate) === 'input')) {
      return this.cancelQuestion(request, now);
    }
    const byName = await name;
    const result = await store.pauses.withdraw({
      pauseId: request.pauseId,
      by: request.user,
      ...(byName === undefined ? {} : { byName }),
      ...(request.reason?.trim() ? { reason: request.reason.trim() } : {}),
      now,
    });
    switch (result.kind) {
      case 'not_found':
        return refuse({ kind: 'pause_gone' });
      case 'nothing_pending':
        return refuse(decidedRefusal(result.view) ?? { kind: 'not_found' });
      case 'withdrawn': {
        log.info('request withdrawn', { pauseId: request.pauseId, by: request.user });
        for (const gate of result.view.gates) {
          if (!result.callIds.includes(gate.confirmationCallId)) continue;
          this.deps.metrics.gateClosed(closedGate(result.view, gate, 'withdrawn', now));
        }
        // The resume first: the card and the thread may wait on Slack, the agent must not.
        this.deps.resumes.pauseDecided(request.pauseId);
        this.deps.cards.pauseChanged(request.pauseId);
        void this.tellThread(result.view, request.user, request.reason);
        return { kind: 'done' };
      }
    }
  }

  /**
   * ADK has no "no" to an input request (see `inputAnswer`), so a pause asking a question is
   * cancelled instead, as its expiry does: the agent is not answered, and the card says who.
   */
  private async cancelQuestion(request: WithdrawRequest, now: number): Promise<DecisionReply> {
    const reason = request.reason?.trim();
    const result = await this.deps.store.pauses.cancel({
      pauseId: request.pauseId,
      by: request.user,
      ...(reason ? { reason } : {}),
      now,
    });
    if (result.kind === 'not_found') return refuse({ kind: 'pause_gone' });
    if (result.kind === 'nothing_pending') {
      return refuse(decidedRefusal(result.view) ?? { kind: 'not_found' });
    }
    this.deps.log.info('question withdrawn (cancelled)', { pauseId: request.pauseId });
    this.deps.cards.pauseChanged(request.pauseId);
    void this.tellThread(result.view, request.user, request.reason, false);
    return { kind: 'done' };
  }

  /** Off the critical path; `RunThreads.post` never throws. */
  private async tellThread(
    view: PauseView,
    by: string,
    reason: string | undefined,
    agentTold = true,
  ) {
    const { pause } = view;
    const thread = pause.runThread ?? {
      channelId: pause.card.channelId,
      ...(pause.card.threadTs === undefined ? {} : { threadTs: pause.card.threadTs }),
    };
    await this.deps.threads.post(thread, renderWithdrawnNote(by, reason, agentTold));
  }
}

/** The requester, or an admin the policy names; never anyone by default. */
export function mayWithdraw(pause: PauseRecord, user: string, admins: readonly string[]): boolean {
  return user === pause.requester || admins.includes(user);
}

/** Nothing left to withdraw: says how the request was decided. */
function decidedRefusal(view: PauseView): Refusal | undefined {
  if (view.gates.some((gate) => gate.state === 'pending')) return undefined;
  const decided = view.gates.find((gate) => gate.decision !== undefined);
  return decided?.decision === undefined
    ? { kind: 'not_found' }
    : { kind: 'already_decided', state: decided.state, decision: decided.decision };
}

function refuse(refusal: Refusal): DecisionReply {
  return { kind: 'refused', refusal };
}
