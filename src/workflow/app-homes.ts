import type { Clock } from '../approvals/clock.js';
import {
  actingFor,
  DEFAULT_DELEGATION_MAX_HOPS,
  type DelegationStore,
} from '../approvals/delegations.js';
import type { Grant, GrantStore } from '../approvals/grants.js';
import { type HomeViewers, MemoryHomeViewers } from '../approvals/home-viewers.js';
import type { ApproverDirectory, Policy } from '../approvals/policy.js';
import type { GatePolicy, PauseView } from '../approvals/records.js';
import type { ApprovalStore } from '../approvals/store.js';
import type { GateRef, PendingIndex } from '../approvals/store-roles/pending-queries.js';
import { errorMessage } from '../error-message.js';
import type { Log } from '../log.js';
import type { HomeDelegations } from '../slack/render/delegation-view.js';
import {
  HOME_LIMITS,
  type HomeDecision,
  type HomeGate,
  type RecentEvent,
  renderHomeView,
} from '../slack/render/home-view.js';
import type { SlackPort } from '../slack/transport/port.js';
import type { ApprovalChecks } from './approval-checks.js';
import { approverPeople } from './approver-people.js';
import { BatchedHomeViewers } from './batched-home-viewers.js';
import type { CriticalPath } from './critical-path.js';
import { KeyedWorkQueue } from './work-queue.js';

/** Candidates read per index before the policy check: bounds one Home's work. */
const CANDIDATES = 100;
/**
 * Entries read from a person's recent decisions: some may name pauses gone by retention, and a
 * vote's gate may be listed already.
 */
const RECENT_READ = 30;

export interface AppHomesDeps {
  store: Pick<ApprovalStore, 'pauses' | 'pending' | 'audit'>;
  slack: Pick<SlackPort, 'publishHome' | 'getPermalink'>;
  directory: ApproverDirectory;
  policy: () => Policy;
  /** The check a click gets: the Home lists exactly what a click would be allowed to decide. */
  checks: Pick<ApprovalChecks, 'check'>;
  clock: Clock;
  log: Log;
  /** Who looked at their Home lately: only their Homes follow changes. Default: this process's memory. */
  viewers?: HomeViewers;
  /** The grants a Home lists (the person's; every one for a policy admin). Absent: none. */
  grants?: Pick<GrantStore, 'list'>;
  /** Waited for before working out whose Homes a change concerns. Absent: nothing is. */
  criticalPath?: Pick<CriticalPath, 'quiet'>;
  /**
   * Hand-overs while away: the Home offers one, shows the person's and those made to them, and
   * lists what waits for the people they stand in for. Absent: the Home offers none.
   */
  delegations?: Pick<DelegationStore, 'get' | 'list'>;
  /** How far a hand-over reaches (`DELEGATION_MAX_HOPS`). Default 1. */
  delegationMaxHops?: number;
}

/**
 * The port through which whatever changes a pause, or a person's grants, has the Homes of the
 * people it concerns follow. Never waits on Slack.
 */
export interface HomeUpdates {
  /** `view`: the pause as the change returned it, when the caller has it. */
  pauseChanged(pauseId: string, view?: PauseView): void;
  peopleChanged(userIds: readonly string[]): void;
}

/** Whose Homes a pause concerns: its requester and its gates' approvers (groups listed when used). */
interface Audience {
  requester: string;
  approvers: GatePolicy['approvers'];
}

/** Pauses whose audience is remembered; past it, the memory starts over (a read each, again). */
const AUDIENCES_KEPT = 10_000;

/**
 * The App Home of each person: published when they open it and when a pause that concerns them
 * changes (recorded, decided, expired, withdrawn). Publishing is queued per person and coalesced
 * (a burst of changes is one `views.publish` of the latest state); nothing here is on a
 * decision's or a resume's path, and a Slack failure is logged and left to the next change.
 */
export class AppHomes implements HomeUpdates {
  /** Publishes, per person. */
  private readonly queue: KeyedWorkQueue;
  /** Changes, per pause or people: whose Homes they concern, then a publish for each. */
  private readonly changes: KeyedWorkQueue;
  private readonly queued = new Set<string>();
  private readonly changedPauses = new Set<string>();
  /** A word for the person's next Home (a refused click), shown once. */
  private readonly notices = new Map<string, string>();

