import { Cluster } from 'ioredis';
import { StoreError } from '../store.js';
import type { ClaimCardlessInput, ExpiredGate, PauseSweeps } from '../store-roles/pause-sweeps.js';
import { toStoreError } from './redis-connection.js';
import type { ExpiryDone, IndexEntry } from './redis-indexes.js';
import {
  type BatchCall,
  type PauseOutcome,
  RedisPauseScripts,
  unexpected,
} from './redis-pause-scripts.js';
import { DEFAULT_LIMIT, systemDecision } from './rules.js';
import { EXPIRE_GATE, plannedExpiryEntries } from './scripts/expire-gate.lua.js';
import { EXPIRE_GATES } from './scripts/expire-gates.lua.js';
import { NO_SEAL_OFFER, type SealOffer } from './scripts/pause-script.js';
import type { ScriptAuditEntry } from './scripts/reply.js';

type EntryResult = { gate: ExpiredGate; audit: ScriptAuditEntry[] } | 'stale' | 'kept';

/** The sweeper's finds on Redis: gates past their expiry, pauses whose card was never posted. */
export class RedisPauseSweeps extends RedisPauseScripts implements PauseSweeps {
  /**
   * One read of the global expiry set, then the due gates expired: on a single Redis, one gate
   * of each pause at once in one expire_gates call (and their lines sealed in one seal_audits
   * call); on a Cluster, and for a pause's further due gates or stale cached call ids, one
   * expire_gate per entry. Either way the script's state check makes each gate expire once,
   * whichever replica gets there first. The index updates of the whole batch go out together,
   * one command per index key.
   */
  async expireDue(now: number, limit = DEFAULT_LIMIT): Promise<ExpiredGate[]> {
    const entries = await this.indexes.dueExpiries(now, limit);
    const results = new Array<PromiseSettledResult<EntryResult>>(entries.length);
    const retried = new Set<number>();
    const alone =
      this.redis instanceof Cluster
        ? [...entries.keys()]
        : await this.expireBatch(entries, now, results, retried);
    const singles = await Promise.allSettled(
      alone.map((i) => this.expireEntry(entries[i] as IndexEntry, now, !retried.has(i))),
    );
    for (const [j, i] of alone.entries()) {
      const single = singles[j];
      if (single) results[i] = single;
    }
    await this.afterEntries(entries, results, alone, now);
    const expired: ExpiredGate[] = [];
    let failure: unknown;
    for (const result of results) {
      if (result?.status === 'rejected') failure ??= result.reason;
      else if (typeof result?.value === 'object') expired.push(result.value.gate);
    }
    // Every entry was tried; the expiries applied are durable and their resumes come due.
    if (failure !== undefined) throw toStoreError(failure, 'expire due gates');
    return expired;
  }

  /** The index updates and audit copies of the entries at `at`, as their results say. */
  private afterEntries(
    entries: readonly IndexEntry[],
    results: readonly (PromiseSettledResult<EntryResult> | undefined)[],
    at: readonly number[],
    now: number,
  ): Promise<void> {
    const done: ExpiryDone[] = [];
    const stale: IndexEntry[] = [];
    for (const i of at) {
      const result = results[i];
      const entry = entries[i];
      if (result?.status !== 'fulfilled' || entry === undefined) continue;
      if (result.value === 'stale') stale.push(entry);
      else if (typeof result.value === 'object') {
        const { gate, audit } = result.value;
        done.push({ view: gate.view, callId: gate.callId, pauseDecided: gate.pauseDecided, audit });
      }
    }
    if (done.length === 0 && stale.length === 0) return Promise.resolve();
    return this.indexes.afterExpiries(done, stale, now);
  }

  claimCardless(input: ClaimCardlessInput): Promise<string[]> {
    return this.indexes.claimCardless(input, input.limit ?? DEFAULT_LIMIT);
  }

