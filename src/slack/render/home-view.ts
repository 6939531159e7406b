import type { HomeView } from '@slack/types';
import { gateKind } from '../../adk/gate.js';
import { deciderOf } from '../../approvals/deciders.js';
import { type Grant, scopeWords } from '../../approvals/grants.js';
import type { GatePolicy, GateRecord, PauseView } from '../../approvals/records.js';
import { ACTION_IDS, encodeButtonValue, fitsButtonValue } from '../codecs/action-ids.js';
import { type Button, type KnownBlock, mrkdwn, plain } from '../codecs/block-kit.js';
import { escapeLine, inlineCode } from '../codecs/escape.js';
import { permalinkTo, slackDate, userMention } from '../codecs/mentions.js';
import { approveConfirm, revokeConfirm } from './confirm-dialogs.js';
import { delegationBlocks, type HomeDelegations } from './delegation-view.js';
import {
  actor,
  andList,
  approvalsOf,
  argumentSummary,
  deciderWords,
  expiryText,
  toolName,
  voterWords,
} from './gate-lines.js';
import { OUTCOME_EMOJI, OUTCOME_WORD, outcomeOf } from './outcome-words.js';

/** A gate as the Home lists it: the pause it belongs to, and a link to its card when Slack gave one. */
export interface HomeGate {
  view: PauseView;
  gate: GateRecord;
  cardPermalink: string | undefined;
  /** The policy in force for it, as the check of this person found it (absent: as recorded). */
  policy?: GatePolicy;
  /** Whom this person would decide it for, under a hand-over while away. */
  onBehalfOf?: string;
}

/** What a person's recent list records of a gate: how it was decided, or a vote toward a quorum. */
export type RecentEvent = 'approved' | 'rejected' | 'expired' | 'cancelled' | 'withdrawn' | 'voted';

/**
 * One line of "Recent decisions": a decision (or vote) of this person, or one on their request,
 * as recorded then (`event`, `by`, `at`), beside its gate as it is now (undone since, approved
 * since by a quorum).
 */
export interface HomeDecision {
  event: RecentEvent;
  by: string;
  at: number;
  gate: GateRecord;
  requester: string;
  cardPermalink: string | undefined;
}

export interface HomeInput {
  /** Pending gates this person may decide now, oldest first, at most `HOME_LIMITS.waiting`. */
  waiting: readonly HomeGate[];
  /** How many more there are beyond `waiting` (known at least). */
  waitingMore: number;
  /** This person's own pending gates, waiting on others. */
  requests: readonly HomeGate[];
  requestsMore: number;
  recent: readonly HomeDecision[];
  /** Active grants this person gave or is covered by (every one for a policy admin), soonest to expire first. */
  grants?: readonly Grant[];
  /** A word to the person at the top, e.g. why a click from the Home was refused. */
  notice?: string;
  /** Their hand-over while away and those made to them. Absent: the Home offers none. */
  delegations?: HomeDelegations;
  now: number;
}

/**
 * How much the Home shows: 3 blocks per waiting gate and 1 per request or decision, within
 * Slack's 100 blocks a view (https://api.slack.com/reference/block-kit/blocks) with room for the
 * headers, notices and "and N more" lines.
 */
export const HOME_LIMITS = { waiting: 20, requests: 10, grants: 5, recent: 10 } as const;

const ARGS_MAX = 300;

/**
 * May a batch from the Home hold this gate? A confirmation whose rule in force does not say
 * `batch: false`.
 */
export function isBatchable({ gate, policy }: HomeGate): boolean {
  return gate.kind !== 'input' && (policy ?? gate.policy).batch !== false;
}