  private readonly viewers: HomeViewers;
  /**
   * Whose Homes a pause concerns, from what never changes once it is recorded (its requester and
   * its gates' policies): a pause changes several times per decision, and each change read it.
   */
  private readonly audiences = new Map<string, Audience>();

  constructor(private readonly deps: AppHomesDeps) {
    const { criticalPath } = deps;
    this.queue = new KeyedWorkQueue(deps.log, { concurrency: 4 });
    this.changes = new KeyedWorkQueue(deps.log, {
      concurrency: 4,
      ...(criticalPath === undefined ? {} : { admit: () => criticalPath.quiet() }),
    });
    this.viewers = new BatchedHomeViewers(deps.viewers ?? new MemoryHomeViewers());
  }

  /** `app_home_opened`: the person looks at their Home; draw it, and keep it up to date a while. */
  opened(userId: string): void {
    this.refresh(userId);
    this.viewers.opened(userId, this.deps.clock()).catch((error: unknown) => {
      this.deps.log.warn('could not note an opened Home', { error: errorMessage(error) });
    });
  }

  /** `app_home_opened`, or a click on the Home: publish this person's Home soon. */
  refresh(userId: string, notice?: string): void {
    if (notice !== undefined) this.notices.set(userId, notice);
    if (this.queued.has(userId)) return;
    this.queued.add(userId);
    void this.queue.enqueue(`home:${userId}`, 'home refresh', async () => {
      this.queued.delete(userId);
      const note = this.notices.get(userId);
      this.notices.delete(userId);
      await this.publish(userId, note);
    });
  }

  /**
   * A pause changed: refresh the Homes of its requester, its user approvers and its user-group
   * members (named people, and groups Slack lists for us) who looked at their Home lately; the
   * others see it when they next open their Home, as members of a channel that may approve do
   * (a channel can have thousands of members). `view`: the pause as the change returned it, when
   * the caller has it: whose Homes it concerns is then known without reading it.
   */
  pauseChanged(pauseId: string, view?: PauseView): void {
    if (view !== undefined && !this.audiences.has(pauseId)) this.remember(pauseId, view);
    if (this.changedPauses.has(pauseId)) return;
    this.changedPauses.add(pauseId);
    void this.changes.enqueue(`pause:${pauseId}`, 'home audience', async () => {
      this.changedPauses.delete(pauseId);
      const audience = await this.audienceOf(pauseId);
      if (audience === undefined) return;
      for (const userId of await this.lookingAmong(await this.people(audience))) {
        this.refresh(userId);
      }
    });
  }

  /** Something of theirs changed (a grant): refresh the Homes of those who look at theirs. */
  peopleChanged(userIds: readonly string[]): void {
    void this.changes.enqueue(`people:${userIds.join(',')}`, 'home audience', async () => {
      for (const userId of await this.lookingAmong(new Set(userIds))) this.refresh(userId);
    });
  }

  async drain(timeoutMs: number): Promise<boolean> {
    // Changes first (they ask for publishes), both within the one timeout.
    const deadline = Date.now() + timeoutMs;
    const changes = await this.changes.drain(timeoutMs);
    return (await this.queue.drain(Math.max(0, deadline - Date.now()))) && changes;
  }

  /** Those who looked lately; everyone when that cannot be read (a Home drawn too often is harmless). */
  private async lookingAmong(people: Set<string>): Promise<Set<string>> {
    try {
      return await this.viewers.watching([...people], this.deps.clock());
    } catch (error) {
      this.deps.log.warn('could not read who looks at their Home; refreshing all', {
        error: errorMessage(error),
      });
      return people;
    }
  }

  private async audienceOf(pauseId: string): Promise<Audience | undefined> {
    const known = this.audiences.get(pauseId);
    if (known !== undefined) return known;
    const view = await this.deps.store.pauses.getPause(pauseId);
    return view === undefined ? undefined : this.remember(pauseId, view);
  }

  /** Who a pause concerns never changes: its requester and its gates' approvers. */
  private remember(pauseId: string, view: PauseView): Audience {
    const audience: Audience = {
      requester: view.pause.requester,
      approvers: view.gates.flatMap((gate) => [
        ...gate.policy.approvers,
        ...(gate.policy.escalateTo ?? []),
      ]),
    };
    if (this.audiences.size >= AUDIENCES_KEPT) this.audiences.clear();
    this.audiences.set(pauseId, audience);
    return audience;
  }

