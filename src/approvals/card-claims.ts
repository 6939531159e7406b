/**
 * Who posts a pause's card. Whoever posts one (the request that recorded the pause, a retry of it
 * that finds the pause without a card, the sweeper) holds the pause's card claim while it posts,
 * so that two never post at once across requests and replicas. A claim is a lease: its holder
 * renews it while it posts, and one that dies lets it lapse for another to take over.
 */
export interface CardClaims {
  /**
   * Takes the pause's card claim for `leaseMs` when nobody holds it, or renews it when `owner`
   * does; false while another holds it.
   */
  claim(input: CardClaimInput): Promise<boolean>;
  /** Gives the claim up, if `owner` still holds it. */
  release(input: { pauseId: string; owner: string }): Promise<void>;
}

export interface CardClaimInput {
  pauseId: string;
  owner: string;
  leaseMs: number;
  now: number;
}
