import type { CardClaimInput, CardClaims } from '../../card-claims.js';

/** Twin of `RedisCardClaims` (and of the sweeper's `claimCardless` claims): who holds which, until when. */
export class MemoryCardClaims implements CardClaims {
  private readonly held = new Map<string, { owner: string; until: number }>();

  async claim(input: CardClaimInput): Promise<boolean> {
    const holder = this.holderAt(input.pauseId, input.now);
    if (holder !== undefined && holder !== input.owner) return false;
    this.take(input.pauseId, input.owner, input.now + input.leaseMs);
    return true;
  }

  async release(input: { pauseId: string; owner: string }): Promise<void> {
    if (this.held.get(input.pauseId)?.owner === input.owner) this.held.delete(input.pauseId);
  }

  /** Who holds the pause's claim at `now`, if anyone. */
  holderAt(pauseId: string, now: number): string | undefined {
    const claim = this.held.get(pauseId);
    return claim !== undefined && claim.until > now ? claim.owner : undefined;
  }

  take(pauseId: string, owner: string, until: number): void {
    this.held.set(pauseId, { owner, until });
  }
}
