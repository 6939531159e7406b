import { gateKind } from '../../adk/gate.js';
import { deciderOf } from '../../approvals/deciders.js';
import { formatDuration, isEscalated } from '../../approvals/policy.js';
import type {
  Approver,
  GateDecision,
  GatePolicy,
  GateRecord,
  Vote,
} from '../../approvals/records.js';
import type { JsonValue } from '../../json.js';
import { escapeLine, escapeWithin, inlineCode } from '../codecs/escape.js';
import { slackDate, usergroupMention, userMention } from '../codecs/mentions.js';
import { gateOutcome, OUTCOME_EMOJI, outcomeOf } from './outcome-words.js';
import { type Asking, mayVerb } from './request-words.js';

/**
 * The sentences that describe one gate on a card: who may approve, how far the votes are, when
 * it expires and how it was decided. Each is mrkdwn with every untrusted part escaped, and
 * bounded by the length it is given.
 */

export function toolName(gate: GateRecord, max = 80): string {
  return inlineCode(gate.originalCall.name, max);
}

/** "a, b, c and 4 more" within `max` characters (or "7 in all" when not even one fits). */
export function listWithin(items: readonly string[], max: number): string {
  const shown: string[] = [];
  let length = 0;
  for (const [index, item] of items.entries()) {
    const rest = items.length - index - 1;
    const tail = rest > 0 ? ` and ${rest} more`.length : 0;
    const add = (shown.length > 0 ? 2 : 0) + item.length;
    if (length + add + tail > max) break;
    shown.push(item);
    length += add;
  }
  const hidden = items.length - shown.length;
  if (hidden === 0) return shown.join(', ');
  if (shown.length === 0) return `${hidden} in all`;
  return `${shown.join(', ')} and ${hidden} more`;
}

/** `channel` names the members of the card's channel; `where` says how to call that channel. */
export function approverName(approver: Approver, where = 'this channel'): string {
  switch (approver.kind) {
    case 'user':
      return userMention(approver.id);
    case 'usergroup':
      return usergroupMention(approver.id);
    case 'channel':
      return `members of ${where}`;
  }
}

export function nobodyMayApprove(policy: GatePolicy, asking: Asking = 'approval'): string {
  const verb = mayVerb(asking);
  const outcome = asking === 'input' ? 'it cannot be answered' : 'it cannot be approved';
  return `:no_entry: Nobody may ${verb} this under the current policy (rule ${inlineCode(policy.rule, 60)}): ${outcome}.`;
}

/** Who stands in for whom under hand-overs while away: delegator id → the delegate's. */
export type StandIns = ReadonlyMap<string, string>;
export const NO_STAND_INS: StandIns = new Map();

/**
 * "Who may approve: <@U1>, <!subteam^S1> · 2 approvals needed · not the requester"; for a
 * question, "Who may answer: …".
 */
export function approversText(
  policy: GatePolicy,
  max: number,
  asking: Asking = 'approval',
  standIns: StandIns = NO_STAND_INS,
): string {
  if (policy.approvers.length === 0) return nobodyMayApprove(policy, asking);
  const needed = asking === 'input' ? 'answers' : 'approvals';
  const facts = [
    policy.quorum > 1 ? `${policy.quorum} ${needed} needed` : '',
    policy.selfApproval ? '' : 'not the requester',
  ].filter((fact) => fact !== '');
  const suffix = facts.map((fact) => ` · ${fact}`).join('');
  const prefix = `Who may ${mayVerb(asking)}: `;
  const names = policy.approvers.map((approver) => {
    const standIn = approver.kind === 'user' ? standIns.get(approver.id) : undefined;
    // A rule that says `delegation: false` is decided by its approvers themselves.
    if (standIn === undefined || approver.kind !== 'user' || policy.delegation === false) {
      return approverName(approver);
    }
    return `${userMention(standIn)} (for ${userMention(approver.id)})`;
  });
  return `${prefix}${listWithin(names, max - prefix.length - suffix.length)}${suffix}`;
}

export function approvalsOf(gate: GateRecord): Vote[] {
  return gate.votes.filter((vote) => vote.choice === 'approve');
}

/** "1 of 2 approvals: <@U1>", or nothing while a single approval decides and none came yet. */
export function progressText(gate: GateRecord, max: number): string | undefined {
  const approvals = approvalsOf(gate);
  const quorum = gate.policy.quorum;
  if (quorum <= 1 && approvals.length === 0) return undefined;
  const head = `${approvals.length} of ${quorum} approval${quorum === 1 ? '' : 's'}`;
  if (approvals.length === 0) return head;
  const voters = approvals.map(voterWords);
  return `${head}: ${listWithin(voters, max - head.length - 2)}`;
}

