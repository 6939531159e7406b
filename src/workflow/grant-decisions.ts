import { randomBytes } from 'node:crypto';
import { gateKind } from '../adk/gate.js';
import type { Clock } from '../approvals/clock.js';
import {
  argsDigest,
  type Grant,
  type GrantScope,
  type GrantStore,
  mayRevoke,
  offerLifetimeMs,
  scopeOfOffer,
  sessionKeyOf,
} from '../approvals/grants.js';
import type { Refusal } from '../approvals/outcomes.js';
import type { Policy } from '../approvals/policy.js';
import { originOfPause, type PauseView } from '../approvals/records.js';
import type { ApprovalStore } from '../approvals/store.js';
import type { GrantEventInput } from '../approvals/store-roles/pause-reports.js';
import { errorMessage } from '../error-message.js';
import type { Log } from '../log.js';
import type { SlackMessage } from '../slack/codecs/block-kit.js';
import { renderGrantGiven, renderGrantRevoked } from '../slack/render/grant-lines.js';
import type { HomeUpdates } from './app-homes.js';
import type { ApprovalChecks } from './approval-checks.js';
import type { Decider, DecisionReply } from './decider.js';
import type { RunThreads, ThreadRef } from './run-thread.js';

export interface GiveGrantRequest {
  pauseId: string;
  callId: string;
  granter: string;
  scope: GrantScope;
}

/**
 * Scoped grants as people give and revoke them (issue 19). Giving one is an approval first:
 * the click goes through the same checks and atomic vote as Approve, and only an approval that
 * decided the gate in the granter's name becomes a grant. Revoking is for the granter, the
 * requester, a policy admin (or an API key allowed to); both are recorded in the granting
 * pause's trail and said in its thread.
 */
export class GrantDecisions {
  constructor(
    private readonly deps: {
      store: Pick<ApprovalStore, 'pauses' | 'reports'>;
      grants: GrantStore;
      checks: Pick<ApprovalChecks, 'check'>;
      decider: Pick<Decider, 'vote'>;
      policy: () => Policy;
      threads: RunThreads;
      clock: Clock;
      log: Log;
      /** The App Homes of the people a grant concerns follow it. */
      homes: Pick<HomeUpdates, 'peopleChanged'>;
    },
  ) {}

  /** `tell`: the granter hears privately when the approval stood but the grant could not be kept. */
  async give(
    request: GiveGrantRequest,
    tell: (message: SlackMessage) => Promise<void>,
  ): Promise<DecisionReply> {
    const { decider, store, log } = this.deps;
    const { pauseId, callId, granter, scope } = request;
    const check = await this.deps.checks.check(pauseId, [callId], granter);
    if (check.kind === 'refused') return check;
    // A grant is given in a person's own name: a hand-over lets Carol decide Bob's calls, not
    // give grants that would outlive it.
    if (check.onBehalfOf !== undefined) {
      return refuse({ kind: 'grant_on_behalf', onBehalfOf: check.onBehalfOf });
    }
    const [gate] = check.gates;
    const [current] = check.policies;
    const offer = current?.grants?.find((known) => scopeOfOffer(known) === scope);
    if (
      gate === undefined ||
      current === undefined ||
      gateKind(gate) !== 'confirmation' ||
      offer === undefined
    ) {
      return refuse({ kind: 'grant_not_offered' });
    }
    const reply = await decider.vote({ pauseId, callId, voter: granter, choice: 'approve' });
    if (reply.kind === 'refused') return reply;
    const view = await store.pauses.getPause(pauseId);
    const decided = view?.gates.find((g) => g.confirmationCallId === callId);
    // Only an approval that decided the gate in the granter's name stands for later calls.
    if (view === undefined || decided?.state !== 'approved' || decided.decision?.by !== granter) {
      return reply;
    }
    const now = this.deps.clock();
    const grant: Grant = {
      id: `gr_${randomBytes(6).toString('hex')}`,
      app: view.pause.adk.appName,
      tool: gate.originalCall.name,
      requester: view.pause.requester,
      origin: originOfPause(view.pause),
      rule: current.rule,
      scope,
      ...(typeof offer === 'number' ? { durationMs: offer } : {}),
      ...(scope === 'session' ? { sessionKey: sessionKeyOf(view.pause.adk) } : {}),
      ...(scope === 'exactArgs' ? { argsDigest: argsDigest(gate.originalCall.args) } : {}),
      granter,
      ...(decided.decision.byName === undefined ? {} : { granterName: decided.decision.byName }),
      pauseId,
      callId,
      ...(current.policyVersion === undefined ? {} : { policyVersion: current.policyVersion }),
      createdAt: now,
      expiresAt: now + offerLifetimeMs(offer),
      uses: 0,
    };
    const kept = await this.deps.grants.create(grant).then(
      () => this.audit(grant, { event: 'granted', actor: granter, at: now }),
      (error: unknown) => {
        log.error('could not keep a grant', { pauseId, error: errorMessage(error) });
        return false;
      },
    );
    if (!kept) {
      // A grant the audit does not show is not given: it is taken back (or was never saved).
      await this.deps.grants.revoke(grant.id, now).catch(() => undefined);
      await tell({
        text: ':warning: Approved, but the grant could not be saved: later calls will ask again.',
      });
      return reply;
    }
    log.info('grant given', { grant: grant.id, pauseId, scope, granter });
    void this.deps.threads.post(threadOf(view), renderGrantGiven(grant));
    this.refreshHomes(grant);
    return reply;
  }

