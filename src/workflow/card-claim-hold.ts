import type { CardClaimInput, CardClaims } from '../approvals/card-claims.js';
import type { Clock } from '../approvals/clock.js';
import { errorMessage } from '../error-message.js';
import type { Log } from '../log.js';

/**
 * How long a card's claim lasts without renewal. Its poster renews it every third of this while
 * the post waits (behind Slack's rate limit, a channel's queue of cards at one a second can take
 * minutes); a poster that died lets it lapse, and the sweeper posts the card.
 */
export const CARD_CLAIM_LEASE_MS = 30_000;

export interface CardClaimHold {
  /** Aborted once the claim is found to be someone else's: the post must not be sent then. */
  signal: AbortSignal;
  /** Stops renewing and lets go of the claim. */
  release(): Promise<void>;
}

/**
 * Holds a card's claim while its post is under way: renews it at once (a claim the sweeper took
 * with its own lease gets the card's) and every third of the lease (`leaseMs`, default
 * `CARD_CLAIM_LEASE_MS`). A renewal that finds the
 * claim gone or taken aborts `signal`, so that a post still waiting is not sent beside another
 * poster's; one that fails (Redis) is tried again at the next beat.
 */
export function holdCardClaim(
  deps: { claims: CardClaims; clock: Clock; log: Log },
  claim: Omit<CardClaimInput, 'now' | 'leaseMs'>,
  leaseMs = CARD_CLAIM_LEASE_MS,
): CardClaimHold {
  const lost = new AbortController();
  const beat = async () => {
    try {
      const renewed = await deps.claims.renew({
        ...claim,
        leaseMs,
        now: deps.clock(),
      });
      if (!renewed && !lost.signal.aborted) {
        deps.log.warn('the claim on posting this card passed to another poster; not posting it', {
          pauseId: claim.pauseId,
        });
        lost.abort(new Error('the card claim passed to another poster'));
      }
    } catch (error) {
      deps.log.warn('could not renew the claim on posting a card; trying again', {
        pauseId: claim.pauseId,
        error: errorMessage(error),
      });
    }
  };
  void beat();
  const timer = setInterval(() => void beat(), leaseMs / 3);
  timer.unref();
  return {
    signal: lost.signal,
    async release() {
      clearInterval(timer);
      try {
        await deps.claims.release(claim);
      } catch (error) {
        // It lapses on its own within the lease.
        deps.log.warn('could not release the claim on posting a card', {
          pauseId: claim.pauseId,
          error: errorMessage(error),
        });
      }
    },
  };
}
