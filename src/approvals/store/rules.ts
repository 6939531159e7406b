import type { JsonValue } from '../../json.js';
import { gateAuditFacts, pauseAuditFacts } from '../audit-facts.js';
import {
  type GateDecision,
  type GatePolicy,
  type GateState,
  type PauseView,
  SYSTEM_ACTOR,
  type Vote,
} from '../records.js';
import type { NudgeKind } from '../store-roles/nudges.js';
import type { GrantEventInput } from '../store-roles/pause-reports.js';
import type { NewGate, NewPause, VoteInput } from '../store-roles/pauses.js';
import type { PendingIndex } from '../store-roles/pending-queries.js';

/**
 * The rules both stores follow, whatever they store in: defaults, what a state means, what a
 * vote or an expiry leads to, the checks of a new pause, and the audit vocabulary. The Redis
 * scripts receive the data parts as Lua tables (scripts/rules.lua.ts), so each is written once.
 */

// --- defaults ----------------------------------------------------------------------------------

/** How long a finished pause (resumed, failed, abandoned) is kept: 7 days. */
export const DEFAULT_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;
/** How many entries the in-process store keeps of its store-wide audit (Redis trims by age). */
export const DEFAULT_AUDIT_MAXLEN = 100_000;
/** Items per listing, expiry batch or audit read when the caller names no limit. */
export const DEFAULT_LIMIT = 100;

// --- states ------------------------------------------------------------------------------------

type VoteChoice = Vote['choice'];
type OnExpiry = GatePolicy['onExpiry'];

/** The state a deciding vote leaves its gate in (one reject decides; approvals at the quorum). */
export const VOTE_OUTCOME = {
  approve: 'approved',
  reject: 'rejected',
} as const satisfies Record<VoteChoice, GateState>;

/**
 * The state an expired gate is left in, per its policy: `expired` (answered as a rejection, or as
 * a time-out for `timeout`) or `cancelled`, which abandons the whole pause.
 */
export const EXPIRY_OUTCOME = {
  reject: 'expired',
  timeout: 'expired',
  cancel: 'cancelled',
} as const satisfies Record<OnExpiry, GateState>;

/** A gate is due at its `expiresAt` exactly: a vote at that instant applies the expiry. */
export function isDue(expiresAt: number | undefined, now: number): boolean {
  return expiresAt !== undefined && now >= expiresAt;
}

// --- a new pause -------------------------------------------------------------------------------

/** Checks what both stores rely on and returns the call ids, in the order ADK raised them. */
export function checkNewPause(input: NewPause): string[] {
  if (input.id === '') throw new Error('A pause id must not be empty');
  const callIds = input.gates.map((gate) => gate.confirmationCallId);
  if (callIds.length === 0) throw new Error(`Pause ${input.id} has no gates`);
  if (new Set(callIds).size !== callIds.length) {
    throw new Error(`Pause ${input.id} has the same confirmation call id twice`);
  }
  return callIds;
}

/**
 * The gates as recorded. An input gate is decided by one answer (two people's answers cannot be
 * merged, so its quorum is 1), and when its time runs out the pause is abandoned: no answer can
 * stand in for a person's, and ADK has no "no" to an input request.
 */
export function recordedGates(gates: readonly NewGate[]): NewGate[] {
  return gates.map((gate) => {
    if (gate.kind !== 'input') return gate;
    if (gate.input === undefined) {
      throw new Error(`Input gate ${gate.confirmationCallId} carries no input request`);
    }
    return { ...gate, policy: { ...gate.policy, quorum: 1, onExpiry: 'cancel' } };
  });
}

/**
 * The pause found under a new pause's id must hold the same call ids, in any order: then it is
 * the same pause recorded again. Anything else (or nothing found) is an error.
 */
export function assertSamePause(
  pauseId: string,
  found: PauseView | undefined,
  callIds: readonly string[],
): asserts found is PauseView {
  const stored = found?.pause.callIds ?? [];
  const same = stored.length === callIds.length && stored.every((id) => callIds.includes(id));
  if (!same) throw new Error(`Pause ${pauseId} exists with other call ids`);
}

