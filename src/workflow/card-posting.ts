import { randomUUID } from 'node:crypto';
import type { Clock } from '../approvals/clock.js';
import type { PauseView } from '../approvals/records.js';
import type { ApprovalStore } from '../approvals/store.js';
import type { Log } from '../log.js';
import { type CardClaimHold, holdCardClaim } from './card-claim-hold.js';
import type { ApprovalCards } from './cards.js';

/**
 * A request's card claim without renewal; renewed every third of it while the request posts.
 * Short, so that a retry takes over a dead request's card within it (the sweeper's posts keep
 * `CARD_CLAIM_LEASE_MS`).
 */
export const REQUEST_CARD_LEASE_MS = 5_000;
/**
 * Longest a request waits for the card another poster is posting: that poster's claim lapses
 * within a lease if it died, and this request then posts the card itself.
 */
export const CARD_WAIT_MS = 15_000;
/** How often a waiting request looks for the other poster's card, and tries its claim again. */
const CARD_LOOK_MS = 200;

/**
 * What `post` is given: the pause as it is now; `earlier`, the ts of its message (card or policy
 * line) an earlier poster got Slack to post but died before saving, when one is found; `hold`,
 * the claim it posts under (its signal aborts a post not sent yet, should the claim be lost).
 */
export type PostCard = (
  view: PauseView,
  context: { earlier: FoundEarlier; hold: CardClaimHold },
) => Promise<void>;
export type FoundEarlier = (kind: 'card' | 'policy_line') => Promise<string | undefined>;

export type CardPostingResult =
  /** The pause has its card (or needs none: nothing is pending), as it is now. */
  | { kind: 'done'; view: PauseView }
  /** Another poster still holds the claim after `CARD_WAIT_MS`, and the pause has no card yet. */
  | { kind: 'busy'; view: PauseView }
  | { kind: 'gone' };

/**
 * One poster for a pause's card, across requests and replicas: whoever posts it (the request
 * that recorded the pause, or a retry of that request finding the pause without a card because
 * the request died) holds the pause's card claim while it does, the claim the sweeper takes for a
 * missing card too. A request that finds the claim held waits for that poster's card; when that
 * poster died, its claim lapses and the request takes over, looking first for a card Slack posted
 * before the poster died (`earlier`), so that it is not posted twice.
 */
export class CardPosting {
  constructor(
    private readonly deps: {
      store: Pick<ApprovalStore, 'pauses' | 'cardClaims'>;
      /** Looks for a message of the pause posted before a crash. */
      cards: Pick<ApprovalCards, 'findPosted'>;
      clock: Clock;
      log: Log;
      /** This replica; each posting claims as `<owner>:<random>`, so requests never share one. */
      owner: string;
      leaseMs?: number;
      waitMs?: number;
    },
  ) {}

  /**
   * Runs `post` unless the pause has its card, as the only poster of it. `takeOver`: the pause
   * was recorded by another request, which may have died at any point, Slack's post included.
   */
  async once(
    pauseId: string,
    { takeOver }: { takeOver: boolean },
    post: PostCard,
  ): Promise<CardPostingResult> {
    const { store, clock } = this.deps;
    const leaseMs = this.deps.leaseMs ?? REQUEST_CARD_LEASE_MS;
    const owner = `${this.deps.owner}:${randomUUID().slice(0, 8)}`;
    const deadline = clock() + (this.deps.waitMs ?? CARD_WAIT_MS);
    for (let attempt = 0; ; attempt += 1) {
      const claim = { pauseId, owner, leaseMs };
      if (await store.cardClaims.claim({ ...claim, now: clock() })) {
        // Not first in line: whoever held the claim may have died with its post sent.
        return this.holding(claim, takeOver || attempt > 0, post);
      }
      const view = await store.pauses.getPause(pauseId);
      if (view === undefined) return { kind: 'gone' };
      if (!needsCard(view)) return { kind: 'done', view };
      if (clock() >= deadline) return { kind: 'busy', view };
      await new Promise((resolve) => setTimeout(resolve, CARD_LOOK_MS));
    }
  }

  private async holding(
    claim: { pauseId: string; owner: string; leaseMs: number },
    lookEarlier: boolean,
    post: PostCard,
  ): Promise<CardPostingResult> {
    const { store, clock, log } = this.deps;
    const { pauseId, owner, leaseMs } = claim;
    const hold = holdCardClaim(
      { claims: store.cardClaims, clock, log },
      { pauseId, owner },
      leaseMs,
    );
    try {
      const view = await store.pauses.getPause(pauseId);
      if (view === undefined) return { kind: 'gone' };
      if (!needsCard(view)) return { kind: 'done', view };
      const earlier: FoundEarlier = (kind) =>
        lookEarlier ? this.deps.cards.findPosted(view, kind) : Promise.resolve(undefined);
      await post(view, { earlier, hold });
      const after = await store.pauses.getPause(pauseId);
      return after === undefined ? { kind: 'gone' } : { kind: 'done', view: after };
    } finally {
      await hold.release();
    }
  }
}

/** A pause still to be shown: no card (nor policy line) saved, and a gate still pending. */
function needsCard(view: PauseView): boolean {
  return view.pause.card.ts === undefined && view.gates.some((gate) => gate.state === 'pending');
}