  /** Revokes a grant for `by`: a Slack user who must be its granter, requester or an admin, unless `anyGrant` (an API key allowed to, an undo that takes back its own grants). */
  async revoke(id: string, by: string, { anyGrant = false }: { anyGrant?: boolean } = {}) {
    const now = this.deps.clock();
    const grant = await this.deps.grants.get(id, now);
    if (grant === undefined) return refuse({ kind: 'grant_gone' });
    if (!anyGrant && !mayRevoke(grant, by, this.deps.policy().admins ?? [])) {
      return refuse({ kind: 'not_grant_party' });
    }
    const revoked = await this.deps.grants.revoke(id, now);
    if (revoked === undefined) return refuse({ kind: 'grant_gone' });
    this.deps.log.info('grant revoked', { grant: id, by });
    await this.audit(revoked, { event: 'grant_revoked', actor: by, at: now, uses: revoked.uses });
    const view = await this.deps.store.pauses.getPause(revoked.pauseId).catch(() => undefined);
    if (view !== undefined)
      void this.deps.threads.post(threadOf(view), renderGrantRevoked(revoked, by));
    this.refreshHomes(revoked);
    return { kind: 'done' } as const;
  }

  /**
   * An approval taken back (Undo) takes back the grants it gave: they are revoked in the name of
   * who undid it. Never throws; a failure is logged (the grant then runs out on its own).
   */
  async revokeGivenOn(pauseId: string, by: string): Promise<void> {
    try {
      const given = (await this.listAll()).filter((grant) => grant.pauseId === pauseId);
      for (const grant of given) await this.revoke(grant.id, by, { anyGrant: true });
    } catch (error) {
      this.deps.log.error('could not revoke the grants of an undone approval', {
        pauseId,
        error: errorMessage(error),
      });
    }
  }

  /** A grant in force, by its id. */
  find(id: string): Promise<Grant | undefined> {
    return this.deps.grants.get(id, this.deps.clock());
  }

  /** Active grants a person gave or is covered by. */
  listFor(userId: string): Promise<Grant[]> {
    return this.deps.grants.list({ person: userId }, this.deps.clock());
  }

  /** Every active grant (a policy admin's Home, the API). */
  listAll(): Promise<Grant[]> {
    return this.deps.grants.list({}, this.deps.clock());
  }

  /** The trail entry; false (and logged) when it could not be written. */
  private async audit(
    grant: Grant,
    event: Pick<GrantEventInput, 'event' | 'actor' | 'at' | 'uses'>,
  ): Promise<boolean> {
    try {
      const recorded = await this.deps.store.reports.recordGrantEvent({
        pauseId: grant.pauseId,
        callId: grant.callId,
        grantId: grant.id,
        scope: grant.scope,
        expiresAt: grant.expiresAt,
        ...event,
      });
      if (recorded === 'recorded') return true;
      this.deps.log.error("the grant's pause is gone; its audit entry was not written", {
        grant: grant.id,
        event: event.event,
      });
      return false;
    } catch (error) {
      this.deps.log.error('could not record a grant in the audit trail', {
        grant: grant.id,
        event: event.event,
        error: errorMessage(error),
      });
      return false;
    }
  }

  private refreshHomes(grant: Grant): void {
    const people = [grant.granter];
    if (!grant.requester.startsWith('api:')) people.push(grant.requester);
    this.deps.homes.peopleChanged(people);
  }
}

/** The granting card's thread (the run's, when the card went elsewhere). */
function threadOf(view: PauseView): ThreadRef {
  const { card, runThread } = view.pause;
  if (runThread !== undefined) return runThread;
  const threadTs = card.threadTs ?? card.ts;
  return threadTs === undefined
    ? { channelId: card.channelId }
    : { channelId: card.channelId, threadTs };
}

function refuse(refusal: Refusal) {
  return { kind: 'refused', refusal } as const;
}
