import type { ClaimCardlessInput, ExpiredGate, PauseSweeps } from '../store-roles/pause-sweeps.js';
import { toStoreError } from './redis-connection.js';
import type { ExpiryDone, IndexEntry } from './redis-indexes.js';
import { RedisPauseScripts, unexpected } from './redis-pause-scripts.js';
import { DEFAULT_LIMIT, systemDecision } from './rules.js';
import { EXPIRE_GATE, plannedExpiryEntries } from './scripts/expire-gate.lua.js';
import { NO_SEAL_OFFER } from './scripts/pause-script.js';
import type { ScriptAuditEntry } from './scripts/reply.js';

/** The sweeper's finds on Redis: gates past their expiry, pauses whose card was never posted. */
export class RedisPauseSweeps extends RedisPauseScripts implements PauseSweeps {
  /**
   * One read of the global expiry set, then one per-pause script per entry (Cluster-safe): the
   * script's state check makes each gate expire once, whichever replica gets there first. The
   * index updates of the whole batch go out together, one command per index key.
   */
  async expireDue(now: number, limit = DEFAULT_LIMIT): Promise<ExpiredGate[]> {
    const entries = await this.indexes.dueExpiries(now, limit);
    const results = await Promise.allSettled(entries.map((entry) => this.expireEntry(entry, now)));
    const expired: ExpiredGate[] = [];
    const done: ExpiryDone[] = [];
    const stale: IndexEntry[] = [];
    let failure: unknown;
    for (const [i, result] of results.entries()) {
      const entry = entries[i];
      if (result.status === 'rejected') failure ??= result.reason;
      else if (result.value === 'stale' && entry) stale.push(entry);
      else if (typeof result.value === 'object') {
        const { gate, audit } = result.value;
        expired.push(gate);
        done.push({ view: gate.view, callId: gate.callId, pauseDecided: gate.pauseDecided, audit });
      }
    }
    await this.indexes.afterExpiries(done, stale, now);
    // Every entry was tried; the expiries applied are durable and their resumes come due.
    if (failure !== undefined) throw toStoreError(failure, 'expire due gates');
    return expired;
  }

  claimCardless(input: ClaimCardlessInput): Promise<string[]> {
    return this.indexes.claimCardless(input, input.limit ?? DEFAULT_LIMIT);
  }

  /** Expires one entry's gate; `stale`: its entry is to be dropped; `kept`: left (or moved). */
  private async expireEntry(
    entry: IndexEntry,
    now: number,
  ): Promise<{ gate: ExpiredGate; audit: ScriptAuditEntry[] } | 'stale' | 'kept'> {
    const { pauseId, callId } = entry;
    const decision = systemDecision(now);
    // The expiry's lines, sealed ahead when this replica knows the pause's chain and gates.
    const seen = this.chains.lastSeen(pauseId);
    const offer =
      seen === undefined
        ? NO_SEAL_OFFER
        : this.chains.offer(
            pauseId,
            now,
            plannedExpiryEntries({ callId, decision: JSON.stringify(decision) }, seen.pending),
          );
    const outcome = await this.onTypedPause(
      EXPIRE_GATE,
      pauseId,
      (callIds) => {
        const index = callIds.indexOf(callId);
        if (index < 0) return undefined;
        return { now, gateIndex: index + 1, decision, retentionMs: this.retentionMs, ...offer };
      },
      callId,
      offer,
    );
    const { code, view } = outcome;
    if (code === 'NOT_FOUND') {
      // An entry without a pause may belong to a pause being created right now.
      return this.indexes.isOrphanExpiry(entry, now) ? 'stale' : 'kept';
    }
    const reply = EXPIRE_GATE.decode(outcome);
    if (reply.code === 'NOT_PENDING') return 'stale';
    if (reply.code === 'NOT_DUE') {
      await this.indexes.rescheduleExpiry(entry, reply.expiresAt);
      return 'kept';
    }
    if (view === undefined) throw unexpected(EXPIRE_GATE.lua, code);
    const { state, pauseDecided } = reply;
    return { gate: { view, callId, state, pauseDecided }, audit: outcome.audit };
  }
}
