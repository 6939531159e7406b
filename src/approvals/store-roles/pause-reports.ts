import type { GrantScope } from '../grants.js';
import type { DeliveryStatus, GateOutcome, PauseNotes } from '../records.js';

/**
 * What happened to a pause after its decision, as its callers report it (the agent's outcome, a
 * webhook delivery, a hand-over the agent refused, a gate's call about to run, a grant given on
 * its card): each report also gets an entry in the pause's trail.
 */
export interface PauseReports {
  /** Records what the agent reported after a decision; the pause's trail gets an entry. */
  recordOutcome(input: OutcomeInput): Promise<OutcomeResult>;
  /**
   * The agent a decision was handed to (poll, webhook) received it and did not act on it (ADK
   * refused it, or its driver could not use it): a resume marked `resumed` becomes `refused`,
   * with the agent's words, and the pause's trail gets an entry. Any other resume state is left
   * as it is (`not_handed_over`): the hand-over, once marked, looks for the report itself.
   */
  refuseHandOver(input: HandOverRefusal): Promise<'refused' | 'not_handed_over' | 'not_found'>;
  /**
   * Records that an agent is about to run a decided gate's call: the first claim of a gate wins,
   * atomically across replicas; any later one is `taken` (single use across processes).
   */
  claimGateRun(input: GateRunClaim): Promise<'claimed' | 'taken'>;
  /** Records where a webhook delivery stands (shown on the card); the trail gets an entry. */
  recordDelivery(input: DeliveryInput): Promise<'recorded' | 'not_found'>;
  /** A grant given on a gate's card, or revoked, in the pause's trail beside the gate's votes. */
  recordGrantEvent(input: GrantEventInput): Promise<OutcomeResult>;
}

/** What was reported on a pause, for its card and the API. */
export interface PauseNotesReader {
  /** Outcomes and the delivery status of a pause (empty when none were recorded). */
  readNotes(pauseId: string): Promise<PauseNotes>;
}

/** The approvals API's idempotency keys. */
export interface IdempotencyKeys {
  /**
   * Binds an idempotency key to the request it first came with, for `ttlMs`. Atomic across
   * replicas: of two concurrent first uses exactly one is `claimed`.
   */
  claimIdempotencyKey(input: IdempotencyInput): Promise<IdempotencyResult>;
}

export interface OutcomeInput {
  pauseId: string;
  callId: string;
  outcome: GateOutcome;
  /** Who reported it, e.g. `api:<key name>`. */
  actor: string;
}

export type OutcomeResult = 'recorded' | 'not_found' | 'unknown_gate';

export interface HandOverRefusal {
  pauseId: string;
  /** Who reported it, e.g. `api:<key name>`. */
  actor: string;
  /** What the agent said (shown on the card): no arguments or payloads. */
  error: string;
  at: number;
}

export interface GateRunClaim {
  pauseId: string;
  callId: string;
  /** Who claims, e.g. `api:<key name>`. */
  by: string;
  at: number;
}

export interface DeliveryInput {
  pauseId: string;
  delivery: DeliveryStatus;
  actor: string;
}

export interface GrantEventInput {
  pauseId: string;
  /** The gate whose card gave the grant. */
  callId: string;
  event: 'granted' | 'grant_revoked';
  /** Who gave or revoked it: a Slack user id, or `api:<key>`. */
  actor: string;
  grantId: string;
  scope: GrantScope;
  expiresAt: number;
  /** Revocations: the calls it had decided. */
  uses?: number;
  at: number;
}

export interface IdempotencyInput {
  /** Unique per caller and key, e.g. `<key name>:<Idempotency-Key>`. */
  key: string;
  /** A hash of the request body: the same key with another body is a conflict. */
  fingerprint: string;
  pauseId: string;
  ttlMs: number;
}

export type IdempotencyResult =
  | { kind: 'claimed' }
  | { kind: 'seen'; fingerprint: string; pauseId: string };