/**
 * ":leftwards_arrow_with_hook: Sent back for a new decision: <@U1>'s approval no longer holds (why)":
 * the re-check before the resume refused it, and nothing was sent; while the gate is pending.
 */
export function reopenedText(gate: GateRecord, max: number): string | undefined {
  if (gate.state !== 'pending' || gate.reopened === undefined) return undefined;
  if (gate.reopened.kind === 'undo') {
    return `:leftwards_arrow_with_hook: Undone by ${userMention(gate.reopened.voter)} before it ran: waiting for a new decision`;
  }
  const head = `:leftwards_arrow_with_hook: Sent back for a new decision, nothing was sent to the agent: ${userMention(gate.reopened.voter)}’s approval no longer holds (`;
  return `${head}${escapeWithin(gate.reopened.why, Math.max(20, max - head.length - 1))})`;
}

/** What happens when nobody decides in time, in the words of the card and the refusals. */
export function expiryOutcome(onExpiry: GatePolicy['onExpiry']): string {
  switch (onExpiry) {
    case 'reject':
      return 'rejected automatically';
    case 'timeout':
      return 'reported to the agent as timed out';
    case 'cancel':
      return 'cancelled';
  }
}

/** "Expires <date> — then rejected automatically"; nothing when the gate never expires. */
export function expiryText(gate: GateRecord, now: number): string | undefined {
  if (gate.expiresAt === undefined) return undefined;
  const outcome = expiryOutcome(gate.policy.onExpiry);
  return gate.expiresAt > now
    ? `Expires ${slackDate(gate.expiresAt)} — then ${outcome}`
    : `Due since ${slackDate(gate.expiresAt)} — being ${outcome}`;
}

/**
 * "Escalates to <!subteam^S1> after 10m" while waiting for it; "Escalated to … after 10m" from
 * then on (the same instant the escalation group may approve); nothing without an escalation.
 */
export function escalationText(gate: GateRecord, now: number): string | undefined {
  const { escalateAfterMs, escalateTo } = gate.policy;
  if (escalateAfterMs === undefined || escalateTo === undefined || escalateTo.length === 0) {
    return undefined;
  }
  const to = listWithin(
    escalateTo.map((approver) => approverName(approver)),
    200,
  );
  const after = formatDuration(escalateAfterMs);
  return isEscalated(gate.policy, gate.createdAt, now)
    ? `:rotating_light: Escalated to ${to} after ${after}`
    : `Escalates to ${to} after ${after}`;
}

/** "a, b and c" */
export function andList(items: readonly string[]): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}

/**
 * Who decided: a person's mention, the policy's rule or a grant (escaped, as code), the agent
 * (its API key), or `the system`. The same words on the card, in the thread and on the Home.
 */
export function actor(by: string): string {
  const decider = deciderOf(by);
  switch (decider.kind) {
    case 'expiry':
      return 'the system';
    case 'stand_down':
      return 'the stand-down (the alert resolved)';
    case 'policy':
      return `policy rule ${inlineCode(decider.id, 64)}`;
    case 'grant':
      return `grant ${inlineCode(decider.id, 40)}`;
    case 'agent':
      return `the agent (API key ${inlineCode(decider.id, 64)})`;
    case 'person':
      return userMention(decider.id);
  }
}

/** "<@CAROL> for <@BOB>" when Carol voted under Bob's hand-over; else the voter. */
export function voterWords(vote: Pick<Vote, 'voter' | 'onBehalfOf'>): string {
  const who = actor(vote.voter);
  return vote.onBehalfOf === undefined ? who : `${who} for ${userMention(vote.onBehalfOf)}`;
}

/** Who decided, as `voterWords` says a vote's author. */
export function deciderWords(decision: Pick<GateDecision, 'by' | 'onBehalfOf'>): string {
  return voterWords({ voter: decision.by, onBehalfOf: decision.onBehalfOf });
}

/**
 * Why a person is asked: the rule (by name) and its condition as written, the rule's risk, and,
 * when the condition could not be evaluated, that it was asked for that reason. Nothing for the
 * defaults with no risk set (every call is asked there: nothing to explain).
 */
