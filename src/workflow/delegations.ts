import type { Clock } from '../approvals/clock.js';
import {
  type Delegation,
  type DelegationProblem,
  type DelegationStore,
  delegationProblem,
} from '../approvals/delegations.js';
import type { PendingQueries } from '../approvals/store-roles/pending-queries.js';
import { errorMessage } from '../error-message.js';
import type { Log } from '../log.js';
import type { Modal } from '../slack/codecs/block-kit.js';
import { renderDelegationModal } from '../slack/render/delegation-view.js';
import type { AppHomes } from './app-homes.js';
import type { CardUpdates } from './card-updates.js';

/** Pending cards redrawn per person whose hand-over starts or ends (their oldest first). */
const CARDS_REDRAWN = 100;

export type SetDelegationResult =
  | { kind: 'set'; delegation: Delegation }
  | { kind: 'invalid'; problem: DelegationProblem };

/**
 * Handing over while away, as the App Home sets and ends it. Who may decide is worked out when
 * approvers are looked up (`ApprovalChecks`); this part keeps the hand-overs, refuses bad ones
 * (to oneself, an end not after the start or past, a loop), and redraws what shows them: the
 * cards that name the delegator and the two people's Homes, when it is set, ended, and when its
 * start or end comes (checked on each sweep).
 */
export class Delegations {
  /** The last sweep's time: boundaries in (this, now] are due. */
  private sweptAt: number;

  constructor(
    private readonly deps: {
      store: DelegationStore;
      pending: Pick<PendingQueries, 'listPending'>;
      cards: Pick<CardUpdates, 'pauseChanged'>;
      homes: Pick<AppHomes, 'refresh' | 'peopleChanged'>;
      clock: Clock;
      log: Log;
    },
  ) {
    this.sweptAt = deps.clock();
  }

  /** The hand-over modal, its times starting now. */
  modal(): Modal {
    return renderDelegationModal(this.deps.clock());
  }

  /** Sets `delegator`'s hand-over (replacing theirs), unless it is refused with a reason. */
  async set(
    delegator: string,
    form: { delegate: string; startsAt: number; endsAt: number },
  ): Promise<SetDelegationResult> {
    const now = this.deps.clock();
    // A start picked in the current minute is a little past by the time it is sent: it means now.
    const proposed = { delegator, ...form, startsAt: Math.max(form.startsAt, now) };
    const problem = delegationProblem(proposed, await this.deps.store.list(now), now);
    if (problem !== undefined) return { kind: 'invalid', problem };
    const previous = await this.deps.store.get(delegator, now);
    const delegation: Delegation = { ...proposed, setAt: now };
    await this.deps.store.set(delegation);
    this.deps.log.info('hand-over set', {
      delegator,
      delegate: delegation.delegate,
      startsAt: delegation.startsAt,
      endsAt: delegation.endsAt,
    });
    this.changed(delegation, previous?.delegate);
    return { kind: 'set', delegation };
  }

  /** Ends (or calls off) `delegator`'s hand-over now; false when they had none. */
  async end(delegator: string): Promise<boolean> {
    const ended = await this.deps.store.end(delegator, this.deps.clock());
    if (ended === undefined) {
      this.deps.homes.refresh(delegator);
      return false;
    }
    this.deps.log.info('hand-over ended', { delegator, delegate: ended.delegate });
    this.changed(ended);
    return true;
  }

  /**
   * A sweep: hand-overs that started or ended since the last one have their cards and Homes
   * redrawn. Every replica does it for itself (a redraw is idempotent, and coalesced per card).
   */
  async sweep(): Promise<void> {
    const now = this.deps.clock();
    const since = this.sweptAt;
    if (now <= since) return;
    // Not ended at `since`: those that end in (since, now] are still listed.
    const delegations = await this.deps.store.list(since);
    this.sweptAt = now;
    for (const delegation of delegations) {
      const starts = delegation.startsAt > since && delegation.startsAt <= now;
      const ends = delegation.endsAt > since && delegation.endsAt <= now;
      if (starts || ends) this.changed(delegation);
    }
  }

  /** Redraws the delegator's pending cards and both people's Homes; never waits on Slack. */
  private changed(delegation: Delegation, formerDelegate?: string): void {
    const { delegator, delegate } = delegation;
    this.deps.homes.refresh(delegator);
    this.deps.homes.peopleChanged(
      formerDelegate === undefined || formerDelegate === delegate
        ? [delegate]
        : [delegate, formerDelegate],
    );
    void this.redrawCards(delegator);
  }

  private async redrawCards(delegator: string): Promise<void> {
    try {
      const refs = await this.deps.pending.listPending(
        { kind: 'user', id: delegator },
        CARDS_REDRAWN,
      );
      for (const pauseId of new Set(refs.map((ref) => ref.pauseId))) {
        this.deps.cards.pauseChanged(pauseId);
      }
    } catch (error) {
      this.deps.log.warn('could not redraw the cards of a hand-over', {
        error: errorMessage(error),
      });
    }
  }
}
