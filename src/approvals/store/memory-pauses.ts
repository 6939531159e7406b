import { type PauseView, viewVersion } from '../records.js';
import type {
  CancelInput,
  CancelResult,
  CreatePauseResult,
  NewPause,
  PauseStore,
  ReopenInput,
  ReopenResult,
  UndoInput,
  UndoResult,
  VoteAllInput,
  VoteAllResult,
  VoteInput,
  VoteResult,
  WithdrawInput,
  WithdrawResult,
} from '../store-roles/pauses.js';
import { cancel } from './memory/cancel.js';
import { createPause } from './memory/create-pause.js';
import { viewOf } from './memory/prelude.js';
import { reopen } from './memory/reopen.js';
import { setCardTs } from './memory/set-card-ts.js';
import { undo } from './memory/undo.js';
import { voteAll, voteIfUnchanged } from './memory/vote.js';
import { withdraw } from './memory/withdraw.js';
import type { MemoryNudges } from './memory-nudges.js';
import type { MemoryPauseBook } from './memory-pause-book.js';
import {
  assertSamePause,
  cancelDetail,
  checkNewPause,
  createdDetail,
  newGateNudges,
  newVote,
  personDecision,
  recordedGates,
  reopenedDetail,
  systemDecision,
  UNDONE_WHY,
  voteDetail,
  withdrawDetail,
} from './rules.js';
import { NO_SEAL_OFFER } from './scripts/pause-script.js';
import { voteResultOf } from './vote-result.js';

/**
 * Pauses in memory: each transition is the twin of one Lua script (memory/, same names, same
 * order of checks), followed by what redis-pauses.ts does around it.
 */
export class MemoryPauses implements PauseStore {
  constructor(
    private readonly book: MemoryPauseBook,
    private readonly nudges: MemoryNudges,
  ) {}

  async createPause(input: NewPause): Promise<CreatePauseResult> {
    const callIds = checkNewPause(input);
    const { id, now } = input;
    this.book.purge(now);
    this.nudges.add(id, newGateNudges(input.gates, now));
    const { created, run } = createPause(
      this.book.pauses,
      { ...input, gates: recordedGates(input.gates) },
      callIds,
      createdDetail(callIds.length),
    );
    const view = run.view();
    assertSamePause(id, view, callIds);
    this.book.afterCreate(view);
    this.book.mirror(run);
    return { kind: created ? 'created' : 'existed', view };
  }

  async getPause(pauseId: string): Promise<PauseView | undefined> {
    return this.recentPause(pauseId);
  }

  /** The pause as it is: this store is the only replica, so what it saw last is never stale. */
  recentPause(pauseId: string): PauseView | undefined {
    const entry = this.book.pauses.get(pauseId);
    return entry && viewOf(entry);
  }

  async changedSince(view: PauseView): Promise<boolean> {
    const entry = this.book.pauses.get(view.pause.id);
    if (entry === undefined) return true;
    // Versions only: no copy of the pause (viewOf clones it).
    const current = { pause: entry.pause, gates: entry.gates.map((gate) => gate.record) };
    return viewVersion(current) !== viewVersion(view);
  }

  async setCardTs(pauseId: string, ts: string, now: number): Promise<PauseView | undefined> {
    const run = this.book.load(pauseId, now);
    if (!run) return undefined;
    // The twin seals every line at once: nothing to seal ahead.
    setCardTs(run, { now, ts, ...NO_SEAL_OFFER });
    this.book.mirror(run);
    return run.view();
  }