export function whyText(policy: GatePolicy, max = 300): string | undefined {
  const parts: string[] = [];
  if (policy.rule !== 'defaults' || policy.condition !== undefined) {
    let rule = `Asked by rule ${inlineCode(policy.rule, 64)}`;
    if (policy.condition !== undefined) rule += `: ${inlineCode(policy.condition.text, 160)}`;
    parts.push(rule);
  }
  if (policy.risk !== undefined) parts.push(`risk: *${policy.risk}*`);
  if (policy.reason !== undefined) parts.push(escapeLine(policy.reason, 200));
  if (policy.condition?.error !== undefined) {
    parts.push(
      `:warning: the condition could not be evaluated (${escapeLine(policy.condition.error, 120)}), so a person decides`,
    );
  }
  if (parts.length === 0) return undefined;
  const text = parts.join(' · ');
  return text.length <= max ? text : (parts[0] ?? '').slice(0, max);
}

/** A short label of where the gate stands, with an emoji that reads at a glance. */
export function stateBadge(gate: GateRecord): string {
  const outcome = gateOutcome(gate);
  const emoji = OUTCOME_EMOJI[outcome];
  switch (outcome) {
    case 'pending':
      return `${emoji} Pending`;
    case 'approved':
      return `${emoji} Approved`;
    case 'answered':
      return `${emoji} Answered`;
    case 'rejected':
      return `${emoji} Rejected`;
    case 'denied':
      return `${emoji} Denied by policy`;
    case 'expired':
      return `${emoji} Expired — ${expiryOutcome(gate.policy.onExpiry)}`;
    case 'expired_cancelled':
      return `${emoji} Expired — cancelled`;
    case 'withdrawn':
      return `${emoji} Withdrawn`;
    case 'cancelled':
      return `${emoji} Cancelled by the agent`;
    case 'stood_down':
      return `${emoji} Stood down`;
  }
}

/** Who decided, when, and why (the reason escaped and bounded); nothing while pending. */
export function decisionText(gate: GateRecord, maxReason: number): string | undefined {
  const decision = gate.decision;
  if (gate.state === 'pending' || decision === undefined) return undefined;
  const reason = decision.reason?.trim();
  if (reason && outcomeOf(gate.state, decision.by) === 'stood_down') {
    return `${decidedWords(gate, decision)}: ${escapeWithin(reason, Math.max(maxReason, 60))}`;
  }
  const line = `${decidedWords(gate, decision)} ${slackDate(decision.at)}`;
  if (reason && maxReason > 20) return `${line}\nReason: ${escapeWithin(reason, maxReason - 8)}`;
  return line;
}

/**
 * "Approved by <@U1> and <@U2>", "Denied by policy rule `x`", "Cancelled by the agent (API key
 * `k`)", "Withdrawn by <@U3>", "Expired — rejected automatically": how it left pending, by whom.
 */
export function decidedWords(gate: GateRecord, decision: GateDecision): string {
  const outcome = outcomeOf(gate.state, decision.by, gateKind(gate) === 'input');
  const byWhom = deciderWords(decision);
  switch (outcome) {
    case 'approved':
    case 'answered': {
      // With a quorum every approver is named, not only the one whose vote completed it.
      const voters = approvalsOf(gate).map(voterWords);
      const names = voters.length > 1 ? andList(voters) : byWhom;
      return `${outcome === 'answered' ? 'Answered' : 'Approved'} by ${names}`;
    }
    case 'rejected':
      return `Rejected by ${byWhom}`;
    case 'denied':
      return `Denied by ${byWhom}`;
    case 'expired':
      return `Expired — ${expiryOutcome(gate.policy.onExpiry)}`;
    case 'expired_cancelled':
      return 'Expired — cancelled';
    case 'withdrawn':
      return `Withdrawn by ${byWhom}`;
    case 'cancelled':
      return `Cancelled by ${byWhom}`;
    case 'stood_down':
      // The reason says why ("alert resolved at …"): it follows on the same line.
      return 'Stood down';
    case 'pending':
      return 'Pending';
  }
}

/**
 * "service: ledger, replicas: 20" within `max` characters (escaped): enough to tell two calls of
 * one tool apart. Not an object: its compact JSON, cut.
 */
export function argumentSummary(args: JsonValue, max: number): string {
  return escapeLine(argumentText(args), max);
}

/** The one line `argumentSummary` shows, before escaping and cutting. */
export function argumentText(args: JsonValue): string {
  if (args === null || typeof args !== 'object' || Array.isArray(args)) {
    return JSON.stringify(args) ?? '';
  }
  return Object.entries(args)
    .map(([key, value]) => {
      const shown = typeof value === 'string' ? value : JSON.stringify(value);
      return `${key}: ${shown.replace(/\s+/g, ' ')}`;
    })
    .join(', ');
}