/** The App Home tab: "Waiting for you", "Your requests", "Recent decisions". Pure. */
export function renderHomeView(input: HomeInput): HomeView {
  const blocks: KnownBlock[] = [];
  if (input.notice !== undefined) {
    blocks.push({ type: 'section', text: mrkdwn(`:warning: ${escapeLine(input.notice, 2_000)}`) });
  }
  blocks.push({ type: 'header', text: plain('Waiting for you') });
  const waiting = input.waiting.slice(0, HOME_LIMITS.waiting);
  if (waiting.length === 0) {
    blocks.push(context('Nothing waits for your decision.'));
  }
  if (input.waiting.filter(isBatchable).length >= 2) {
    blocks.push({
      type: 'actions',
      elements: [
        { type: 'button', action_id: ACTION_IDS.homeBatch, text: plain('Decide several…') },
      ],
    });
  }
  for (const item of waiting) blocks.push(...waitingBlocks(item, input.now));
  const waitingMore = input.waitingMore + (input.waiting.length - waiting.length);
  if (waitingMore > 0) {
    blocks.push(context(`…and ${waitingMore} more: they are listed here as these are decided.`));
  }

  blocks.push({ type: 'divider' });
  blocks.push({ type: 'header', text: plain('Your requests') });
  const requests = input.requests.slice(0, HOME_LIMITS.requests);
  if (requests.length === 0) blocks.push(context('None of your requests waits on anyone.'));
  for (const item of requests) blocks.push(requestBlock(item));
  const requestsMore = input.requestsMore + (input.requests.length - requests.length);
  if (requestsMore > 0) blocks.push(context(`…and ${requestsMore} more.`));

  if (input.delegations !== undefined) {
    blocks.push(...delegationBlocks(input.delegations, input.now));
  }

  const grants = input.grants ?? [];
  if (grants.length > 0) {
    blocks.push({ type: 'divider' });
    blocks.push({ type: 'header', text: plain('Grants in force') });
    for (const grant of grants.slice(0, HOME_LIMITS.grants)) blocks.push(grantBlock(grant));
    if (grants.length > HOME_LIMITS.grants) {
      blocks.push(context(`…and ${grants.length - HOME_LIMITS.grants} more, expiring later.`));
    }
  }

  blocks.push({ type: 'divider' });
  blocks.push({ type: 'header', text: plain('Recent decisions') });
  const recent = withoutRepeatedVotes(input.recent).slice(0, HOME_LIMITS.recent);
  if (recent.length === 0) blocks.push(context('No decisions yet.'));
  for (const decision of recent) blocks.push(context(decisionLine(decision)));
  return { type: 'home', blocks };
}

function waitingBlocks(
  { view, gate, cardPermalink, onBehalfOf }: HomeGate,
  now: number,
): KnownBlock[] {
  const args = argumentSummary(gate.originalCall.args, ARGS_MAX);
  const forWhom = onBehalfOf === undefined ? '' : ` (for ${userMention(onBehalfOf)})`;
  const asked = `${userMention(view.pause.requester)} asks to run ${toolName(gate)}${forWhom}`;
  const facts = [
    `app ${escapeLine(view.pause.adk.appName, 80)}`,
    expiryText(gate, now),
    permalinkTo(cardPermalink, 'Open card'),
  ].filter((fact) => fact !== undefined);
  const blocks: KnownBlock[] = [
    {
      type: 'section',
      text: mrkdwn(args === '' ? asked : `${asked}\n${args}`),
    },
    context(facts.join(' · ')),
  ];
  const value = { pauseId: view.pause.id, callId: gate.confirmationCallId };
  if (fitsButtonValue(value)) {
    const encoded = encodeButtonValue(value);
    const approve: Button = {
      type: 'button',
      action_id: ACTION_IDS.homeApprove,
      text: plain('Approve'),
      style: 'primary',
      value: encoded,
    };
    // The same "are you sure?" as the card's Approve, where the rule asks it.
    if (gate.policy.confirm) approve.confirm = approveConfirm(gate.originalCall.name);
    blocks.push({
      type: 'actions',
      elements: [
        approve,
        {
          type: 'button',
          action_id: ACTION_IDS.homeReject,
          text: plain('Reject'),
          style: 'danger',
          value: encoded,
        },
      ],
    });
  }
  return blocks;
}

function requestBlock({ view, gate, cardPermalink }: HomeGate): KnownBlock {
  const link = permalinkTo(cardPermalink, 'Open card');
  const line = `${toolName(gate)} (${escapeLine(view.pause.adk.appName, 80)}) waits for approval since ${slackDate(gate.createdAt)}`;
  return context(link === undefined ? line : `${line} · ${link}`);
}

