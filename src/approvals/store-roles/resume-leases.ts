import type { PauseView } from '../records.js';

/**
 * The resume of a fully decided pause, held by one replica at a time under a lease it renews
 * while the resume streams; another replica takes it over once the lease lapses.
 */
export interface ResumeLeases {
  /** Claims the resume of a fully decided pause, with a lease another replica may take over once it lapses. */
  claimResume(input: ClaimResumeInput): Promise<ClaimResult>;
  /** Pauses whose resume is due: decided but never claimed, or whose lease lapsed. */
  dueResumes(now: number, limit?: number): Promise<string[]>;
  /** The lease's owner extends it while the resume streams (a heartbeat). */
  renewLease(input: RenewLeaseInput): Promise<RenewLeaseResult>;
  markResumed(input: FinishResumeInput): Promise<FinishResult>;
  markResumeFailed(input: ResumeFailedInput): Promise<FinishResult>;
  /**
   * The agent received the answers and refused them (nothing ran); finished: no Retry claims it,
   * since the agent's session already holds the answers.
   */
  markResumeRefused(input: ResumeFailedInput): Promise<FinishResult>;
}

export interface ClaimResumeInput {
  pauseId: string;
  owner: string;
  now: number;
  leaseMs: number;
  /** A person pressed Retry: a failed resume may be claimed again. Without it, it may not. */
  retryFailed?: boolean;
}

export type ClaimResult =
  /** `retried`: a person's Retry claimed a failed resume (else a first claim or a takeover). */
  | { kind: 'claimed'; view: PauseView; attempt: number; retried: boolean }
  /** The last resume failed; only a Retry (`retryFailed`) claims it again. */
  | { kind: 'awaiting_retry'; view: PauseView }
  /** Some gates are still pending. */
  | { kind: 'not_decided'; view: PauseView }
  /** Another owner holds a live lease. */
  | { kind: 'leased'; view: PauseView; leaseUntil: number }
  /** In its undo window: not claimed before `until`. */
  | { kind: 'held'; view: PauseView; until: number }
  | { kind: 'finished'; view: PauseView }
  | { kind: 'not_found' };

export interface RenewLeaseInput {
  pauseId: string;
  owner: string;
  now: number;
  leaseMs: number;
}

export type RenewLeaseResult =
  | { kind: 'renewed'; leaseUntil: number }
  /** Another owner took the resume over (or it finished): stop. */
  | { kind: 'lost_lease' }
  | { kind: 'not_found' };

/** Only the current lease owner's outcome is recorded. */
export interface FinishResumeInput {
  pauseId: string;
  owner: string;
  now: number;
}

export interface ResumeFailedInput extends FinishResumeInput {
  /** Shown on the card; no arguments or payloads. */
  error: string;
}

export type FinishResult =
  | { kind: 'ok'; view: PauseView }
  /** The lease lapsed and someone else took over: this owner's outcome is not recorded. */
  | { kind: 'lost_lease'; view: PauseView }
  | { kind: 'not_found' };
