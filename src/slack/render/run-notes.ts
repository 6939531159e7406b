import type { SlackMessage } from '../codecs/block-kit.js';
import { mrkdwn } from '../codecs/block-kit.js';
import { escapeLine, escapeWithin } from '../codecs/escape.js';

/**
 * Lines in the thread of a run started over the API or by an alert (issue 36): a note from what
 * started it, another start that joined it, and how it was closed. Pure; everything escaped.
 */

const NOTE_MAX = 2_000;

function line(text: string, fallback: string): SlackMessage {
  return { text: fallback, blocks: [{ type: 'section', text: mrkdwn(text) }] };
}

/** A plain-text note (`RunStarts.note`), escaped. */
export function renderRunNote(text: string): SlackMessage {
  return line(escapeWithin(text, NOTE_MAX), escapeLine(text, 200));
}

/** "Joined: alert *HighErrorRate* fired again": another start with this run's dedupe key. */
export function renderJoinedNote(starter: {
  kind: string;
  id: string;
  name?: string;
}): SlackMessage {
  const who = escapeLine(starter.name ?? starter.id, 120);
  const word = starter.kind === 'api' ? 'API client' : starter.kind;
  return line(
    `:link: Joined: ${word} *${who}* asked for this run again (same dedupe key), so no second run was started.`,
    `Joined: ${word} ${who}`,
  );
}

/** The run was called off: its pending approvals closed, nothing runs after it. */
export function renderRunClosedNote(
  closed: { kind: 'cancelled'; by: string } | { kind: 'stood_down'; reason: string },
): SlackMessage {
  if (closed.kind === 'cancelled') {
    const by = escapeLine(closed.by, 120);
    return line(
      `:no_entry_sign: Cancelled by *${by}*: pending approvals are closed and nothing will run.`,
      `Cancelled by ${by}`,
    );
  }
  const reason = escapeLine(closed.reason, 200);
  return line(
    `:no_bell: Stood down: ${reason}. Pending approvals are closed and nothing will run.`,
    `Stood down: ${reason}`,
  );
}
