import { gateKind } from '../adk/gate.js';
import type { Clock } from '../approvals/clock.js';
import type { Refusal } from '../approvals/outcomes.js';
import {
  type GatePolicy,
  type GateRecord,
  type GateState,
  gatesVersion,
  type PauseView,
} from '../approvals/records.js';
import type {
  PauseStore,
  VoteAllInput,
  VoteInput,
  VoteResult,
} from '../approvals/store-roles/pauses.js';
import type { Log } from '../log.js';
import type { Metrics } from '../metrics.js';
import { displayNameWithin, type PersonNames } from '../slack/transport/person-names.js';
import { type AllowedCheck, type ApprovalChecks, questionOf } from './approval-checks.js';
import type { CardUpdates } from './card-updates.js';
import { closedGate } from './closed-gates.js';
import type { ResumeScheduling } from './resume-scheduler.js';

/** A vote as a person casts it; the store adds the time. */
export type VoteRequest = Omit<VoteInput, 'now'>;

/** What the voter hears back: nothing (the card shows it), or a private message saying why not. */
export type DecisionReply = { kind: 'done' } | { kind: 'refused'; refusal: Refusal };

/** One gate's vote in an atomic step over several: what the store made of it, in the voter's words. */
export interface AppliedVote {
  callId: string;
  result: VoteResult;
  reply: DecisionReply;
}

const DONE: DecisionReply = { kind: 'done' };
const refuse = (refusal: Refusal) => ({ kind: 'refused', refusal }) as const;

/**
 * Checks and votes of one click while the pause keeps changing under them (other votes landing
 * between a check and its vote). Every vote carries the version it was checked at, so none is
 * applied to a pause it was not checked on: after this many stale answers the click is refused
 * (`changed_meanwhile`), nothing recorded.
 */
export const CHECKED_VOTE_TRIES = 5;

/**
 * Step 5 of the flow: checks the voter against the current policy (`ApprovalChecks`), applies
 * the vote with one atomic store call, schedules the resume, then asks for the card to be updated
 * (off the decision's critical path: Slack being slow delays no decision and no resume). Every
 * refusal says why.
 */
export class Decider {
  constructor(
    private readonly deps: {
      store: { pauses: Pick<PauseStore, 'vote' | 'voteAll' | 'recentPause'> };
      checks: Pick<ApprovalChecks, 'check'>;
      /** The card is redrawn and its Homes follow; never waits on Slack. */
      cards: Pick<CardUpdates, 'pauseChanged'>;
      /** Told once a vote has decided the last gate of a pause. */
      resumes: ResumeScheduling;
      clock: Clock;
      log: Log;
      metrics: Metrics;
      /** Deciders' display names, kept in their decisions for the audit. Absent: ids only. */
      people?: PersonNames;
    },
  ) {}

  /**
   * A click's vote. The check starts from the pause as this replica last saw it, if it saw it
   * lately (no read), and the vote carries the version of the gates it was checked on: the store
   * applies it only if no gate changed since, and otherwise answers with the pause as it is,
   * which is checked again. A refusal (the check's, or the store's "no such pause") is never
   * based on a remembered view: the pause is read afresh and checked again.
   */
  async vote(request: VoteRequest): Promise<DecisionReply> {
    // The name is looked up while the vote is authorized: a cached one costs nothing.
    const name = displayNameWithin(this.deps.people, request.voter);
    const { pauseId, callId } = request;
    let view = this.deps.store.pauses.recentPause(pauseId);
    let remembered = view !== undefined;
    for (let tries = 1; ; tries++) {
      const allowed = await this.checkVote(request, view);
      if (allowed.kind === 'refused') {
        if (!remembered) return allowed;
        view = undefined;
        remembered = false;
        continue;
      }
      const { check } = allowed;
      const vote = withVoterName(onBehalf(request, check.onBehalfOf), await name);
      // Should this vote decide the pause, its resume is claimed in the same step.
      const resumeClaim = this.deps.resumes.leaseAhead(check.view);
      const now = this.deps.clock();
      const result = await this.deps.store.pauses.vote({
        ...vote,
        checkedGatesVersion: gatesVersion(check.view),
        ...(resumeClaim === undefined ? {} : { resumeClaim }),
        now,
      });
      if (result.kind === 'not_found' && remembered) {
        view = undefined;
        remembered = false;
        continue;
      }
      if (result.kind !== 'stale') return this.settle(vote, result, now, resumeClaim);
      if (tries >= CHECKED_VOTE_TRIES) {
        this.deps.log.warn('vote refused: the pause kept changing between its checks and votes', {
          pauseId,
          callId,
          tries,
        });
        return refuse({ kind: 'changed_meanwhile' });
      }
      this.deps.log.debug('vote checked again: a gate changed since its check', {
        pauseId,
        callId,
        tries,
      });
      view = result.view;
      remembered = false;
    }
  }