/** Absent: the gate never expires. */
export function gateExpiresAt(policy: GatePolicy, createdAt: number): number | undefined {
  return policy.expiresInMs === undefined ? undefined : createdAt + policy.expiresInMs;
}

/**
 * What a gate's policy schedules besides its expiry: one reminder of the approvers who have not
 * voted (`remindAfter`) and one escalation (`escalateAfter`), each due once at the time given.
 */
export function gateNudges(
  policy: GatePolicy,
  createdAt: number,
): { kind: NudgeKind; dueAt: number }[] {
  const nudges: { kind: NudgeKind; dueAt: number }[] = [];
  if (policy.remindAfterMs !== undefined) {
    nudges.push({ kind: 'remind', dueAt: createdAt + policy.remindAfterMs });
  }
  if (policy.escalateAfterMs !== undefined && policy.escalateTo !== undefined) {
    nudges.push({ kind: 'escalate', dueAt: createdAt + policy.escalateAfterMs });
  }
  return nudges;
}

/** The nudges of a new pause's gates, recorded at `now`. */
export function newGateNudges(
  gates: readonly NewGate[],
  now: number,
): { callId: string; kind: NudgeKind; dueAt: number }[] {
  return gates.flatMap((gate) =>
    gateNudges(gate.policy, now).map((nudge) => ({ callId: gate.confirmationCallId, ...nudge })),
  );
}

// --- votes and decisions -----------------------------------------------------------------------

/** The vote as the gate records it: no clock but the caller's, no empty fields. */
export function newVote(input: VoteInput): Vote {
  const { voter, choice, payload, reason, now, onBehalfOf } = input;
  return {
    voter,
    choice,
    at: now,
    ...(payload === undefined ? {} : { payload }),
    ...(reason === undefined ? {} : { reason }),
    ...(onBehalfOf === undefined ? {} : { onBehalfOf }),
  };
}

/** What a person's vote or cancel records as the decision; a payload comes from the votes. */
export function personDecision(
  by: string,
  at: number,
  reason: string | undefined,
  byName?: string,
  onBehalfOf?: string,
): GateDecision {
  return {
    by,
    ...(byName === undefined ? {} : { byName }),
    at,
    ...(reason === undefined ? {} : { reason }),
    ...(onBehalfOf === undefined ? {} : { onBehalfOf }),
  };
}

/** An expiry's decision. */
export function systemDecision(at: number): GateDecision {
  return { by: SYSTEM_ACTOR, at };
}

// --- audit vocabulary --------------------------------------------------------------------------

export const AUDIT_EVENTS = [
  'created',
  'card_posted',
  'voted',
  'approved',
  'rejected',
  'expired',
  'cancelled',
  'abandoned',
  'withdrawn',
  'resume_claimed',
  'resumed',
  'resume_failed',
  'resume_refused',
  'reopened',
  'undone',
  'granted',
  'grant_revoked',
  'outcome_reported',
  'delivery',
] as const;
export type AuditEvent = (typeof AUDIT_EVENTS)[number];

/** How a resume ended, as the lease owner reports it, and the audit event that records it. */
export const FINISH_EVENT = {
  resumed: 'resumed',
  failed: 'resume_failed',
  refused: 'resume_refused',
} as const satisfies Record<'resumed' | 'failed' | 'refused', AuditEvent>;
export type FinishOutcome = keyof typeof FINISH_EVENT;

/**
 * The facts an entry's `detail` may state, as `name=value` separated by spaces: counts and
 * lengths, never argument, payload, reason or error values.
 */
export const AUDIT_FACTS = [
  'gates',
  'choice',
  'payload',
  'reason_length',
  'approvals',
  'outcome',
  'cause',
  'attempt',
  'lease_ms',
  'took_over_from',
  'error_length',
  'status',
  'detail_length',
  'batch',
  'grant',
  'scope',
  'uses',
  'expires_at',
  'on_behalf_of',
] as const;
export type AuditFact = (typeof AUDIT_FACTS)[number];
export const FACT_JOIN = '=';
export const FACT_SEPARATOR = ' ';
/** A fact of several numbers, e.g. `approvals=2/3`. */
export const FACT_PARTS = '/';