/**
 * Newest first: a vote is not listed again when a newer line of its gate is (the deciding vote's
 * own decision, or the decision that names every approver).
 */
function withoutRepeatedVotes(recent: readonly HomeDecision[]): HomeDecision[] {
  const shown = new Set<string>();
  return recent.filter(({ event, gate }) => {
    const key = `${gate.pauseId}\u0000${gate.confirmationCallId}`;
    if (event === 'voted' && shown.has(key)) return false;
    shown.add(key);
    return true;
  });
}

function decisionLine(decision: HomeDecision): string {
  const { gate, event } = decision;
  const what = event === 'voted' ? voteWords(decision) : decidedWords(decision);
  const line = `${toolName(gate)} ${what}${laterWords(decision)} · asked by ${userMention(decision.requester)}`;
  const link = permalinkTo(decision.cardPermalink, 'Open card');
  return link === undefined ? line : `${line} · ${link}`;
}

/** ":no_entry: denied by policy rule `x` <date>": the card's words, in lower case. */
function decidedWords({ event, by, at, gate }: HomeDecision): string {
  const outcome = outcomeOf(event === 'voted' ? 'pending' : event, by, gateKind(gate) === 'input');
  const approval = outcome === 'approved' || outcome === 'answered';
  const whom = approval ? approversOf(gate, by) : actor(by);
  const byWhom = deciderOf(by).kind === 'expiry' ? '' : ` by ${whom}`;
  return `${OUTCOME_EMOJI[outcome]} ${OUTCOME_WORD[outcome]}${byWhom} ${slackDate(at)}`;
}

/** Everyone whose approval counted while the gate stands approved (a quorum); else `by`. */
function approversOf(gate: GateRecord, by: string): string {
  const votes = gate.state === 'approved' ? approvalsOf(gate) : [];
  if (votes.length > 1) return andList(votes.map(voterWords));
  const decision = gate.decision;
  return decision !== undefined && decision.by === by ? deciderWords(decision) : actor(by);
}

/** A vote toward a quorum, and where its gate stands now. */
function voteWords(decision: HomeDecision): string {
  const { by, at, gate } = decision;
  const vote = `:ballot_box_with_check: ${actor(by)} approved ${slackDate(at)}`;
  if (gate.state === 'pending') {
    return `${vote} · ${approvalsOf(gate).length} of ${gate.policy.quorum} approvals`;
  }
  const since = gate.decision;
  if (since === undefined) return vote;
  const now: HomeDecision = { ...decision, event: gate.state, by: since.by, at: since.at };
  return `${vote} · ${decidedWords(now).replace(/^:[a-z_]+: /, '')}`;
}

/** What happened to it since: undone in its window, or sent back by the re-check. */
function laterWords({ at, gate }: HomeDecision): string {
  const reopened = gate.reopened;
  if (reopened === undefined || reopened.at < at) return '';
  return reopened.kind === 'undo'
    ? `, then undone by ${actor(reopened.voter)}`
    : `, then sent back: ${actor(reopened.voter)}’s approval no longer held`;
}

/** A grant: what it covers, who gave it, its scope, uses and expiry; Revoke (asked twice). */
function grantBlock(grant: Grant): KnownBlock {
  const requester = grant.requester.startsWith('api:')
    ? inlineCode(grant.requester, 64)
    : userMention(grant.requester);
  const uses = grant.uses === 1 ? '1 use' : `${grant.uses} uses`;
  const text =
    `${inlineCode(grant.tool, 80)} in ${inlineCode(grant.app, 60)} for ${requester}: ` +
    `${userMention(grant.granter)} approved it ${scopeWords(grant)}\n` +
    `${uses} · expires ${slackDate(grant.expiresAt)} · grant ${inlineCode(grant.id, 40)}`;
  return {
    type: 'section',
    text: mrkdwn(text),
    accessory: {
      type: 'button',
      action_id: ACTION_IDS.homeRevokeGrant,
      text: plain('Revoke'),
      style: 'danger',
      value: grant.id,
      confirm: revokeConfirm(),
    },
  };
}

function context(text: string): KnownBlock {
  return { type: 'context', elements: [mrkdwn(text)] };
}