  async vote(input: VoteInput): Promise<VoteResult> {
    const { pauseId, callId, voter, voterName, choice, payload, reason, now } = input;
    const run = this.book.load(pauseId, now);
    const gate = run?.gate(callId);
    if (!run || !gate) return { kind: 'not_found' };
    const reply = voteIfUnchanged(run, gate, {
      now,
      gateIndex: run.entry.pause.callIds.indexOf(callId) + 1,
      voter,
      choice,
      vote: newVote(input),
      payload,
      decision: personDecision(voter, now, reason, voterName, input.onBehalfOf),
      expiry: systemDecision(now),
      retentionMs: this.book.retentionMs,
      detail: voteDetail(input),
      checkedGatesVersion: input.checkedGatesVersion ?? 0,
      claimOwner: input.resumeClaim?.owner ?? '',
      claimLeaseMs: input.resumeClaim?.leaseMs ?? 0,
      // The twin seals every line at once: nothing to seal ahead.
      ...NO_SEAL_OFFER,
    });
    this.book.mirror(run);
    return voteResultOf(reply, run.view(), callId);
  }

  async voteAll(input: VoteAllInput): Promise<VoteAllResult> {
    const { pauseId, voter, voterName, choice, reason, now } = input;
    const run = this.book.load(pauseId, now);
    const gates = input.callIds.map((callId) => run?.gate(callId));
    if (!run || gates.length === 0) return { kind: 'not_found' };
    const found = gates.filter((gate) => gate !== undefined);
    if (found.length < gates.length) return { kind: 'not_found' };
    const callIds = run.entry.pause.callIds;
    const replies = voteAll(run, found, {
      now,
      voter,
      choice,
      vote: newVote({ ...input, callId: '' }),
      decision: personDecision(voter, now, reason, voterName, input.onBehalfOf),
      expiry: systemDecision(now),
      retentionMs: this.book.retentionMs,
      detail: voteDetail(input),
      gateIndexes: input.callIds.map((callId) => callIds.indexOf(callId) + 1),
    });
    this.book.mirror(run);
    // Every outcome carries the pause as the whole step left it, as the script's reply does.
    const view = run.view();
    const results = input.callIds.map((callId, i) => {
      const reply = replies[i];
      if (reply === undefined) throw new Error(`vote_all twin answered no gate ${callId}`);
      return { callId, result: voteResultOf(reply, view, callId) };
    });
    return { kind: 'applied', view, results };
  }

  async cancel(input: CancelInput): Promise<CancelResult> {
    const { pauseId, by, reason, now } = input;
    const run = this.book.load(pauseId, now);
    if (!run) return { kind: 'not_found' };
    const decision = personDecision(by, now, reason);
    const result = cancel(run, {
      now,
      by,
      decision,
      retentionMs: this.book.retentionMs,
      detail: cancelDetail(reason),
    });
    this.book.mirror(run);
    return result;
  }

  async withdraw(input: WithdrawInput): Promise<WithdrawResult> {
    const { pauseId, by, byName, reason, now } = input;
    const run = this.book.load(pauseId, now);
    if (!run) return { kind: 'not_found' };
    const decision = personDecision(by, now, reason, byName);
    const result = withdraw(run, { now, by, decision, detail: withdrawDetail(reason) });
    this.book.mirror(run);
    return result;
  }

  async undo(input: UndoInput): Promise<UndoResult> {
    const { pauseId, by, admin, now } = input;
    const run = this.book.load(pauseId, now);
    if (!run) return { kind: 'not_found' };
    const reopened = { at: now, voter: by, why: UNDONE_WHY, kind: 'undo' as const };
    const result = undo(run, { now, by, any: admin, reopened, detail: UNDONE_WHY });
    this.book.mirror(run);
    if (result.kind === 'undone') this.book.afterCreate(result.view);
    return result;
  }

  async reopen(input: ReopenInput): Promise<ReopenResult> {
    const { pauseId, owner, callIds, voter, why, now } = input;
    const run = this.book.load(pauseId, now);
    if (!run) return { kind: 'not_found' };
    const detail = reopenedDetail(voter, why);
    const gateIndexes = callIds
      .map((callId) => run.entry.pause.callIds.indexOf(callId) + 1)
      .filter((i) => i > 0);
    const reopened = { at: now, voter, why };
    const result = reopen(run, { now, owner, reopened, detail, gateIndexes });
    this.book.mirror(run);
    if (result.kind === 'reopened') this.book.afterCreate(result.view);
    return result;
  }
}