type FactValue = string | number | readonly number[] | undefined;

/** `name=value` for each fact with a value, in the order given. */
export function auditDetail(facts: readonly (readonly [AuditFact, FactValue])[]): string {
  return facts
    .flatMap(([name, value]) => {
      if (value === undefined) return [];
      const text = typeof value === 'object' ? value.join(FACT_PARTS) : String(value);
      return [`${name}${FACT_JOIN}${text}`];
    })
    .join(FACT_SEPARATOR);
}

export function createdDetail(gateCount: number): string {
  return auditDetail([['gates', gateCount]]);
}

export function voteDetail(vote: {
  choice: VoteChoice;
  payload?: JsonValue;
  reason?: string;
  batch?: number;
  onBehalfOf?: string;
}): string {
  return auditDetail([
    ['choice', vote.choice],
    ['payload', vote.payload === undefined ? undefined : 'yes'],
    ['reason_length', vote.reason?.length],
    ['batch', vote.batch],
    ['on_behalf_of', vote.onBehalfOf],
  ]);
}

export function approvedDetail(approvals: number, quorum: number): string {
  return auditDetail([['approvals', [approvals, quorum]]]);
}

/** The `expired` entry's detail: which outcome the gate's policy chose. */
export function expiredDetail(state: GateState): string {
  return auditDetail([['outcome', state]]);
}

/** The detail of the gates cancelled because another gate's expiry abandoned the pause. */
export const EXPIRY_CANCEL_DETAIL = auditDetail([['cause', 'expiry']]);

export function cancelDetail(reason: string | undefined): string {
  return auditDetail([['reason_length', reason?.length]]);
}

/** The `withdrawn` entries' detail: how long a reason was given, never the reason. */
export function withdrawDetail(reason: string | undefined): string {
  return auditDetail([['reason_length', reason?.length]]);
}

export function claimDetail(claim: {
  attempt: number;
  leaseMs: number;
  tookOverFrom: string | undefined;
}): string {
  return auditDetail([
    ['attempt', claim.attempt],
    ['lease_ms', claim.leaseMs],
    ['took_over_from', claim.tookOverFrom],
  ]);
}

export function resumeFailedDetail(error: string): string {
  return auditDetail([['error_length', error.length]]);
}

/** A pause-trail entry written outside the transition scripts (notes), in the scripts' format. */
export interface NoteAuditEntry {
  /** A string, as the Lua scripts write it. */
  at: string;
  event: AuditEvent;
  actor: string;
  callId?: string;
  detail: string;
}

/** The trail entry of an outcome the agent reported: its status, never its detail text. */
export function outcomeAudit(
  outcome: { status: string; detail?: string; at: number },
  actor: string,
  callId: string,
): NoteAuditEntry {
  return {
    at: String(outcome.at),
    event: 'outcome_reported',
    actor,
    callId,
    detail: auditDetail([
      ['status', outcome.status],
      ['detail_length', outcome.detail?.length],
    ]),
  };
}

/** The trail entry of a handed-over decision the agent refused: the error's length, never its text. */
export function handOverRefusedAudit(actor: string, error: string, at: number): NoteAuditEntry {
  return { at: String(at), event: FINISH_EVENT.refused, actor, detail: resumeFailedDetail(error) };
}

/** The trail entry of a webhook delivery attempt: its state and attempt, never the error text. */
export function deliveryAudit(
  delivery: { state: string; attempts: number; lastError?: string; at: number },
  actor: string,
): NoteAuditEntry {
  return {
    at: String(delivery.at),
    event: 'delivery',
    actor,
    detail: auditDetail([
      ['status', delivery.state],
      ['attempt', delivery.attempts],
      ['error_length', delivery.lastError?.length],
    ]),
  };
}

/** The trail entry of a grant given on a gate's card, or revoked: which, its scope, its uses. */
export function grantAudit(input: GrantEventInput): NoteAuditEntry {
  return {
    at: String(input.at),
    event: input.event,
    actor: input.actor,
    callId: input.callId,
    detail: auditDetail([
      ['grant', input.grantId],
      ['scope', input.scope],
      ['expires_at', input.expiresAt],
      ['uses', input.uses],
    ]),
  };
}

