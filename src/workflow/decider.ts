import { gateKind } from '../adk/gate.js';
import type { Clock } from '../approvals/clock.js';
import { grantIdOf } from '../approvals/grant-actors.js';
import type { GrantStore } from '../approvals/grants.js';
import type { Refusal } from '../approvals/outcomes.js';
import {
  type ApproverDirectory,
  ApproverDirectoryError,
  authorize,
  isEscalated,
  type Policy,
  resolveGatePolicy,
} from '../approvals/policy.js';
import type { GatePolicy, GateRecord, GateState, PauseView } from '../approvals/records.js';
import { initiatorOf } from '../approvals/store/audit-chain.js';
import type { ConfirmationStore, VoteAllInput, VoteInput, VoteResult } from '../approvals/store.js';
import type { Log } from '../log.js';
import type { Metrics } from '../metrics.js';
import { displayNameWithin, type PersonNames } from '../slack/transport/person-names.js';
import { closedGate } from './closed-gates.js';

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

/** An approval the re-check refused: whose, why (no names, no arguments), which gates. */
export interface SentBack {
  voter: string;
  why: string;
  callIds: string[];
}

export type VoterCheck =
  | { kind: 'allowed'; view: PauseView; gates: GateRecord[]; policies: GatePolicy[] }
  | { kind: 'refused'; refusal: Refusal };

const DONE: DecisionReply = { kind: 'done' };
const refuse = (refusal: Refusal) => ({ kind: 'refused', refusal }) as const;

/**
 * Step 5 of the flow: checks the voter against the current policy, applies the vote with one
 * atomic store call, schedules the resume, then asks for the card to be updated (off the
 * decision's critical path: Slack being slow delays no decision and no resume). Every refusal
 * says why.
 */
export class Decider {
  constructor(
    private readonly deps: {
      store: ConfirmationStore;
      /** Asks for the card to be re-rendered; never waits on Slack. */
      /** `view`: the pause as the change returned it, rendered without reading it again. */
      refreshCard: (pauseId: string, toolOutcomes?: undefined, view?: PauseView) => void;
      directory: ApproverDirectory;
      policy: () => Policy;
      clock: Clock;
      log: Log;
      metrics: Metrics;
      /** Called once a vote or an expiry has decided the last gate of a pause. */
      onPauseDecided: (pauseId: string) => void;
      /** Deciders' display names, kept in their decisions for the audit. Absent: ids only. */
      people?: PersonNames;
      /** Scoped grants: a gate a grant decided is re-checked against it. Absent: no grants. */
      grants?: Pick<GrantStore, 'get'>;
    },
  ) {}

  /**
   * May `voter` decide these gates (every pending gate when `callIds` is empty)? Asked before a
   * vote and before a modal opens, so that nobody fills in a form only to be refused. `listing`:
   * asked to list what a person may decide (the App Home), not for a click: refusals are not
   * logged as refused votes.
   */
  async check(
    pauseId: string,
    callIds: readonly string[],
    voter: string,
    { listing = false }: { listing?: boolean } = {},
  ): Promise<VoterCheck> {
    const view = await this.deps.store.getPause(pauseId);
    if (view === undefined) return refuse({ kind: 'pause_gone' });
    const gates =
      callIds.length === 0
        ? view.gates.filter((gate) => gate.state === 'pending')
        : view.gates.filter((gate) => callIds.includes(gate.confirmationCallId));
    if (gates.length === 0 || gates.length < callIds.length) return refuse({ kind: 'not_found' });
    const decided = gates.find((gate) => gate.state !== 'pending');
    if (decided !== undefined) {
      return refuse(
        decided.decision === undefined
          ? { kind: 'not_found' }
          : {
              kind: 'already_decided',
              state: decided.state,
              decision: decided.decision,
              ...questionOf(decided),
            },
      );
    }

    const policies: GatePolicy[] = [];
    for (const gate of gates) {
      const policy = this.currentPolicy(view, gate);
      const refusal = await this.authorizeOne(view, gate, policy, voter, listing);
      if (refusal !== undefined) return refuse(refusal);
      policies.push(policy);
    }
    return { kind: 'allowed', view, gates, policies };
  }

