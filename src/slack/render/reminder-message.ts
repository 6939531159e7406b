import type { NudgeKind } from '../../approvals/store-roles/nudges.js';
import type { JsonValue } from '../../json.js';
import { mrkdwn, type SlackMessage } from '../codecs/block-kit.js';
import { inlineCode } from '../codecs/escape.js';
import { permalinkTo, slackDate, userMention } from '../codecs/mentions.js';
import { argumentSummary } from './gate-lines.js';

/** What a reminder or an escalation tells one approver (in a DM) or a channel (in the card's thread). */
export interface ReminderFacts {
  kind: NudgeKind;
  tool: string;
  /** The call's arguments: what the approver is asked to allow, as the card and the Home show it. */
  args: JsonValue;
  requester: string;
  /** The card's link (`chat.getPermalink`); absent when Slack could not give one. */
  permalink?: string;
  expiresAt?: number;
  /** For `escalate`: how long the request waited, as the policy writes it ("10m"). */
  waited?: string;
}

/** As on the App Home: enough to tell two calls of one tool apart. */
const ARGS_MAX = 300;

/**
 * "Reminder: <@U1> asks to run `deploy`, and your decision is still needed.", the arguments,
 * then "Open the request · expires …". Pure: the tool name and the arguments are escaped,
 * mentions and the link are checked (mentions.ts).
 */
export function renderReminder(facts: ReminderFacts): SlackMessage {
  const tool = inlineCode(facts.tool, 80);
  const who = userMention(facts.requester);
  const head =
    facts.kind === 'remind'
      ? `:bell: Reminder: ${who} asks to run ${tool}, and your decision is still needed.`
      : `:rotating_light: Escalated to you${facts.waited ? ` after ${facts.waited}` : ''}: ${who} asks to run ${tool}, and nobody has decided yet.`;
  const link = permalinkTo(facts.permalink, 'Open the request');
  const expiry =
    facts.expiresAt === undefined ? undefined : `expires ${slackDate(facts.expiresAt)}`;
  const tail = [link, expiry].filter((part) => part !== undefined).join(' · ');
  const args = argumentSummary(facts.args, ARGS_MAX);
  const text = [head, args, tail].filter((part) => part !== '').join('\n');
  return { text, blocks: [{ type: 'section', text: mrkdwn(text) }] };
}
