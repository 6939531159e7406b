import { formatDuration } from '../../approvals/policy.js';
import type { PauseNotes, PauseView } from '../../approvals/records.js';
import { slackDate } from '../codecs/mentions.js';
import { allDecided, askingOf } from './request-words.js';

/**
 * The card's words for where the decision stands with the agent once every call is decided:
 * held in an undo window ("resumes at 10:42:31"), or handed over to an agent that runs elsewhere.
 * Held is not resumed, and a decision waiting to be fetched is not a resumed agent. Pure.
 */

/**
 * The undo window: the agent resumes at `holdUntil`, to the second (a window is seconds or
 * minutes long), unless the approver undoes it; and how long the window is.
 */
export function holdLine(view: PauseView, holdUntil: number): string {
  const window = Math.max(0, ...view.gates.map((gate) => gate.policy.undoWindowMs ?? 0));
  const length = window > 0 ? ` (a ${formatDuration(window)} undo window)` : '';
  return `:hourglass_flowing_sand: ${allDecided(askingOf(view.gates))}: the agent resumes ${slackDate(holdUntil, 'seconds')} unless the approver undoes it${length}.`;
}

/** How the decision was handed to an agent that runs elsewhere: the card's line, its fallback's end. */
const HANDOVER = {
  delivered: {
    line: ':arrow_forward: Decision delivered to the agent (webhook)',
    summary: ' — decision delivered to the agent',
  },
  ready: {
    line: ':hourglass_flowing_sand: Decision ready for the agent: it fetches it itself',
    summary: ' — decision ready for the agent',
  },
  taken: {
    line: ':arrow_forward: The agent took the decision',
    summary: ' — the agent took the decision',
  },
} as const;

/**
 * A pause whose agent runs elsewhere and takes its decision itself: its "resumed" state means the
 * app handed the decision over, not that the agent resumed. Poll mode: ready until the agent
 * claims a call or reports an outcome (what it reported shows below, in the card's notes);
 * webhook mode: delivered. Undefined for pauses the app resumes itself.
 */
export function handoverLine(view: PauseView, notes: PauseNotes | undefined): string | undefined {
  const state = handoverOf(view, notes);
  return state === undefined ? undefined : HANDOVER[state].line;
}

/** The end of the card's notification text, for the same states. */
export function handoverSummary(
  view: PauseView,
  notes: PauseNotes | undefined,
): string | undefined {
  const state = handoverOf(view, notes);
  return state === undefined ? undefined : HANDOVER[state].summary;
}

function handoverOf(
  view: PauseView,
  notes: PauseNotes | undefined,
): keyof typeof HANDOVER | undefined {
  const mode = view.pause.external?.resume.mode;
  if (mode === 'webhook') return 'delivered';
  if (mode !== 'poll') return undefined;
  const taken = view.gates.some(
    ({ confirmationCallId }) =>
      notes?.claims?.[confirmationCallId] !== undefined ||
      notes?.outcomes[confirmationCallId] !== undefined,
  );
  return taken ? 'taken' : 'ready';
}
