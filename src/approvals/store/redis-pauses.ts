import { type PauseView, type Reopened, viewVersion } from '../records.js';
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
import { assertNoHashTag } from './keys.js';
import { redisCall } from './redis-connection.js';
import type { RedisNudges } from './redis-nudges.js';
import {
  type PauseScriptContext,
  RedisPauseScripts,
  SCRIPTS,
  unexpected,
} from './redis-pause-scripts.js';
import { encodeGate, encodePause } from './redis-records.js';
import {
  assertSamePause,
  cancelDetail,
  checkNewPause,
  createdDetail,
  newGateNudges,
  newVote,
  pauseFactsOf,
  personDecision,
  recordedGates,
  reopenedDetail,
  systemDecision,
  UNDONE_WHY,
  voteDetail,
  withdrawDetail,
} from './rules.js';
import { CANCEL } from './scripts/cancel.lua.js';
import { scriptCodeName } from './scripts/codes.js';
import { plannedCreateEntries } from './scripts/create-pause.lua.js';
import { NO_SEAL_OFFER } from './scripts/pause-script.js';
import { chainOfRead } from './scripts/read-pause.lua.js';
import { REOPEN } from './scripts/reopen.lua.js';
import { plannedCardPostedEntries, SET_CARD_TS } from './scripts/set-card-ts.lua.js';
import { UNDO } from './scripts/undo.lua.js';
import { decodeVoteGate, plannedVoteAndClaimEntries, VOTE, VOTE_ALL } from './scripts/vote.lua.js';
import { WITHDRAW } from './scripts/withdraw.lua.js';
import { voteResultOf } from './vote-result.js';

/**
 * Pauses on Redis: recording one, reading it, and the decisions on its gates, each one per-pause
 * script (redis-pause-scripts.ts) followed by the global index updates it calls for.
 */
export class RedisPauses extends RedisPauseScripts implements PauseStore {
  constructor(
    context: PauseScriptContext,
    private readonly nudges: RedisNudges,
  ) {
    super(context);
  }

  async createPause(input: NewPause): Promise<CreatePauseResult> {
    const callIds = checkNewPause(input);
    assertNoHashTag('A pause id', input.id);
    const { id, now } = input;
    const gates = recordedGates(input.gates).map((gate) =>
      encodeGate(gate, now, input.adk.appName),
    );
    await Promise.all([
      this.indexes.beforeCreate(id, gates, now, input.card.ts !== undefined),
      this.nudges.beforeCreate(id, newGateNudges(input.gates, now)),
    ]);
    const pause = encodePause(input, callIds);
    const detail = createdDetail(callIds.length);
    const pauseFacts = pauseFactsOf(input);
    // A new pause's chain starts empty: its `created` line is known from the input alone.
    const whats = gates.map((gate) => [gate.callId, gate.auditFacts] as const);
    const offer = this.chains.offerNew(id, now, plannedCreateEntries(input.requester, detail), [
      ['', pauseFacts],
      ...whats,
    ]);
    const args: (string | number)[] = [
      now,
      pause.record,
      pause.cardTs,
      input.requester,
      detail,
      pauseFacts,
      offer.sealAfter,
      offer.sealHead,
      offer.sealDigest,
    ];
    for (const gate of gates) {
      args.push(gate.callId, gate.record, gate.policy, gate.expiresAt ?? '', gate.auditFacts);
    }
    const outcome = await this.runScript(SCRIPTS.createPause, id, callIds, args, offer);
    // Recorded before with the same call ids in another order: that is the same pause.
    const view = outcome.view ?? (await this.getPause(id));
    assertSamePause(id, view, callIds);
    this.remember(id, view.pause.callIds);
    const created = outcome.code === 'CREATED';
    // What each gate is, as its lines will carry it: so that its first vote can be sealed ahead.
    if (created) this.chains.learnWhat(id, whats);
    await this.indexes.apply(view, outcome.audit, now, this.indexes.afterCreate(view));
    return { kind: created ? 'created' : 'existed', view };
  }

  async getPause(pauseId: string): Promise<PauseView | undefined> {
    const outcome = await this.onPause(SCRIPTS.readPause, pauseId, () => ['']);
    const { view } = outcome;
    // The chain as read: this replica's next transition on the pause can seal its lines ahead.
    const chain = view && chainOfRead(outcome.info, view.pause.callIds);
    if (chain !== undefined) this.chains.learnRead(pauseId, chain);
    return view;
  }

  recentPause(pauseId: string): PauseView | undefined {
    return this.views.get(pauseId);
  }

