import type { HomeView } from '@slack/types';
import { type Grant, scopeWords } from '../approvals/grants.js';
import {
  type GatePolicy,
  type GateRecord,
  type GateState,
  type PauseView,
  SYSTEM_ACTOR,
} from '../approvals/records.js';
import { ACTION_IDS, encodeButtonValue, fitsButtonValue } from './action-ids.js';
import { type KnownBlock, mrkdwn, plain } from './block-kit.js';
import { escapeLine, inlineCode } from './escape.js';
import { actor, argumentSummary, expiryText, toolName } from './gate-lines.js';
import { permalinkTo, slackDate, userMention } from './mentions.js';

/** A gate as the Home lists it: the pause it belongs to, and a link to its card when Slack gave one. */
export interface HomeGate {
  view: PauseView;
  gate: GateRecord;
  cardPermalink: string | undefined;
  /** The policy in force for it, as the check of this person found it (absent: as recorded). */
  policy?: GatePolicy;
}

/** One line of "Recent decisions": a gate this person decided, or one decided on their request. */
export interface HomeDecision {
  tool: string;
  state: GateState;
  by: string;
  at: number;
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
  const recent = input.recent.slice(0, HOME_LIMITS.recent);
  if (recent.length === 0) blocks.push(context('No decisions yet.'));
  for (const decision of recent) blocks.push(context(decisionLine(decision)));
  return { type: 'home', blocks };
}

function waitingBlocks({ view, gate, cardPermalink }: HomeGate, now: number): KnownBlock[] {
  const args = argumentSummary(gate.originalCall.args, ARGS_MAX);
  const asked = `${userMention(view.pause.requester)} asks to run ${toolName(gate)}`;
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
    blocks.push({
      type: 'actions',
      elements: [
        {
          type: 'button',
          action_id: ACTION_IDS.homeApprove,
          text: plain('Approve'),
          style: 'primary',
          value: encoded,
        },
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

const STATE_WORDS: Partial<Record<GateState, string>> = {
  approved: ':white_check_mark: approved',
  rejected: ':x: rejected',
  expired: ':hourglass: expired',
  cancelled: ':heavy_multiplication_x: cancelled',
};

function decisionLine(decision: HomeDecision): string {
  const what = STATE_WORDS[decision.state] ?? escapeLine(decision.state, 20);
  const by = decision.by === SYSTEM_ACTOR ? '' : ` by ${actor(decision.by)}`;
  const link = permalinkTo(decision.cardPermalink, 'Open card');
  const line = `${inlineCode(decision.tool, 80)} ${what}${by} ${slackDate(decision.at)} · asked by ${userMention(decision.requester)}`;
  return link === undefined ? line : `${line} · ${link}`;
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
      confirm: {
        title: plain('Revoke this grant?'),
        text: plain('Later calls it would have approved will ask a person again.'),
        confirm: plain('Revoke'),
        deny: plain('Keep it'),
      },
    },
  };
}

function context(text: string): KnownBlock {
  return { type: 'context', elements: [mrkdwn(text)] };
}
