import { type Grant, scopeWords } from '../../approvals/grants.js';
import type { SlackMessage } from '../codecs/block-kit.js';
import { mrkdwn } from '../codecs/block-kit.js';
import { inlineCode } from '../codecs/escape.js';
import { slackDate, userMention } from '../codecs/mentions.js';

/**
 * The thread lines of scoped grants (grants.ts): one when a person gives a grant, one when it is
 * revoked. Pure; tool names and grant ids are escaped, people are mentions of checked ids.
 */

type GrantFacts = Pick<
  Grant,
  'id' | 'tool' | 'granter' | 'requester' | 'scope' | 'durationMs' | 'expiresAt' | 'uses'
>;

export function renderGrantGiven(grant: GrantFacts): SlackMessage {
  const whose = grant.requester.startsWith('api:')
    ? `from ${inlineCode(grant.requester, 64)}`
    : `by ${userMention(grant.requester)}`;
  const where = grant.scope === 'session' ? ' in this session' : '';
  const which = grant.scope === 'exactArgs' ? ' with these exact arguments' : '';
  const text =
    `:unlock: ${userMention(grant.granter)} approved ${inlineCode(grant.tool, 80)} ${scopeWords(grant)}: ` +
    `later calls of it${which} ${whose}${where} are approved without asking until ${slackDate(grant.expiresAt)} ` +
    `(grant ${inlineCode(grant.id, 40)}). Revoke it from the app's Home tab.`;
  return line(text);
}

export function renderGrantRevoked(grant: GrantFacts, by: string): SlackMessage {
  const uses = grant.uses === 1 ? '1 call' : `${grant.uses} calls`;
  const who = by.startsWith('api:') ? inlineCode(by, 64) : userMention(by);
  return line(
    `:lock: ${who} revoked grant ${inlineCode(grant.id, 40)} (${inlineCode(grant.tool, 80)} ${scopeWords(grant)}, it decided ${uses}): later calls ask a person again.`,
  );
}

function line(text: string): SlackMessage {
  return { text, blocks: [{ type: 'section', text: mrkdwn(text) }] };
}