  /** The people an audience names now: user groups are listed anew (the directory caches them). */
  private async people({ requester, approvers }: Audience): Promise<Set<string>> {
    const people = await approverPeople(approvers, this.deps, 'for its Homes');
    people.add(requester);
    return people;
  }

  private async publish(userId: string, notice: string | undefined): Promise<void> {
    const [waiting, requests, recent, grants, delegations] = await Promise.all([
      this.waitingFor(userId),
      this.requestsOf(userId),
      this.recentFor(userId),
      this.grantsOf(userId),
      this.delegationsOf(userId),
    ]);
    const view = renderHomeView({
      waiting: waiting.slice(0, HOME_LIMITS.waiting),
      waitingMore: Math.max(0, waiting.length - HOME_LIMITS.waiting),
      requests: requests.slice(0, HOME_LIMITS.requests),
      requestsMore: Math.max(0, requests.length - HOME_LIMITS.requests),
      recent,
      grants,
      ...(delegations === undefined ? {} : { delegations }),
      ...(notice === undefined ? {} : { notice }),
      now: this.deps.clock(),
    });
    try {
      await this.deps.slack.publishHome({ userId, view });
    } catch (error) {
      this.deps.log.warn('could not publish a Home', { user: userId, error: errorMessage(error) });
    }
  }

  /** What waits for this person's decision now (as their Home lists it): for a batch. */
  decidableBy(userId: string): Promise<HomeGate[]> {
    return this.waitingFor(userId);
  }

  /** Pending gates the person may decide now, by the same check a click gets. */
  private async waitingFor(userId: string): Promise<HomeGate[]> {
    const indexes: PendingIndex[] = [{ kind: 'user', id: userId }, { kind: 'channel_members' }];
    for (const group of this.policyGroups()) {
      try {
        const members = await this.deps.directory.usergroupMembers(group);
        if (members.includes(userId)) indexes.push({ kind: 'usergroup', id: group });
      } catch (error) {
        this.deps.log.warn('could not list a group for a Home', {
          group,
          error: errorMessage(error),
        });
      }
    }
    // What waits for those who handed over to this person: their user index (the check decides).
    for (const delegator of await this.standingInFor(userId)) {
      indexes.push({ kind: 'user', id: delegator });
    }
    const candidates = await this.candidates(indexes);
    const found: HomeGate[] = [];
    for (const ref of candidates) {
      const check = await this.deps.checks.check(ref.pauseId, [ref.callId], userId, {
        listing: true,
      });
      if (check.kind !== 'allowed') continue;
      const [gate] = check.gates;
      const [policy] = check.policies;
      if (gate === undefined) continue;
      const item = await this.homeGate(check.view, gate.confirmationCallId);
      found.push({
        ...item,
        ...(policy === undefined ? {} : { policy }),
        ...(check.onBehalfOf === undefined ? {} : { onBehalfOf: check.onBehalfOf }),
      });
    }
    return found;
  }

  private async requestsOf(userId: string): Promise<HomeGate[]> {
    const refs = await this.deps.store.pending.listPending(
      { kind: 'requester', id: userId },
      CANDIDATES,
    );
    const found: HomeGate[] = [];
    for (const ref of refs) {
      const view = await this.deps.store.pauses.getPause(ref.pauseId);
      if (view !== undefined) found.push(await this.homeGate(view, ref.callId));
    }
    return found;
  }

  /** The person's hand-over and those made to them; a failed read is logged and shows none. */
  private async delegationsOf(userId: string): Promise<HomeDelegations | undefined> {
    const { delegations } = this.deps;
    if (delegations === undefined) return undefined;
    try {
      const now = this.deps.clock();
      const [outgoing, all] = await Promise.all([
        delegations.get(userId, now),
        delegations.list(now),
      ]);
      const incoming = all.filter((d) => d.delegate === userId);
      return { ...(outgoing === undefined ? {} : { outgoing }), incoming };
    } catch (error) {
      this.deps.log.warn('could not read hand-overs for a Home', { error: errorMessage(error) });
      return { incoming: [] };
    }
  }

