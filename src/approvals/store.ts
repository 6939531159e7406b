import type { CardClaims } from './card-claims.js';
import type { AuditLog } from './store-roles/audit-log.js';
import type { StoreLifecycle } from './store-roles/lifecycle.js';
import type { NudgeQueue } from './store-roles/nudges.js';
import type {
  IdempotencyKeys,
  PauseNotesReader,
  PauseReports,
} from './store-roles/pause-reports.js';
import type { PauseSweeps } from './store-roles/pause-sweeps.js';
import type { PauseStore } from './store-roles/pauses.js';
import type { PendingQueries } from './store-roles/pending-queries.js';
import type { ResumeLeases } from './store-roles/resume-leases.js';
import type { RunIntentStore } from './store-roles/run-intents.js';

/**
 * The shared truth about pending confirmations, one role per job (store-roles/): each part of
 * the app takes only the roles it uses. The Redis store and its in-memory twin each implement
 * every role, over one connection (or one process's memory) shared by all of them.
 */
export interface ApprovalStore {
  pauses: PauseStore;
  reports: PauseReports;
  notes: PauseNotesReader;
  idempotency: IdempotencyKeys;
  leases: ResumeLeases;
  sweeps: PauseSweeps;
  pending: PendingQueries;
  runs: RunIntentStore;
  nudges: NudgeQueue;
  audit: AuditLog;
  /** Who is posting each pause's card: one poster at a time. */
  cardClaims: CardClaims;
  lifecycle: StoreLifecycle;
}

/** Why a store call failed for a reason that is not an expected outcome. */
export type StoreErrorReason =
  | 'unavailable'
  /**
   * The call was sent but its answer never came (a reply timeout, the connection lost while
   * waiting): a script may have run. Read the records again before saying what happened.
   */
  | 'outcome_unknown'
  | 'corrupt_record'
  | 'script';

export class StoreError extends Error {
  override readonly name = 'StoreError';
  constructor(
    readonly reason: StoreErrorReason,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}
