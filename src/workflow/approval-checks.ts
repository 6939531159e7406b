import { gateKind } from '../adk/gate.js';
import type { Clock } from '../approvals/clock.js';
import {
  actingFor,
  DEFAULT_DELEGATION_MAX_HOPS,
  type Delegation,
  type DelegationStore,
} from '../approvals/delegations.js';
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
import type { GatePolicy, GateRecord, PauseView } from '../approvals/records.js';
import { initiatorOf } from '../approvals/store/audit-chain.js';
import type { PauseStore } from '../approvals/store-roles/pauses.js';
import { errorMessage } from '../error-message.js';
import type { Log } from '../log.js';
import type { RunOrigins } from './run-origins.js';

/** An approval the re-check refused: whose, why (no names, no arguments), which gates. */
export interface SentBack {
  voter: string;
  why: string;
  callIds: string[];
}

export type VoterCheck =
  | {
      kind: 'allowed';
      view: PauseView;
      gates: GateRecord[];
      policies: GatePolicy[];
      /**
       * Whom the voter decides for, under a hand-over while away: a gate the voter may not decide
       * in their own name, but the delegator may. Absent: their own standing throughout.
       */
      onBehalfOf?: string;
    }
  | { kind: 'refused'; refusal: Refusal };

/** A check that allowed the vote. */
export type AllowedCheck = Extract<VoterCheck, { kind: 'allowed' }>;

/** The Retry button's check: nothing, or a private message saying why not. */
export type RetryCheck = { kind: 'done' } | { kind: 'refused'; refusal: Refusal };

const refuse = (refusal: Refusal) => ({ kind: 'refused', refusal }) as const;

/**
 * Who may decide what, under the policy as it is now: before a vote and before a modal opens,
 * for the App Home's list, for a grant's granter, for the Retry button, and once more at the
 * moment of use, just before a resume is sent. Reads the pause, changes nothing.
 */
export class ApprovalChecks {
  constructor(
    private readonly deps: {
      store: { pauses: Pick<PauseStore, 'getPause'> };
      directory: ApproverDirectory;
      policy: () => Policy;
      clock: Clock;
      log: Log;
      /** Scoped grants: a gate a grant decided is re-checked against it. Absent: no grants. */
      grants?: Pick<GrantStore, 'get'>;
      /** Where a run started over the API or by an alert came from (`source`, `labels`). */
      origins?: Pick<RunOrigins, 'originOfPause'>;
      /** Hand-overs while away (see `delegations.ts`). Absent: nobody decides for another. */
      delegations?: Pick<DelegationStore, 'list'>;
      /** How far a hand-over reaches (`DELEGATION_MAX_HOPS`). Default 1. */
      delegationMaxHops?: number;
    },
  ) {}

  /**
   * May `voter` decide these gates (every pending gate when `callIds` is empty)? Asked before a
   * vote and before a modal opens, so that nobody fills in a form only to be refused. `listing`:
   * asked to list what a person may decide (the App Home), not for a click: refusals are not
   * logged as refused votes. `view`: the pause to check against, as the caller has it (read when
   * absent); a vote made on it must carry its version (`VoteInput.checkedGatesVersion`).
   */
  async check(
    pauseId: string,
    callIds: readonly string[],
    voter: string,
    { listing = false, view: given }: { listing?: boolean; view?: PauseView | undefined } = {},
  ): Promise<VoterCheck> {
    const view = given ?? (await this.deps.store.pauses.getPause(pauseId));
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
    // The hand-overs are read only for a voter who is not an approver themselves, once.
    let asked: Promise<string[]> | undefined;
    const delegators = () => {
      asked ??= this.delegatorsOf(voter);
      return asked;
    };
    let onBehalfOf: string | undefined;
    for (const gate of gates) {
      const policy = await this.currentPolicy(view, gate);
      // Their own standing first; a hand-over only where it is not enough.
      const standing = await this.standing(view, gate, policy, voter, delegators, onBehalfOf);
      if (standing.kind === 'refused') {
        if (!listing) this.logRefused(view, gate, voter, standing.refusal);
        return standing;
      }
      onBehalfOf ??= standing.onBehalfOf;
      policies.push(policy);
    }
    return {
      kind: 'allowed',
      view,
      gates,
      policies,
      ...(onBehalfOf === undefined ? {} : { onBehalfOf }),
    };
  }

