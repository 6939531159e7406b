import { type Grant, scopeWords } from '../../approvals/grants.js';
import type { SlackMessage } from '../codecs/block-kit.js';
import { mrkdwn } from '../codecs/block-kit.js';
import { escapeWithin, inlineCode } from '../codecs/escape.js';
import { slackDate, userMention } from '../codecs/mentions.js';

/**
 * The run's thread line for calls the policy decided without a person (`decision: allow` or
 * `deny`): which tool, which rule, and for a denial the reason the model is told. Pure; every
 * string from the call or the policy file is escaped.
 */
export interface PolicyDecisionLine {
  tool: string;
  rule: string;
  decision: 'allow' | 'deny';
  reason?: string;
}

/** A call a person's scoped grant decided (grants.ts): which grant, whose, and its scope. */
export interface GrantDecisionLine {
  tool: string;
  grant: Pick<Grant, 'id' | 'granter' | 'scope' | 'durationMs' | 'expiresAt' | 'uses'>;
}

export function renderPolicyDecisions(
  lines: readonly (PolicyDecisionLine | GrantDecisionLine)[],
): SlackMessage {
  const texts = lines.map((line) => ('grant' in line ? grantLineText(line) : lineText(line)));
  return {
    text: texts.join('\n'),
    blocks: [{ type: 'section', text: mrkdwn(texts.join('\n').slice(0, 2_900)) }],
  };
}

function grantLineText({ tool, grant }: GrantDecisionLine): string {
  const use = grant.uses === 1 ? 'its first use' : `use ${grant.uses}`;
  return `:unlock: ${inlineCode(tool, 80)} approved by grant ${inlineCode(grant.id, 40)}: ${userMention(grant.granter)} approved it ${scopeWords(grant)} (${use}, until ${slackDate(grant.expiresAt)})`;
}

function lineText(line: PolicyDecisionLine): string {
  const tool = inlineCode(line.tool, 80);
  const rule = inlineCode(line.rule, 64);
  const reason = line.reason?.trim();
  const why = reason ? `: ${escapeWithin(reason, 300)}` : '';
  return line.decision === 'allow'
    ? `:white_check_mark: ${tool} auto-approved: rule ${rule}${why}`
    : `:no_entry: ${tool} denied: rule ${rule}${why}`;
}
