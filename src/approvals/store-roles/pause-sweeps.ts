import type { GateState, PauseView } from '../records.js';

/** What the sweeper finds on its rounds: gates whose time ran out, and cards never posted. */
export interface PauseSweeps {
  /** Applies expiry to gates due at `now`; safe for any number of replicas at once. */
  expireDue(now: number, limit?: number): Promise<ExpiredGate[]>;
  /**
   * Pauses recorded at least `graceMs` ago whose card was never posted (no `ts`): a replica died
   * between recording a pause and posting its card, and nobody can see or approve it. Each id
   * returned is claimed for `leaseMs` by `owner` (its card claim, see `CardClaims`), so that one
   * replica posts it; a pause whose card another poster holds the claim of is not returned.
   */
  claimCardless(input: ClaimCardlessInput): Promise<string[]>;
}

export interface ExpiredGate {
  view: PauseView;
  callId: string;
  /** `expired` (rejected on expiry) or `cancelled`, per the gate's policy. */
  state: GateState;
  pauseDecided: boolean;
}

export interface ClaimCardlessInput {
  now: number;
  graceMs: number;
  owner: string;
  leaseMs: number;
  limit?: number;
}
