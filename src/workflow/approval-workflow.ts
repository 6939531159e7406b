import type { BatchPick } from '../approvals/outcomes.js';
import type { PauseStore } from '../approvals/store-roles/pauses.js';
import { errorMessage } from '../error-message.js';
import type { Log } from '../log.js';
import type { SlackMessage } from '../slack/codecs/block-kit.js';
import { renderPauseGoneCard } from '../slack/render/notices.js';
import type { SlackPort } from '../slack/transport/port.js';
import type { AgentCommandInput, AgentRuns } from './agent-runs.js';
import type { AppHomes } from './app-homes.js';
import type { ApprovalChecks, VoterCheck } from './approval-checks.js';
import type { BatchRef, BatchRequest, BatchVotes } from './batch-votes.js';
import type { CardRefresher } from './card-refresher.js';
import type { Decider, DecisionReply, VoteRequest } from './decider.js';
import type { DecisionQueue, Tell } from './decision-queue.js';
import type { GiveGrantRequest, GrantDecisions } from './grant-decisions.js';
import type { ResumeScheduling } from './resume-scheduler.js';
import type { HeldRun, RunIntents } from './run-intents.js';
import type { RunStatusBoard } from './run-status-board.js';
import type { ThreadMessageInput, ThreadMessageOutcome, ThreadReplies } from './thread-replies.js';
import type { Undos } from './undos.js';
import type { Withdrawals, WithdrawRequest } from './withdrawals.js';
import type { KeyedWorkQueue } from './work-queue.js';

export type { Tell } from './decision-queue.js';

/** What the façade calls; built by `composeWorkflow` (compose.ts). */
export interface WorkflowParts {
  store: { pauses: Pick<PauseStore, 'getPause'> };
  slack: Pick<SlackPort, 'updateMessage'>;
  log: Log;
  /** Decisions, one at a time per pause, tracked and worded. */
  decisions: DecisionQueue;
  /** Agent runs, thread replies and resumes: long tasks, mostly waiting on a model. */
  runs: KeyedWorkQueue;
  checks: Pick<ApprovalChecks, 'check' | 'checkRetry'>;
  decider: Pick<Decider, 'vote' | 'voteAll'>;
  resumes: ResumeScheduling;
  batches: Pick<BatchVotes, 'vote'>;
  grants: Pick<GrantDecisions, 'give' | 'revokeGivenOn'>;
  withdrawals: Pick<Withdrawals, 'withdraw'>;
  undos: Pick<Undos, 'undo'>;
  runIntents: Pick<RunIntents, 'accept'>;
  agentRuns: Pick<AgentRuns, 'start'>;
  threadReplies: Pick<ThreadReplies, 'handle'>;
  /** Waited for at shutdown, after the work above, since that work asks them for redraws. */
  redraws: {
    cards: Pick<CardRefresher, 'drain'>;
    homes: Pick<AppHomes, 'drain'>;
    runStatus: Pick<RunStatusBoard, 'settle'>;
  };
}

/**
 * The approval workflow as the Slack listeners see it: its entry points, each called after the
 * ack. Decisions go through a per-pause ordered queue (`DecisionQueue`); runs and resumes, which
 * stream for minutes, through a queue of their own so that they never hold up a click. How a
 * click reaches the agent: docs/architecture.md.
 */
export class ApprovalWorkflow {
  constructor(private readonly parts: WorkflowParts) {}

  /**
   * A person's message in a channel the app is in (Events API, after the ack). Replies in one
   * thread are taken one at a time, in order; anything outside a run's thread is ignored.
   */
  onThreadMessage(input: ThreadMessageInput): void {
    const { runs, threadReplies, log } = this.parts;
    void runs.enqueue(
      `thread:${input.channelId}:${input.threadTs ?? input.ts}`,
      'thread reply',
      async () => {
        const outcome: ThreadMessageOutcome = await threadReplies.handle(input);
        log.debug('thread message handled', { eventId: input.eventId, outcome });
      },
    );
  }

  /**
   * `/agent …` accepted: its intent is recorded before the ack, so that a crash from here on is
   * told to the requester by another replica. Undefined when the store could not record it.
   */
  acceptRun(input: AgentCommandInput): Promise<HeldRun | undefined> {
    return this.parts.runIntents.accept(input);
  }

  /** `/agent …`: runs in the background; `reply` answers the person privately. */
  startRun(
    input: AgentCommandInput,
    reply: (message: SlackMessage) => Promise<void>,
    held?: HeldRun,
  ): void {
    void this.parts.runs.enqueue(`run:${input.channelId}:${input.userId}`, 'agent run', () =>
      this.parts.agentRuns.start(input, reply, held),
    );
  }