  /**
   * May `voter` decide `gate`: in their own name, or else for one of `delegators` (who handed
   * over to them, nearest first; `preferred` first; asked only when their own name is not
   * enough), under the rule in force? A hand-over gives the delegate the delegator's standing
   * for the rule, and nothing more: never on a rule with `delegation: false`, never for the
   * delegate's own request (the requester check comes first, in the delegate's name), never for
   * a delegator who is the requester, and never a second vote for a delegator whose vote (their
   * own, or someone's for them) is already in.
   */
  private async standing(
    view: PauseView,
    gate: GateRecord,
    policy: GatePolicy,
    voter: string,
    delegators: () => Promise<readonly string[]>,
    preferred?: string,
  ): Promise<{ kind: 'allowed'; onBehalfOf?: string } | { kind: 'refused'; refusal: Refusal }> {
    const own = await this.authorizeOne(view, gate, policy, voter, true);
    if (own === undefined) {
      // Someone already voted in this person's name while they were away: not twice.
      if (gate.votes.some((vote) => vote.onBehalfOf === voter)) {
        return refuse({ kind: 'already_voted' });
      }
      return { kind: 'allowed' };
    }
    if (own.kind !== 'not_approver' || policy.delegation === false) return refuse(own);
    const handedOver = await delegators();
    if (handedOver.length === 0) return refuse(own);
    const ordered =
      preferred === undefined
        ? handedOver
        : [preferred, ...handedOver.filter((d) => d !== preferred)];
    let refusal: Refusal = own;
    for (const delegator of ordered) {
      if (gate.votes.some((v) => v.voter === delegator || v.onBehalfOf === delegator)) {
        refusal = { kind: 'already_voted' };
        continue;
      }
      const theirs = await this.authorizeOne(view, gate, policy, delegator, true);
      if (theirs === undefined) return { kind: 'allowed', onBehalfOf: delegator };
    }
    return refuse(refusal);
  }

  /** Whose approvals `voter` may give now under hand-overs; none when they cannot be read. */
  private async delegatorsOf(voter: string): Promise<string[]> {
    const list = await this.delegationsNow();
    return actingFor(
      voter,
      list,
      this.deps.clock(),
      this.deps.delegationMaxHops ?? DEFAULT_DELEGATION_MAX_HOPS,
    );
  }

  /** The hand-overs in force; a failed read is logged and counts as none (fail closed). */
  private async delegationsNow(): Promise<Delegation[]> {
    const { delegations } = this.deps;
    if (delegations === undefined) return [];
    try {
      return await delegations.list(this.deps.clock());
    } catch (error) {
      this.deps.log.warn('could not read hand-overs; deciding without them', {
        error: errorMessage(error),
      });
      return [];
    }
  }

  private logRefused(view: PauseView, gate: GateRecord, voter: string, refusal: Refusal): void {
    this.deps.log.info('vote refused', {
      pauseId: view.pause.id,
      callId: gate.confirmationCallId,
      voter,
      reason: refusal.kind,
    });
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
      const policy = await this.currentPolicy(view, gate);
      for (const vote of gate.votes) {
        if (vote.choice !== 'approve') continue;
        const earlier = refused.get(vote.voter);
        if (earlier !== undefined) {
          earlier.callIds.push(gate.confirmationCallId);
          continue;
        }
        const refusal = await this.recheckVote(view, gate, policy, vote.voter, vote.onBehalfOf);
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
   * A vote given for a delegator holds while the voter may still decide the gate: in their own
   * name, or for that delegator under a hand-over still in force (one that ended sends it back).
   */
  private async recheckVote(
    view: PauseView,
    gate: GateRecord,
    policy: GatePolicy,
    voter: string,
    onBehalfOf: string | undefined,
  ): Promise<Refusal | undefined> {
    if (onBehalfOf === undefined) return this.authorizeOne(view, gate, policy, voter, true);
    const delegators = async () => (await this.delegatorsOf(voter)).filter((d) => d === onBehalfOf);
    // Their own vote (now in the gate's votes) is not a second one for the delegator.
    const others = { ...gate, votes: gate.votes.filter((v) => v.voter !== voter) };
    const standing = await this.standing(view, others, policy, voter, delegators);
    return standing.kind === 'refused' ? standing.refusal : undefined;
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

  private async granterRefusal(view: PauseView, gate: GateRecord, granter: string) {
    return this.authorizeOne(view, gate, await this.currentPolicy(view, gate), granter, true);
  }

  /** The Retry button: the requester, or anyone who may approve one of the gates. */
  async checkRetry(pauseId: string, user: string): Promise<RetryCheck> {
    const view = await this.deps.store.pauses.getPause(pauseId);
    if (view === undefined) return refuse({ kind: 'pause_gone' });
    if (user === view.pause.requester) return { kind: 'done' };
    let refusal: Refusal = { kind: 'not_found' };
    for (const gate of view.gates) {
      const outcome = await this.authorizeOne(
        view,
        gate,
        await this.currentPolicy(view, gate),
        user,
      );
      if (outcome === undefined) return { kind: 'done' };
      refusal = outcome;
    }
    return refuse(refusal);
  }

  /** Authorization follows the policy as it is now; quorum and expiry stay as recorded. */
  private async currentPolicy(view: PauseView, gate: GateRecord): Promise<GatePolicy> {
    const origin = await this.deps.origins?.originOfPause(view.pause);
    return resolveGatePolicy(this.deps.policy(), {
      app: view.pause.adk.appName,
      tool: gate.originalCall.name,
      kind: gateKind(gate),
      args: gate.originalCall.args,
      ...(gate.payloadTemplate === undefined ? {} : { payload: gate.payloadTemplate }),
      requester: { id: view.pause.requester },
      channel: view.pause.card.channelId,
      source: origin?.source ?? (view.pause.external === undefined ? 'slack' : 'api'),
      ...(origin === undefined ? {} : { labels: origin.labels }),
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
export function questionOf(gate: GateRecord): { question?: true } {
  return gateKind(gate) === 'input' ? { question: true } : {};
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
