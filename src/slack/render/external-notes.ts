import { blocksTextLength, LIMITS } from '@adk-slack-approvals/block-kit';
import type { PauseNotes, PauseView } from '../../approvals/records.js';
import type { ContextBlock, KnownBlock } from '../codecs/block-kit.js';
import { escapeLine } from '../codecs/escape.js';
import { userMention } from '../codecs/mentions.js';

/** Each line of the notes; Slack allows 10 elements in a context block. */
const LINE_MAX = 280;
const MAX_ELEMENTS = 10;

/**
 * What the card of a pause posted through the approvals API adds: its title and links, who
 * asked, how the decision goes back and where that stands, and the outcomes it reported (the
 * agent's own cancel is said by its gates: "Cancelled by the agent", with its reason). Every
 * value came from the agent and is escaped.
 */
export function renderExternalNotes(view: PauseView, notes: PauseNotes): ContextBlock | undefined {
  const origin = view.pause.external;
  if (origin === undefined) return undefined;
  const lines: string[] = [];
  if (origin.title !== undefined) lines.push(`*${escapeLine(origin.title, LINE_MAX)}*`);
  const who = origin.requestedBy;
  const asker =
    who?.slackUserId !== undefined
      ? userMention(who.slackUserId)
      : (who?.name ?? who?.email) !== undefined
        ? escapeLine(who?.name ?? who?.email ?? '', 80)
        : undefined;
  lines.push(
    `Posted by API key ${escapeLine(origin.keyName, 64)}${asker === undefined ? '' : ` for ${asker}`} · ${resumeLine(view, notes)}`,
  );
  for (const link of origin.links ?? []) {
    const url = link.url.replace(/\|/g, '%7C');
    lines.push(`<${escapeLine(url, LINE_MAX)}|${escapeLine(link.text, 80)}>`);
  }
  for (const gate of view.gates) {
    const outcome = notes.outcomes[gate.confirmationCallId];
    if (outcome === undefined) continue;
    const detail = outcome.detail === undefined ? '' : ` — ${escapeLine(outcome.detail, LINE_MAX)}`;
    lines.push(
      `${OUTCOME_ICON[outcome.status]} ${escapeLine(gate.originalCall.name, 80)}: ${outcome.status}${detail}`,
    );
  }
  const shown = lines.slice(0, MAX_ELEMENTS);
  return { type: 'context', elements: shown.map((text) => ({ type: 'mrkdwn', text })) };
}

const OUTCOME_ICON = {
  executed: ':white_check_mark:',
  failed: ':x:',
  blocked: ':no_entry:',
  rejected: ':no_entry_sign:',
  refused: ':octagonal_sign:',
} as const;

function resumeLine(view: PauseView, notes: PauseNotes): string {
  const resume = view.pause.external?.resume;
  if (resume === undefined) return '';
  switch (resume.mode) {
    case 'poll':
      return 'the agent fetches the decision itself';
    case 'adk':
      return `resumes on ADK target ${escapeLine(resume.target, 64)}`;
    case 'webhook': {
      const delivery = notes.delivery;
      if (delivery === undefined) return 'decision goes back by webhook';
      if (delivery.state === 'delivered') return `webhook delivered (attempt ${delivery.attempts})`;
      if (delivery.state === 'delivering')
        return `webhook: delivering (attempt ${delivery.attempts})`;
      const why =
        delivery.lastError === undefined ? '' : `: ${escapeLine(delivery.lastError, 120)}`;
      return `webhook: attempt ${delivery.attempts} failed${why}; retrying`;
    }
  }
}

/** The card with the notes at its end, when they fit within Slack's limits; else the card alone. */
export function withExternalNotes<T extends { blocks: KnownBlock[] }>(
  card: T,
  notes: ContextBlock | undefined,
): T {
  if (notes === undefined) return card;
  const blocks = [...card.blocks, notes];
  if (blocks.length > LIMITS.messageBlocks) return card;
  if (blocksTextLength(blocks) > LIMITS.messageBlocksText - 500) return card;
  return { ...card, blocks };
}