  /**
   * The re-check at the moment of use, just before a resume is sent: every person whose approval
   * decided a gate is asked again whether they may approve it under the policy in force (an
   * approver removed from the rule or their group, a requester no longer allowed to approve
   * their own). The first approval that no longer holds is returned with the gates it decided;
   * undefined when all hold. Rejections are never re-checked (sending one is the safe side), nor
   * decisions of the policy, whose rule is the authority. The arguments need no re-check: the
   * resume is built from the gate's record, the very call the card showed.
   */
  async recheck(view: PauseView): Promise<SentBack | undefined> {
    const refused = new Map<string, { refusal: Refusal; callIds: string[] }>();
    for (const gate of view.gates) {
      if (gate.state !== 'approved' || gate.decision === undefined) continue;
      const { by } = gate.decision;
      const grantId = grantIdOf(by);
      if (grantId !== undefined) {
        const earlier = refused.get(by);
        if (earlier !== undefined) earlier.callIds.push(gate.confirmationCallId);
        else {
          const refusal = await this.grantRefusal(view, gate, grantId);
          if (refusal !== undefined)
            refused.set(by, { refusal, callIds: [gate.confirmationCallId] });
        }
        continue;
      }
      if (initiatorOf(by) !== 'person') continue;
      const policy = this.currentPolicy(view, gate);
      for (const vote of gate.votes) {
        if (vote.choice !== 'approve') continue;
        const earlier = refused.get(vote.voter);
        if (earlier !== undefined) {
          earlier.callIds.push(gate.confirmationCallId);
          continue;
        }
        const refusal = await this.authorizeOne(view, gate, policy, vote.voter, true);
        if (refusal !== undefined) {
          refused.set(vote.voter, { refusal, callIds: [gate.confirmationCallId] });
        }
      }
    }
    const [first] = refused;
    if (first === undefined) return undefined;
    const [voter, { refusal, callIds }] = first;
    const why = recheckReason(refusal);
    this.deps.log.warn('an approval no longer holds at the moment of use; nothing is sent', {
      pauseId: view.pause.id,
      voter,
      reason: refusal.kind,
    });
    return { voter, why, callIds };
  }

  /**
   * A grant's decision holds while the grant is in force (not revoked, not expired) and its
   * granter may still approve the call under the policy in force.
   */
  private async grantRefusal(
    view: PauseView,
    gate: GateRecord,
    grantId: string,
  ): Promise<Refusal | undefined> {
    const grant = await this.deps.grants?.get(grantId, this.deps.clock());
    if (grant === undefined) return { kind: 'grant_gone' };
    return this.granterRefusal(view, gate, grant.granter);
  }

  /**
   * May a grant's granter still approve this gate under the policy in force? Asked before a
   * grant decides a call, so that a granter removed from the approvers covers nothing.
   */
  async granterMayApprove(view: PauseView, callId: string, granter: string): Promise<boolean> {
    const gate = view.gates.find((g) => g.confirmationCallId === callId);
    return gate !== undefined && (await this.granterRefusal(view, gate, granter)) === undefined;
  }

  private granterRefusal(view: PauseView, gate: GateRecord, granter: string) {
    return this.authorizeOne(view, gate, this.currentPolicy(view, gate), granter, true);
  }

  /** The Retry button: the requester, or anyone who may approve one of the gates. */
  async checkRetry(pauseId: string, user: string): Promise<DecisionReply> {
    const view = await this.deps.store.getPause(pauseId);
    if (view === undefined) return refuse({ kind: 'pause_gone' });
    if (user === view.pause.requester) return DONE;
    let refusal: Refusal = { kind: 'not_found' };
    for (const gate of view.gates) {
      const outcome = await this.authorizeOne(view, gate, this.currentPolicy(view, gate), user);
      if (outcome === undefined) return DONE;
      refusal = outcome;
    }
    return refuse(refusal);
  }

  async vote(request: VoteRequest): Promise<DecisionReply> {
    // The name is looked up while the vote is authorized: a cached one costs nothing.
    const name = displayNameWithin(this.deps.people, request.voter);
    const check = await this.check(request.pauseId, [request.callId], request.voter);
    if (check.kind === 'refused') return check;
    const noReason = reasonRefusal(request, check.policies);
    if (noReason !== undefined) return refuse(noReason);
    if (check.gates.some((gate) => gateKind(gate) === 'input') && !isAnswer(request)) {
      return refuse({ kind: 'answer_required' });
    }
    return this.apply(withVoterName(request, await name));
  }

