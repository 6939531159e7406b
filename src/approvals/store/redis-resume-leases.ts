import type {
  ClaimResult,
  ClaimResumeInput,
  FinishResult,
  FinishResumeInput,
  RenewLeaseInput,
  RenewLeaseResult,
  ResumeFailedInput,
  ResumeLeases,
} from '../store-roles/resume-leases.js';
import { RedisPauseScripts, unexpected } from './redis-pause-scripts.js';
import { DEFAULT_LIMIT, type FinishOutcome, resumeFailedDetail } from './rules.js';
import { CLAIM_RESUME, plannedClaimEntries } from './scripts/claim-resume.lua.js';
import { FINISH_RESUME, plannedFinishEntries } from './scripts/finish-resume.lua.js';
import { NO_SEAL_OFFER } from './scripts/pause-script.js';
import { RENEW_LEASE } from './scripts/renew-lease.lua.js';

/**
 * Resume leases on Redis: the claim, renewal and finish of a decided pause's resume, each a
 * compare-and-set on the pause's resume state in its own script.
 */
export class RedisResumeLeases extends RedisPauseScripts implements ResumeLeases {
  async claimResume(input: ClaimResumeInput): Promise<ClaimResult> {
    const { pauseId, owner, now, leaseMs } = input;
    const leaseUntil = now + leaseMs;
    // The claim's line, sealed ahead when this replica knows the pause's chain and resume.
    const seen = this.chains.lastSeen(pauseId);
    const offer =
      seen === undefined
        ? NO_SEAL_OFFER
        : this.chains.offer(pauseId, now, plannedClaimEntries({ owner, leaseMs }, seen.resume));
    const outcome = await this.onTypedPause(
      CLAIM_RESUME,
      pauseId,
      () => ({
        now,
        owner,
        leaseUntil,
        leaseMs,
        retryFailed: input.retryFailed ?? false,
        ...offer,
      }),
      undefined,
      offer,
    );
    const view = outcome.view;
    if (view === undefined) return { kind: 'not_found' };
    switch (outcome.code) {
      case 'CLAIMED': {
        const [attempt = '', stateBefore = ''] = outcome.info;
        const updates = this.indexes.afterClaim(view, leaseUntil);
        await this.indexes.apply(view, outcome.audit, now, updates);
        return {
          kind: 'claimed',
          view,
          attempt: Number(attempt),
          retried: stateBefore === 'failed',
        };
      }
      case 'NOT_DECIDED':
        return { kind: 'not_decided', view };
      case 'LEASED':
        return { kind: 'leased', view, leaseUntil: Number(outcome.info[0]) };
      case 'FINISHED':
        return { kind: 'finished', view };
      case 'AWAITING_RETRY':
        return { kind: 'awaiting_retry', view };
      case 'NOT_DUE': {
        const until = Number(outcome.info[0]);
        await this.indexes.apply(view, outcome.audit, now, this.indexes.afterHeld(view, until));
        return { kind: 'held', view, until };
      }
      default:
        throw unexpected(CLAIM_RESUME.lua, outcome.code);
    }
  }

  async renewLease(input: RenewLeaseInput): Promise<RenewLeaseResult> {
    const { pauseId, owner, now, leaseMs } = input;
    const leaseUntil = now + leaseMs;
    const outcome = await this.onTypedPause(RENEW_LEASE, pauseId, () => ({
      now,
      owner,
      leaseUntil,
    }));
    const view = outcome.view;
    if (view === undefined) return { kind: 'not_found' };
    if (outcome.code === 'LOST_LEASE') return { kind: 'lost_lease' };
    if (outcome.code !== 'OK') throw unexpected(RENEW_LEASE.lua, outcome.code);
    await this.indexes.apply(view, [], now, this.indexes.afterClaim(view, leaseUntil));
    return { kind: 'renewed', leaseUntil };
  }

  /** Decided pauses never claimed, or whose lease lapsed; failed ones wait for a human Retry. */
  dueResumes(now: number, limit = DEFAULT_LIMIT): Promise<string[]> {
    return this.indexes.dueResumes(now, limit);
  }

  markResumed(input: FinishResumeInput): Promise<FinishResult> {
    return this.finish(input, 'resumed', '', '');
  }

  markResumeFailed(input: ResumeFailedInput): Promise<FinishResult> {
    return this.finish(input, 'failed', input.error, resumeFailedDetail(input.error));
  }

  markResumeRefused(input: ResumeFailedInput): Promise<FinishResult> {
    return this.finish(input, 'refused', input.error, resumeFailedDetail(input.error));
  }

  private async finish(
    input: FinishResumeInput,
    outcome: FinishOutcome,
    error: string,
    detail: string,
  ): Promise<FinishResult> {
    const { pauseId, owner, now } = input;
    // The finish's line, sealed ahead when this replica knows the pause's chain.
    const offer = this.chains.offer(pauseId, now, plannedFinishEntries({ owner, outcome, detail }));
    const result = await this.onTypedPause(
      FINISH_RESUME,
      pauseId,
      () => ({ now, owner, outcome, retentionMs: this.retentionMs, error, detail, ...offer }),
      undefined,
      offer,
    );
    const view = result.view;
    if (view === undefined) return { kind: 'not_found' };
    if (result.code === 'LOST_LEASE') return { kind: 'lost_lease', view };
    if (result.code !== 'OK') throw unexpected(FINISH_RESUME.lua, result.code);
    const updates = this.indexes.afterFinish(view, result.info[0] ?? '');
    await this.indexes.apply(view, result.audit, now, updates);
    return { kind: 'ok', view };
  }
}