  /**
   * One HGET of `version` per record, sent together, and no script: every record's version only
   * grows, so reads that are not one snapshot still answer rightly. A change that lands between
   * them is either seen (the sum is larger) or landed after that record was read, as if after
   * the whole check. A record gone (or a version not a number) counts as changed.
   */
  async changedSince(view: PauseView): Promise<boolean> {
    const { id, callIds } = view.pause;
    const keys = [this.keys.pause(id), ...callIds.map((callId) => this.keys.gate(id, callId))];
    const versions = await redisCall(`read the versions of ${keys[0]}`, () =>
      Promise.all(keys.map((key) => this.redis.hget(key, 'version'))),
    );
    let sum = 0;
    for (const version of versions) {
      if (version === null || !/^\d+$/.test(version)) return true;
      sum += Number(version);
    }
    return sum !== viewVersion(view);
  }

  async setCardTs(pauseId: string, ts: string, now: number): Promise<PauseView | undefined> {
    // Its line, sealed ahead when this replica knows the pause's chain (it recorded the pause).
    const offer = this.chains.offer(pauseId, now, plannedCardPostedEntries());
    const outcome = await this.onTypedPause(
      SET_CARD_TS,
      pauseId,
      () => ({ now, ts, ...offer }),
      undefined,
      offer,
    );
    const updates = outcome.view === undefined ? [] : this.indexes.afterCardPosted(pauseId);
    await this.indexes.apply(outcome.view, outcome.audit, now, updates);
    return outcome.view;
  }

  async vote(input: VoteInput): Promise<VoteResult> {
    const { pauseId, callId, voter, voterName, choice, payload, reason, now } = input;
    const decision = personDecision(voter, now, reason, voterName, input.onBehalfOf);
    const claim = input.resumeClaim;
    const marking = this.indexes.beforeVote(pauseId, claim ? now + claim.leaseMs : now);
    const detail = voteDetail(input);
    // This vote's lines (and its claim's), sealed ahead when this replica knows the pause's chain
    // and tally.
    const seen = this.chains.lastSeen(pauseId);
    const planned =
      seen &&
      plannedVoteAndClaimEntries(
        { voter, choice, callId, detail, decision: JSON.stringify(decision) },
        seen,
        claim && { ...claim, now },
      );
    const offer = planned === undefined ? NO_SEAL_OFFER : this.chains.offer(pauseId, now, planned);
    const outcome = await this.onTypedPause(
      VOTE,
      pauseId,
      (callIds) => {
        const index = callIds.indexOf(callId);
        if (index < 0) return undefined;
        return {
          now,
          gateIndex: index + 1,
          voter,
          choice,
          vote: newVote(input),
          payload,
          decision,
          expiry: systemDecision(now),
          retentionMs: this.retentionMs,
          detail,
          checkedGatesVersion: input.checkedGatesVersion ?? 0,
          claimOwner: claim?.owner ?? '',
          claimLeaseMs: claim?.leaseMs ?? 0,
          ...offer,
        };
      },
      callId,
      offer,
    );
    const view = outcome.view;
    if (view === undefined) return { kind: 'not_found' };
    const result = voteResultOf(VOTE.decode(outcome), view, callId);
    const decided = result.kind === 'decided' || result.kind === 'expired';
    const marked = await marking;
    const updates = decided
      ? this.indexes.afterDecision(view, now, [callId], result.pauseDecided, marked)
      : [];
    // Claimed: due when the lease lapses, as after claimResume (the mark said so already).
    if (result.kind === 'decided' && result.claimed && claim && !marked) {
      updates.push(...this.indexes.afterClaim(view, now + claim.leaseMs));
    }
    await this.indexes.apply(view, outcome.audit, now, updates);
    return result;
  }

  async voteAll(input: VoteAllInput): Promise<VoteAllResult> {
    const { pauseId, voter, voterName, choice, reason, now } = input;
    const decision = personDecision(voter, now, reason, voterName, input.onBehalfOf);
    const marking = this.indexes.beforeVote(pauseId, now);
    const outcome = await this.onTypedPause(VOTE_ALL, pauseId, (callIds) => {
      const gateIndexes = input.callIds.map((callId) => callIds.indexOf(callId) + 1);
      if (gateIndexes.length === 0 || gateIndexes.includes(0)) return undefined;
      return {
        now,
        voter,
        choice,
        vote: newVote({ ...input, callId: '' }),
        decision,
        expiry: systemDecision(now),
        retentionMs: this.retentionMs,
        detail: voteDetail(input),
        gateIndexes,
      };
    });
    const view = outcome.view;
    if (view === undefined) return { kind: 'not_found' };
    const info = VOTE_ALL.decode(outcome);
    const results = input.callIds.map((callId, i) => {
      const [code = '', first = '', second = ''] = info.slice(i * 3, i * 3 + 3);
      const name = scriptCodeName(Number(code));
      if (name === undefined) throw unexpected(VOTE_ALL.lua, 'CORRUPT');
      const reply = decodeVoteGate(VOTE_ALL.name, { code: name, info: [first, second] });
      return { callId, result: voteResultOf(reply, view, callId) };
    });
    const changed = results.flatMap(({ callId, result }) =>
      result.kind === 'decided' || result.kind === 'expired' ? [callId] : [],
    );
    const pauseDecided = view.gates.every((gate) => gate.state !== 'pending');
    const marked = await marking;
    const updates =
      changed.length === 0
        ? []
        : this.indexes.afterDecision(view, now, changed, pauseDecided, marked);
    await this.indexes.apply(view, outcome.audit, now, updates);
    return { kind: 'applied', view, results };
  }