  /** Whom this person decides for now, under hand-overs; none when they cannot be read. */
  private async standingInFor(userId: string): Promise<string[]> {
    const { delegations } = this.deps;
    if (delegations === undefined) return [];
    const now = this.deps.clock();
    const all = await delegations.list(now).catch(() => []);
    return actingFor(userId, all, now, this.deps.delegationMaxHops ?? DEFAULT_DELEGATION_MAX_HOPS);
  }

  /** A Home without its grants is better than none: a failed read is logged and shows none. */
  private async grantsOf(userId: string): Promise<Grant[]> {
    const { grants } = this.deps;
    if (grants === undefined) return [];
    try {
      // A policy admin's Home lists every grant in force; anyone else's, those they gave or
      // are covered by.
      const admin = (this.deps.policy().admins ?? []).includes(userId);
      return await grants.list(admin ? {} : { person: userId }, this.deps.clock());
    } catch (error) {
      this.deps.log.warn('could not read grants for a Home', { error: errorMessage(error) });
      return [];
    }
  }

  /** The person's own decisions and votes, and those on their requests, newest first. */
  private async recentFor(userId: string): Promise<HomeDecision[]> {
    const entries = await this.deps.store.audit.readRecentDecisions(userId, RECENT_READ);
    const found: HomeDecision[] = [];
    const views = new Map<string, PauseView | undefined>();
    for (const entry of entries) {
      // Votes may repeat a gate already listed: the renderer drops those, so read a few more.
      if (found.length >= 2 * HOME_LIMITS.recent) break;
      if (entry.callId === undefined || !isRecentEvent(entry.event)) continue;
      if (!views.has(entry.pauseId)) {
        views.set(entry.pauseId, await this.deps.store.pauses.getPause(entry.pauseId));
      }
      const view = views.get(entry.pauseId);
      if (view === undefined) continue;
      if (entry.actor !== userId && view.pause.requester !== userId) continue;
      const gate = view.gates.find((g) => g.confirmationCallId === entry.callId);
      if (gate === undefined) continue;
      found.push({
        event: entry.event,
        by: entry.actor,
        at: entry.at,
        gate,
        requester: view.pause.requester,
        cardPermalink: await this.permalink(view),
      });
    }
    return found;
  }

  private async candidates(indexes: readonly PendingIndex[]): Promise<GateRef[]> {
    const lists = await Promise.all(
      indexes.map((index) => this.deps.store.pending.listPending(index, CANDIDATES)),
    );
    const seen = new Map<string, GateRef>();
    for (const ref of lists.flat()) seen.set(`${ref.pauseId}\u0000${ref.callId}`, ref);
    return [...seen.values()];
  }

  private async homeGate(view: PauseView, callId: string): Promise<HomeGate> {
    const gate = view.gates.find((g) => g.confirmationCallId === callId);
    if (gate === undefined) throw new Error(`pause ${view.pause.id} has no gate ${callId}`);
    return { view, gate, cardPermalink: await this.permalink(view) };
  }

  private readonly permalinks = new Map<string, string>();

  private async permalink(view: PauseView): Promise<string | undefined> {
    const { channelId, ts, threadTs } = view.pause.card;
    if (ts === undefined) return undefined;
    const key = `${channelId}/${ts}`;
    const known = this.permalinks.get(key);
    if (known !== undefined) return known;
    try {
      const link = await this.deps.slack.getPermalink({ channel: channelId, ts, threadTs });
      if (this.permalinks.size > 10_000) this.permalinks.clear();
      this.permalinks.set(key, link);
      return link;
    } catch (error) {
      this.deps.log.warn('no permalink for a card on a Home', { error: errorMessage(error) });
      return undefined;
    }
  }

  /** User groups the current policy names: where group approvers come from. */
  private policyGroups(): string[] {
    const policy = this.deps.policy();
    const groups = new Set<string>();
    for (const resolved of [policy.defaults, ...policy.rules.map((rule) => rule.resolved)]) {
      for (const approver of [
        ...resolved.policy.approvers,
        ...(resolved.policy.escalateTo ?? []),
      ]) {
        if (approver.kind === 'usergroup') groups.add(approver.id);
      }
    }
    return [...groups];
  }
}

const RECENT_EVENTS: ReadonlySet<string> = new Set<RecentEvent>([
  'approved',
  'rejected',
  'expired',
  'cancelled',
  'withdrawn',
  'voted',
]);

function isRecentEvent(event: string): event is RecentEvent {
  return RECENT_EVENTS.has(event);
}