  /**
   * Approve all / Reject all: every pending confirmation, or none when any of them is refused.
   * Input requests are left to their forms. The votes are one atomic store step, so a crash
   * never leaves part of the decision applied.
   */
  async voteAll(request: Omit<VoteRequest, 'callId' | 'payload'>): Promise<DecisionReply> {
    const name = displayNameWithin(this.deps.people, request.voter);
    const check = await this.check(request.pauseId, [], request.voter);
    if (check.kind === 'refused') return check;
    const noReason = reasonRefusal(request, check.policies);
    if (noReason !== undefined) return refuse(noReason);
    const confirmations = check.gates.filter((gate) => gateKind(gate) === 'confirmation');
    if (confirmations.length === 0) return refuse({ kind: 'answer_required' });
    const callIds = confirmations.map((gate) => gate.confirmationCallId);
    return this.applyAll({ ...withVoterName(request, await name), callIds });
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
    const outcome = await this.deps.store.voteAll({ ...request, now });
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
    if (pauseDecided) this.deps.onPauseDecided(request.pauseId);
    // One card update for the lot: Slack allows about one chat.update a second per message.
    this.deps.refreshCard(request.pauseId, undefined, pauseDecided ? undefined : outcome.view);
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
    const result = await this.deps.store.vote({ ...request, now });
    const reply = this.replyTo(request, result, now);
    const pauseDecided =
      (result.kind === 'decided' || result.kind === 'expired') && result.pauseDecided;
    // The resume first: the card update may wait on Slack, the agent must not.
    if (pauseDecided) this.deps.onPauseDecided(request.pauseId);
    // A decided pause's card is rendered from the store: the resume's claim, just made, shows.
    if (result.kind !== 'not_found') {
      this.deps.refreshCard(request.pauseId, undefined, pauseDecided ? undefined : result.view);
    }
    return reply;
  }

  /** What the voter hears about one gate's vote; logs and counts what it changed. */
  private replyTo(request: VoteRequest, result: VoteResult, now: number): DecisionReply {
    const { log } = this.deps;
    switch (result.kind) {
      case 'not_found':
        return refuse({ kind: 'not_found' });
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

  /** Authorization follows the policy as it is now; quorum and expiry stay as recorded. */
  private currentPolicy(view: PauseView, gate: GateRecord): GatePolicy {
    return resolveGatePolicy(this.deps.policy(), {
      app: view.pause.adk.appName,
      tool: gate.originalCall.name,
      kind: gateKind(gate),
      args: gate.originalCall.args,
      ...(gate.payloadTemplate === undefined ? {} : { payload: gate.payloadTemplate }),
      requester: { id: view.pause.requester },
      channel: view.pause.card.channelId,
      source: view.pause.external === undefined ? 'slack' : 'api',
      now: new Date(this.deps.clock()),
    }).policy;
  }

  /** Undefined when the voter may decide the gate; otherwise why not. */
  private async authorizeOne(
    view: PauseView,
    gate: GateRecord,
    policy: GatePolicy,
    voter: string,
    listing = false,
  ): Promise<Refusal | undefined> {
    let refusal: Refusal;
    try {
      const verdict = await authorize(
        {
          voter,
          requester: view.pause.requester,
          policy,
          cardChannelId: view.pause.card.channelId,
          escalated: isEscalated(policy, gate.createdAt, this.deps.clock()),
        },
        this.deps.directory,
      );
      if (verdict.ok) return undefined;
      switch (verdict.reason) {
        case 'nobody_may_approve':
          refusal = { kind: 'nobody_may_approve', rule: policy.rule, ...questionOf(gate) };
          break;
        case 'self_approval':
          refusal = { kind: 'self_approval', ...questionOf(gate) };
          break;
        case 'not_approver':
          refusal = { kind: 'not_approver', approvers: verdict.approvers, ...questionOf(gate) };
          break;
      }
    } catch (error) {
      // Slack could not say who may approve: fail closed.
      if (!(error instanceof ApproverDirectoryError)) throw error;
      this.deps.log.warn('could not resolve approvers; refusing', { error: error.message });
      refusal = { kind: 'permission_check_failed' };
    }
    if (listing) return refusal;
    this.deps.log.info('vote refused', {
      pauseId: view.pause.id,
      callId: gate.confirmationCallId,
      voter,
      reason: refusal.kind,
    });
    return refusal;
  }
}

/** Refusals about an input request say "answer", not "approve". */
function questionOf(gate: GateRecord): { question?: true } {
  return gateKind(gate) === 'input' ? { question: true } : {};
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

function withVoterName<T extends { voterName?: string }>(request: T, name: string | undefined): T {
  return name === undefined ? request : { ...request, voterName: name };
}

/** The re-check's refusal in the words of the card, the thread and the audit. */
function recheckReason(refusal: Refusal): string {
  switch (refusal.kind) {
    case 'not_approver':
      return 'no longer among the approvers under the policy in force';
    case 'self_approval':
      return 'the policy in force does not let the requester approve';
    case 'nobody_may_approve':
      return `the policy in force lets nobody approve this (rule ${refusal.rule})`;
    case 'permission_check_failed':
      return 'Slack could not confirm who may approve';
    case 'grant_gone':
      return 'the grant that approved it was revoked (or expired) before the call ran';
    default:
      return refusal.kind;
  }
}