  /** The call id of the gate at `index` in its pause (menus name gates by position). */
  async callIdAt(pauseId: string, index: number): Promise<string | undefined> {
    const view = await this.parts.store.pauses.getPause(pauseId);
    return view?.pause.callIds[index];
  }

  /** May this person decide these gates? Checked before a modal opens. */
  check(pauseId: string, callIds: readonly string[], voter: string): Promise<VoterCheck> {
    return this.parts.checks.check(pauseId, callIds, voter);
  }

  /** `tell`: a later private word to the voter, when the store's answer was lost. */
  vote(request: VoteRequest, tell?: Tell): Promise<DecisionReply> {
    const clickedAt = performance.now();
    const check = { pauseId: request.pauseId, voter: request.voter, callIds: [request.callId] };
    return this.parts.decisions.decide(request.pauseId, () => this.parts.decider.vote(request), {
      clickedAt,
      unknown: { check, tell },
    });
  }

  voteAll(request: Omit<VoteRequest, 'callId' | 'payload'>, tell?: Tell): Promise<DecisionReply> {
    const clickedAt = performance.now();
    const check = { pauseId: request.pauseId, voter: request.voter, callIds: [] };
    return this.parts.decisions.decide(request.pauseId, () => this.parts.decider.voteAll(request), {
      clickedAt,
      unknown: { check, tell },
    });
  }

  /** A batch from the App Home: what became of each picked call (see `BatchVotes`). */
  voteBatch(request: BatchRequest, refs: readonly BatchRef[], tell?: Tell): Promise<BatchPick[]> {
    return this.parts.batches.vote(request, refs, tell);
  }

  /** Approve, and give a grant of `scope` that decides later calls (the card's grant buttons). */
  grant(request: GiveGrantRequest, tell: Tell): Promise<DecisionReply> {
    const clickedAt = performance.now();
    const check = { pauseId: request.pauseId, voter: request.granter, callIds: [request.callId] };
    return this.parts.decisions.decide(
      request.pauseId,
      () => this.parts.grants.give(request, tell),
      { clickedAt, unknown: { check, tell } },
    );
  }

  /** Withdraw: the requester or a policy admin calls the pending request off. */
  withdraw(request: WithdrawRequest): Promise<DecisionReply> {
    return this.parts.decisions.decide(request.pauseId, () =>
      this.parts.withdrawals.withdraw(request),
    );
  }

  /** Undo, in a decision's undo window: its approver or a policy admin takes the approval back. */
  undo(pauseId: string, user: string): Promise<DecisionReply> {
    return this.parts.decisions.decide(pauseId, async () => {
      const reply = await this.parts.undos.undo(pauseId, user);
      // The grants the undone approval gave go with it.
      if (reply.kind === 'done') await this.parts.grants.revokeGivenOn(pauseId, user);
      return reply;
    });
  }

  /** The Retry button on a failed resume: the requester or any approver may press it. */
  retryResume(pauseId: string, user: string): Promise<DecisionReply> {
    return this.parts.decisions.decide(pauseId, async () => {
      const check = await this.parts.checks.checkRetry(pauseId, user);
      if (check.kind === 'done') this.parts.resumes.pauseDecided(pauseId, { retry: true });
      return check;
    });
  }

  /**
   * A click found its card's pause gone from the store (Redis lost its data): the card says so and
   * loses its buttons, so that nobody else clicks it in vain.
   */
  async showPauseGone(card: { channelId: string; ts: string }): Promise<void> {
    try {
      await this.parts.slack.updateMessage({
        channel: card.channelId,
        ts: card.ts,
        ...renderPauseGoneCard(),
      });
    } catch (error) {
      this.parts.log.warn('could not mark a card whose pause is gone', {
        error: errorMessage(error),
      });
    }
  }

  /** Stops taking work and waits for what was taken, up to `timeoutMs`. */
  async drain(timeoutMs: number): Promise<boolean> {
    const { decisions, runs, redraws } = this.parts;
    const deadline = Date.now() + timeoutMs;
    // Decisions first: a vote deciding its pause now has claimed its resume for this replica,
    // which the runs queue still takes; refused, it would wait for the lease to lapse elsewhere.
    const decided = await decisions.drain(timeoutMs);
    const ran = await runs.drain(Math.max(0, deadline - Date.now()));
    // Last: decisions and resumes finishing above still ask for card updates.
    const [cards, homes] = await Promise.all([
      redraws.cards.drain(timeoutMs),
      redraws.homes.drain(timeoutMs),
    ]);
    await redraws.runStatus.settle();
    return decided && ran && cards && homes;
  }
}
