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
import { claimResume } from './memory/claim-resume.js';
import { finishResume } from './memory/finish-resume.js';
import type { MemoryPause } from './memory/prelude.js';
import { renewLease } from './memory/renew-lease.js';
import type { MemoryPauseBook } from './memory-pause-book.js';
import { DEFAULT_LIMIT, type FinishOutcome, resumeFailedDetail } from './rules.js';
import { NO_SEAL_OFFER } from './scripts/pause-script.js';

/** Resume leases in memory: the twins of the claim, renewal and finish scripts. */
export class MemoryResumeLeases implements ResumeLeases {
  constructor(private readonly book: MemoryPauseBook) {}

  async claimResume(input: ClaimResumeInput): Promise<ClaimResult> {
    const { pauseId, owner, now, leaseMs } = input;
    const run = this.book.load(pauseId, now);
    if (!run) return { kind: 'not_found' };
    const retryFailed = input.retryFailed ?? false;
    const leaseUntil = now + leaseMs;
    // The twin seals every line at once: nothing to seal ahead.
    const args = { now, owner, leaseUntil, leaseMs, retryFailed, ...NO_SEAL_OFFER };
    const result = claimResume(run, args);
    this.book.mirror(run);
    return result;
  }

  async renewLease(input: RenewLeaseInput): Promise<RenewLeaseResult> {
    const { pauseId, owner, now, leaseMs } = input;
    const run = this.book.load(pauseId, now);
    if (!run) return { kind: 'not_found' };
    const result = renewLease(run, { now, owner, leaseUntil: now + leaseMs });
    this.book.mirror(run);
    return result;
  }

  /**
   * Decided pauses never claimed (due since their last decision) and lapsed leases (due at the
   * lease's end), earliest first; failed ones wait for a human Retry.
   */
  async dueResumes(now: number, limit = DEFAULT_LIMIT): Promise<string[]> {
    this.book.purge(now);
    const due: { pauseId: string; at: number }[] = [];
    for (const entry of this.book.pauses.values()) {
      const at = resumeDueAt(entry);
      if (at !== undefined && at <= now) due.push({ pauseId: entry.pause.id, at });
    }
    return due
      .sort((a, b) => a.at - b.at)
      .slice(0, limit)
      .map((item) => item.pauseId);
  }

  markResumed(input: FinishResumeInput): Promise<FinishResult> {
    return Promise.resolve(this.finish(input, 'resumed', '', ''));
  }

  markResumeFailed(input: ResumeFailedInput): Promise<FinishResult> {
    const detail = resumeFailedDetail(input.error);
    return Promise.resolve(this.finish(input, 'failed', input.error, detail));
  }

  markResumeRefused(input: ResumeFailedInput): Promise<FinishResult> {
    const detail = resumeFailedDetail(input.error);
    return Promise.resolve(this.finish(input, 'refused', input.error, detail));
  }

  private finish(
    input: FinishResumeInput,
    outcome: FinishOutcome,
    error: string,
    detail: string,
  ): FinishResult {
    const { pauseId, owner, now } = input;
    const run = this.book.load(pauseId, now);
    if (!run) return { kind: 'not_found' };
    const retentionMs = this.book.retentionMs;
    const args = { now, owner, outcome, retentionMs, error, detail, ...NO_SEAL_OFFER };
    const result = finishResume(run, args);
    this.book.mirror(run);
    return result;
  }
}

/** When a pause's resume is due, if it may be resumed without a person. */
function resumeDueAt(entry: MemoryPause): number | undefined {
  const { resume } = entry.pause;
  if (resume.state === 'resuming') return resume.leaseUntil;
  if (resume.state !== 'idle') return undefined;
  let decidedAt = resume.holdUntil ?? 0;
  for (const { record } of entry.gates) {
    if (record.decision === undefined) return undefined;
    decidedAt = Math.max(decidedAt, record.decision.at);
  }
  return decidedAt;
}