// --- pending indexes ---------------------------------------------------------------------------

/** The pending indexes one gate of the pause is listed in while pending (see `PendingIndex`). */
export function pendingIndexesOf(view: PauseView, callId: string): PendingIndex[] {
  const gate = view.gates.find((g) => g.confirmationCallId === callId);
  const indexes: PendingIndex[] = [{ kind: 'requester', id: view.pause.requester }];
  // Those it escalates to are listed from the start: a listing checks who may decide now.
  const approvers = [...(gate?.policy.approvers ?? []), ...(gate?.policy.escalateTo ?? [])];
  for (const approver of approvers) {
    if (approver.kind === 'user') indexes.push({ kind: 'user', id: approver.id });
    else if (approver.kind === 'usergroup') indexes.push({ kind: 'usergroup', id: approver.id });
    else indexes.push({ kind: 'channel_members' });
  }
  const names = new Set<string>();
  return indexes.filter((index) => {
    const name = pendingIndexName(index);
    if (names.has(name)) return false;
    names.add(name);
    return true;
  });
}

/** One name per index, the same in both stores: `user:U1`, `channel-members`, … */
export function pendingIndexName(index: PendingIndex): string {
  return index.kind === 'channel_members' ? 'channel-members' : `${index.kind}:${index.id}`;
}

/** What the trail records of a new pause as a whole (audit-facts.ts). */
export function pauseFactsOf(input: NewPause): string {
  return pauseAuditFacts({
    app: input.adk.appName,
    userId: input.adk.userId,
    sessionId: input.adk.sessionId,
    source: input.external === undefined ? 'agent' : 'api',
  });
}

/** What the trail records of a new gate: its app, tool, arguments (redacted) and rule. */
export function gateFactsOf(gate: NewGate, app: string): string {
  return gateAuditFacts({
    app,
    tool: gate.originalCall.name,
    args: gate.originalCall.args,
    policy: gate.policy,
  });
}

/** Trail events that decide a gate: what a person's "recent decisions" lists. */
export const DECIDING_EVENTS: ReadonlySet<string> = new Set<AuditEvent>([
  'approved',
  'rejected',
  'expired',
  'cancelled',
  'withdrawn',
]);

/**
 * The entries of one change that people's recent decisions list: each gate's deciding entry, and
 * a vote that did not decide (toward a quorum); a deciding vote is listed by the decision it made.
 */
export function recentEntries<T extends { event: string; actor: string; callId?: string }>(
  audit: readonly T[],
): T[] {
  return audit.filter((entry, index) => {
    if (!entry.callId) return false;
    if (DECIDING_EVENTS.has(entry.event)) return true;
    if (entry.event !== 'voted') return false;
    return !audit
      .slice(index + 1)
      .some(
        (later) =>
          DECIDING_EVENTS.has(later.event) &&
          later.callId === entry.callId &&
          later.actor === entry.actor,
      );
  });
}

/** Decisions kept per person for their App Home (by them, or on their requests). */
export const RECENT_DECISIONS_MAX = 50;
/**
 * How far past RECENT_DECISIONS_MAX a person's list on Redis may grow before it is cut back to it:
 * one LTRIM per that many items rather than one per write. Reads never show more than the max.
 */
export const RECENT_DECISIONS_SLACK = 16;

/** A person's recent decisions are forgotten this long after the last one. */
export const RECENT_DECISIONS_TTL_MS = 30 * 24 * 60 * 60 * 1000;

/** Whom a deciding entry concerns: its actor and the pause's requester, when they are people. */
export function recentDecisionHolders(actor: string, requester: string): string[] {
  return [...new Set([actor, requester])].filter((id) => /^[UW][A-Z0-9]+$/.test(id));
}

/** The audit detail of a gate sent back by the re-check: whose approval, and why. */
export function reopenedDetail(voter: string, why: string): string {
  return `approval of ${voter} no longer holds: ${why}`;
}

/** Why an undone gate is pending again (its `reopened.why` and audit detail). */
export const UNDONE_WHY = 'undone within its undo window, before it ran';
