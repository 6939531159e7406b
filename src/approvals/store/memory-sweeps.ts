import type { CardClaims } from '../card-claims.js';
import type { ClaimCardlessInput, ExpiredGate, PauseSweeps } from '../store-roles/pause-sweeps.js';
import { expireGate } from './memory/expire-gate.js';
import type { MemoryPauseBook } from './memory-pause-book.js';
import { DEFAULT_LIMIT, isDue, systemDecision } from './rules.js';
import { NO_SEAL_OFFER } from './scripts/pause-script.js';

/** The sweeper's finds in memory: gates past their expiry, pauses whose card was never posted. */
export class MemoryPauseSweeps implements PauseSweeps {
  constructor(
    private readonly book: MemoryPauseBook,
    private readonly cardClaims: CardClaims,
  ) {}

  /** Pending gates due at `now`, earliest first, each through the twin of expire_gate. */
  async expireDue(now: number, limit = DEFAULT_LIMIT): Promise<ExpiredGate[]> {
    this.book.purge(now);
    const due: { pauseId: string; callId: string; at: number }[] = [];
    for (const entry of this.book.pauses.values()) {
      for (const { record } of entry.gates) {
        const { state, expiresAt } = record;
        if (state === 'pending' && expiresAt !== undefined && isDue(expiresAt, now)) {
          due.push({ pauseId: entry.pause.id, callId: record.confirmationCallId, at: expiresAt });
        }
      }
    }
    due.sort((a, b) => a.at - b.at);
    const expired: ExpiredGate[] = [];
    for (const { pauseId, callId } of due.slice(0, limit)) {
      const run = this.book.load(pauseId, now);
      const gate = run?.gate(callId);
      if (!run || !gate) continue;
      // An earlier gate's `cancel` outcome may have cancelled this one already: NOT_PENDING.
      const reply = expireGate(run, gate, {
        now,
        gateIndex: run.entry.pause.callIds.indexOf(callId) + 1,
        decision: systemDecision(now),
        retentionMs: this.book.retentionMs,
        // The twin seals every line at once: nothing to seal ahead.
        ...NO_SEAL_OFFER,
      });
      this.book.mirror(run);
      if (reply.code === 'EXPIRED') {
        const { state, pauseDecided } = reply;
        expired.push({ view: run.view(), callId, state, pauseDecided });
      }
    }
    return expired;
  }

  async claimCardless(input: ClaimCardlessInput): Promise<string[]> {
    const { now, graceMs, owner, leaseMs, limit = DEFAULT_LIMIT } = input;
    this.book.purge(now);
    const claimed: string[] = [];
    for (const [pauseId, entry] of this.book.pauses) {
      if (claimed.length >= limit) break;
      const { pause } = entry;
      if (pause.card.ts !== undefined || pause.createdAt > now - graceMs) continue;
      if (await this.cardClaims.claim({ pauseId, owner, leaseMs, now })) claimed.push(pauseId);
    }
    return claimed;
  }
}