  /**
   * Expires the first due entry of each pause in expire_gates calls (runBatch's parts), filling
   * `results` and applying each part's index updates as soon as it is settled; returns the
   * indexes of the entries to run alone: a pause's further entries (after the batch, so that
   * each runs on the pause as the batch left it), and those whose cached call ids were stale or
   * do not name the gate.
   */
  private async expireBatch(
    entries: readonly IndexEntry[],
    now: number,
    results: PromiseSettledResult<EntryResult>[],
    retried: Set<number>,
  ): Promise<number[]> {
    const decision = systemDecision(now);
    const alone: number[] = [];
    const batched: number[] = [];
    const calls: BatchCall[] = [];
    const pauses = new Set<string>();
    for (const [i, { pauseId, callId }] of entries.entries()) {
      const cached = this.cachedCallIds(pauseId);
      const callIds = cached ?? [callId];
      const gateIndex = callIds.indexOf(callId) + 1;
      if (pauses.has(pauseId) || gateIndex === 0) {
        alone.push(i);
        continue;
      }
      pauses.add(pauseId);
      const offer = this.offerFor(pauseId, callId, now, JSON.stringify(decision));
      const { sealAfter, sealHead, sealDigest } = offer;
      const args = [gateIndex, sealAfter, sealHead, sealDigest];
      calls.push({ pauseId, callIds, guessed: cached === undefined, args, offer });
      batched.push(i);
    }
    const head = [now, JSON.stringify(decision), this.retentionMs];
    await this.runBatch(EXPIRE_GATES, head, calls, async (outcomes, first) => {
      const part = batched.slice(first, first + outcomes.length);
      const settled = await Promise.allSettled(
        part.map(async (i, j) => {
          const outcome = outcomes[j];
          const entry = entries[i] as IndexEntry;
          if (outcome === undefined) throw unexpected(EXPIRE_GATES, 'NOT_FOUND');
          if (outcome instanceof StoreError) throw outcome;
          // Stale cached (or guessed) call ids: the pause alone, its call ids read afresh.
          if (outcome.code === 'KEYS_MISMATCH') return 'alone' as const;
          return this.settle(entry, outcome, now);
        }),
      );
      const finished: number[] = [];
      for (const [j, i] of part.entries()) {
        const result = settled[j];
        if (result === undefined) continue;
        if (result.status === 'fulfilled' && result.value === 'alone') {
          alone.push(i);
          retried.add(i);
        } else {
          results[i] = result as PromiseSettledResult<EntryResult>;
          finished.push(i);
        }
      }
      await this.afterEntries(entries, results, finished, now);
    });
    return alone;
  }

  /** Expires one entry's gate with expire_gate; `guess`: with no call ids cached, try its own. */
  private async expireEntry(entry: IndexEntry, now: number, guess: boolean): Promise<EntryResult> {
    const { pauseId, callId } = entry;
    const decision = systemDecision(now);
    const offer = this.offerFor(pauseId, callId, now, JSON.stringify(decision));
    const outcome = await this.onTypedPause(
      EXPIRE_GATE,
      pauseId,
      (callIds) => {
        const index = callIds.indexOf(callId);
        if (index < 0) return undefined;
        return { now, gateIndex: index + 1, decision, retentionMs: this.retentionMs, ...offer };
      },
      guess ? callId : undefined,
      offer,
    );
    return this.settle(entry, outcome, now);
  }

  /** The expiry's lines, sealed ahead when this replica knows the pause's chain and gates. */
  private offerFor(pauseId: string, callId: string, now: number, decision: string): SealOffer {
    const seen = this.chains.lastSeen(pauseId);
    if (seen === undefined) return NO_SEAL_OFFER;
    return this.chains.offer(
      pauseId,
      now,
      plannedExpiryEntries({ callId, decision }, seen.pending),
    );
  }

  /** What an entry's expire_gate answer means: `stale`, its entry is to be dropped; `kept`, left (or moved). */
  private async settle(
    entry: IndexEntry,
    outcome: PauseOutcome,
    now: number,
  ): Promise<EntryResult> {
    const { code, view } = outcome;
    if (code === 'NOT_FOUND') {
      // An entry without a pause may belong to a pause being created right now.
      return (await this.indexes.isOrphanExpiry(entry, now)) ? 'stale' : 'kept';
    }
    const reply = EXPIRE_GATE.decode(outcome);
    if (reply.code === 'NOT_PENDING') return 'stale';
    if (reply.code === 'NOT_DUE') {
      await this.indexes.rescheduleExpiry(entry, reply.expiresAt);
      return 'kept';
    }
    if (view === undefined) throw unexpected(EXPIRE_GATE.lua, code);
    const { state, pauseDecided } = reply;
    return { gate: { view, callId: entry.callId, state, pauseDecided }, audit: outcome.audit };
  }
}
