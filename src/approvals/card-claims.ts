/**
 * Who is posting a pause's card. A card is posted only by the holder of its claim: the request
 * that recorded the pause, or the sweeper that found it without a card (`claimCardless` takes
 * the same claim). A post can wait minutes behind Slack's rate limit; its poster renews the
 * claim meanwhile, so nobody else posts the card again, and a poster that died lets it lapse.
 */
export interface CardClaims {
  /** Takes the claim for `leaseMs` unless someone holds it; whether it was taken. */
  claim(input: CardClaimInput): Promise<boolean>;
  /** Extends `owner`'s claim by `leaseMs`; false when it is no longer theirs (it lapsed and was taken, or is gone). */
  renew(input: CardClaimInput): Promise<boolean>;
  /** Lets go of `owner`'s claim (the card is posted, or its post failed); another's is kept. */
  release(input: Pick<CardClaimInput, 'pauseId' | 'owner'>): Promise<void>;
}

export interface CardClaimInput {
  pauseId: string;
  /** One post: the same owner never holds two claims' worth of posts at once. */
  owner: string;
  leaseMs: number;
  now: number;
}

/** The in-process twin of the card-claim keys. */
export class MemoryCardClaims implements CardClaims {
  private readonly claims = new Map<string, { owner: string; until: number }>();

  async claim({ pauseId, owner, leaseMs, now }: CardClaimInput): Promise<boolean> {
    const held = this.claims.get(pauseId);
    if (held !== undefined && held.until > now) return false;
    this.claims.set(pauseId, { owner, until: now + leaseMs });
    return true;
  }

  async renew({ pauseId, owner, leaseMs, now }: CardClaimInput): Promise<boolean> {
    const held = this.claims.get(pauseId);
    if (held?.owner !== owner || held.until <= now) return false;
    held.until = now + leaseMs;
    return true;
  }

  async release({ pauseId, owner }: Pick<CardClaimInput, 'pauseId' | 'owner'>): Promise<void> {
    if (this.claims.get(pauseId)?.owner === owner) this.claims.delete(pauseId);
  }
}