  /** May the voter cast this vote on the pause (`view`: as given, else as it is)? */
  private async checkVote(
    request: VoteRequest,
    view: PauseView | undefined,
  ): Promise<
    { kind: 'allowed'; check: AllowedCheck } | Extract<DecisionReply, { kind: 'refused' }>
  > {
    const { pauseId, callId, voter } = request;
    const check = await this.deps.checks.check(pauseId, [callId], voter, { view });
    if (check.kind === 'refused') return check;
    const noReason = reasonRefusal(request, check.policies);
    if (noReason !== undefined) return refuse(noReason);
    if (check.gates.some((gate) => gateKind(gate) === 'input') && !isAnswer(request)) {
      return refuse({ kind: 'answer_required' });
    }
    return { kind: 'allowed', check };
  }

  /**
   * Approve all / Reject all: every pending confirmation, or none when any of them is refused.
   * Input requests are left to their forms. The votes are one atomic store step, so a crash
   * never leaves part of the decision applied.
   */
  async voteAll(request: Omit<VoteRequest, 'callId' | 'payload'>): Promise<DecisionReply> {
    const name = displayNameWithin(this.deps.people, request.voter);
    const check = await this.deps.checks.check(request.pauseId, [], request.voter);
    if (check.kind === 'refused') return check;
    const noReason = reasonRefusal(request, check.policies);
    if (noReason !== undefined) return refuse(noReason);
    const confirmations = check.gates.filter((gate) => gateKind(gate) === 'confirmation');
    if (confirmations.length === 0) return refuse({ kind: 'answer_required' });
    const callIds = confirmations.map((gate) => gate.confirmationCallId);
    const named = withVoterName(onBehalf(request, check.onBehalfOf), await name);
    return this.applyAll({ ...named, callIds });
  }

  /**
   * A batch from the App Home: votes on exactly these gates of one pause, which the batch checked
   * one by one (`BatchVotes`), in one atomic store step, and says what became of each; undefined
   * when the pause is no longer on record.
   */
  async voteSelected(
    request: Omit<VoteRequest, 'callId' | 'payload'> & {
      callIds: readonly string[];
      batch: number;
    },
  ): Promise<AppliedVote[] | undefined> {
    const name = await displayNameWithin(this.deps.people, request.voter);
    return this.applyEach(withVoterName(request, name));
  }

  /** Votes on several gates of one pause in one atomic store step; the first refusal, if any. */
  private async applyAll(request: Omit<VoteAllInput, 'now'>): Promise<DecisionReply> {
    const applied = await this.applyEach(request);
    if (applied === undefined) return refuse({ kind: 'pause_gone' });
    return applied.find(({ reply }) => reply.kind === 'refused')?.reply ?? DONE;
  }

  /** Votes on several gates of one pause in one atomic store step; one card update for the lot. */
  private async applyEach(request: Omit<VoteAllInput, 'now'>): Promise<AppliedVote[] | undefined> {
    const now = this.deps.clock();
    const outcome = await this.deps.store.pauses.voteAll({ ...request, now });
    if (outcome.kind === 'not_found') return undefined;
    const applied = outcome.results.map(({ callId, result }) => ({
      callId,
      result,
      reply: this.replyTo({ ...request, callId }, result, now),
    }));
    const pauseDecided = outcome.results.some(
      ({ result }) =>
        (result.kind === 'decided' || result.kind === 'expired') && result.pauseDecided,
    );
    if (pauseDecided) this.deps.resumes.pauseDecided(request.pauseId);
    // One card update for the lot: Slack allows about one chat.update a second per message.
    this.deps.cards.pauseChanged(request.pauseId, pauseDecided ? {} : { view: outcome.view });
    return applied;
  }

  /**
   * A gate the policy decided (`decision: allow` or `deny`): no person to authorize, the rule is
   * the authority. The vote goes through the same atomic store step as a click, so a retried
   * stream or a second replica applies it once; `voter` is `policy:<rule>`.
   */
  async decideByPolicy(request: VoteRequest): Promise<DecisionReply> {
    return this.apply(request);
  }

  private async apply(request: VoteRequest): Promise<DecisionReply> {
    const now = this.deps.clock();
    const result = await this.deps.store.pauses.vote({ ...request, now });
    return this.settle(request, result, now);
  }