  async cancel(input: CancelInput): Promise<CancelResult> {
    const { pauseId, by, reason, now } = input;
    const decision = personDecision(by, now, reason);
    const outcome = await this.onTypedPause(CANCEL, pauseId, () => ({
      now,
      by,
      decision,
      retentionMs: this.retentionMs,
      detail: cancelDetail(reason),
    }));
    const view = outcome.view;
    if (view === undefined) return { kind: 'not_found' };
    if (outcome.code === 'NOTHING_PENDING') return { kind: 'nothing_pending', view };
    if (outcome.code !== 'CANCELLED') throw unexpected(CANCEL.lua, outcome.code);
    const updates = this.indexes.afterDecision(view, now, outcome.info, false);
    await this.indexes.apply(view, outcome.audit, now, updates);
    return { kind: 'cancelled', view, callIds: outcome.info };
  }

  async withdraw(input: WithdrawInput): Promise<WithdrawResult> {
    const { pauseId, by, byName, reason, now } = input;
    // As a vote does: the resume is marked due first, so a crash after the script is swept up.
    await this.indexes.beforeVote(pauseId, now);
    const outcome = await this.onTypedPause(WITHDRAW, pauseId, () => ({
      now,
      by,
      decision: personDecision(by, now, reason, byName),
      detail: withdrawDetail(reason),
    }));
    const view = outcome.view;
    if (view === undefined) return { kind: 'not_found' };
    if (outcome.code === 'NOTHING_PENDING') return { kind: 'nothing_pending', view };
    if (outcome.code !== 'WITHDRAWN') throw unexpected(WITHDRAW.lua, outcome.code);
    const updates = this.indexes.afterDecision(view, now, outcome.info, true);
    await this.indexes.apply(view, outcome.audit, now, updates);
    return { kind: 'withdrawn', view, callIds: outcome.info };
  }

  async undo(input: UndoInput): Promise<UndoResult> {
    const { pauseId, by, admin, now } = input;
    const reopened: Reopened = { at: now, voter: by, why: UNDONE_WHY, kind: 'undo' };
    const outcome = await this.onTypedPause(UNDO, pauseId, () => ({
      now,
      by,
      any: admin,
      reopened,
      detail: UNDONE_WHY,
    }));
    const view = outcome.view;
    if (view === undefined) return { kind: 'not_found' };
    if (outcome.code === 'TOO_LATE') return { kind: 'too_late', view };
    if (outcome.code === 'NOT_DECIDER') return { kind: 'not_decider', view };
    if (outcome.code !== 'UNDONE') throw unexpected(UNDO.lua, outcome.code);
    const updates = this.indexes.afterReopen(view, outcome.info, now);
    await this.indexes.apply(view, outcome.audit, now, updates);
    return { kind: 'undone', view, callIds: outcome.info };
  }

  async reopen(input: ReopenInput): Promise<ReopenResult> {
    const { pauseId, owner, voter, why, now } = input;
    const outcome = await this.onTypedPause(REOPEN, pauseId, (callIds) => ({
      now,
      owner,
      reopened: { at: now, voter, why },
      detail: reopenedDetail(voter, why),
      gateIndexes: input.callIds.map((callId) => callIds.indexOf(callId) + 1).filter((i) => i > 0),
    }));
    const view = outcome.view;
    if (view === undefined) return { kind: 'not_found' };
    if (outcome.code === 'LOST_LEASE') return { kind: 'lost_lease', view };
    if (outcome.code !== 'REOPENED') throw unexpected(REOPEN.lua, outcome.code);
    const updates = this.indexes.afterReopen(view, outcome.info, now);
    await this.indexes.apply(view, outcome.audit, now, updates);
    return { kind: 'reopened', view, callIds: outcome.info };
  }
}