  /**
   * The voter's reply, the resume scheduled and the card updated, for a vote the store applied or
   * refused; `resumeClaim`: the lease the vote was given to claim the resume with.
   */
  private settle(
    request: VoteRequest,
    result: VoteResult,
    now: number,
    resumeClaim?: { owner: string },
  ): DecisionReply {
    const reply = this.replyTo(request, result, now);
    const pauseDecided =
      (result.kind === 'decided' || result.kind === 'expired') && result.pauseDecided;
    const claimed =
      result.kind === 'decided' && result.claimed !== undefined && resumeClaim !== undefined
        ? { owner: resumeClaim.owner, view: result.view, attempt: result.claimed.attempt, at: now }
        : undefined;
    // The resume first: the card update may wait on Slack, the agent must not.
    if (pauseDecided) this.deps.resumes.pauseDecided(request.pauseId, claimed && { claimed });
    // A decided pause's card is rendered from the store: the resume's claim, just made, shows.
    if (result.kind !== 'not_found') {
      this.deps.cards.pauseChanged(request.pauseId, pauseDecided ? {} : { view: result.view });
    }
    return reply;
  }

  /** What the voter hears about one gate's vote; logs and counts what it changed. */
  private replyTo(request: VoteRequest, result: VoteResult, now: number): DecisionReply {
    const { log } = this.deps;
    switch (result.kind) {
      case 'not_found':
        return refuse({ kind: 'not_found' });
      case 'stale':
        // Only a vote given the version it was checked at (`vote`) is ever answered stale.
        throw new Error(`a vote on pause ${request.pauseId} without a checked version was stale`);
      case 'already_voted': {
        const gate = gateOf(result.view, request.callId);
        return refuse({
          kind: 'already_voted',
          ...(gate === undefined ? {} : approvalProgress(gate)),
        });
      }
      case 'already_decided': {
        const gate = gateOf(result.view, request.callId);
        return refuse({
          kind: 'already_decided',
          state: result.state,
          decision: result.decision,
          ...(gate === undefined ? {} : questionOf(gate)),
        });
      }
      case 'counted':
        log.info('vote counted', {
          pauseId: request.pauseId,
          callId: request.callId,
          voter: request.voter,
          approvals: result.approvals,
          quorum: result.quorum,
        });
        return DONE;
      case 'decided':
        log.info('gate decided', {
          pauseId: request.pauseId,
          callId: request.callId,
          state: result.state,
          by: request.voter,
        });
        this.countClosed(result.view, request.callId, result.state, now);
        return DONE;
      case 'expired': {
        this.countClosed(result.view, request.callId, result.state, now);
        const gate = gateOf(result.view, request.callId);
        return refuse({
          kind: 'expired',
          ...(gate?.expiresAt === undefined ? {} : { expiresAt: gate.expiresAt }),
          ...(gate === undefined ? {} : { onExpiry: gate.policy.onExpiry }),
        });
      }
    }
  }

  private countClosed(view: PauseView, callId: string, state: GateState, now: number): void {
    if (state === 'pending') return;
    this.deps.metrics.gateClosed(closedGate(view, gateOf(view, callId), state, now));
  }
}

/** A rejection without a reason where a rule in force asks for one: which rule. */
export function reasonRefusal(
  request: { choice: 'approve' | 'reject'; reason?: string },
  policies: readonly GatePolicy[],
): Refusal | undefined {
  if (request.choice !== 'reject' || request.reason?.trim()) return undefined;
  const asking = policies.find((policy) => policy.reasonRequired);
  return asking === undefined ? undefined : { kind: 'reason_required', rule: asking.rule };
}

/** An input gate's vote: an approval carrying the answer its form produced. */
function isAnswer(request: VoteRequest): boolean {
  return request.choice === 'approve' && request.payload !== undefined;
}

function gateOf(view: PauseView, callId: string): GateRecord | undefined {
  return view.gates.find((gate) => gate.confirmationCallId === callId);
}

function approvalProgress(gate: GateRecord): { approvals: number; quorum: number } {
  const approvals = new Set(
    gate.votes.filter((vote) => vote.choice === 'approve').map((vote) => vote.voter),
  ).size;
  return { approvals, quorum: gate.policy.quorum };
}

/** The vote carries whom it decides for as the check found it, never as the caller said. */
function onBehalf<T extends { onBehalfOf?: string }>(
  request: T,
  onBehalfOf: string | undefined,
): Omit<T, 'onBehalfOf'> & { onBehalfOf?: string } {
  const { onBehalfOf: _said, ...rest } = request;
  return onBehalfOf === undefined ? rest : { ...rest, onBehalfOf };
}

function withVoterName<T extends { voterName?: string }>(request: T, name: string | undefined): T {
  return name === undefined ? request : { ...request, voterName: name };
}

/** Where the policy's (and grants') decisions are applied: the same atomic vote as a click. */
export type PolicyVotes = Pick<Decider, 'decideByPolicy'>;
