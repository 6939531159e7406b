import type { PauseView } from '../approvals/records.js';
import type { ApprovalStore } from '../approvals/store.js';

/**
 * Decisions the app hands to an agent that resumes itself (the approvals API's `poll` and
 * `webhook` modes). The app marks such a resume `resumed` once it handed the decision over; the
 * agent may then report (`…/outcome`, status `refused`) that it received the decision and did not
 * act on it: ADK refused it (IntentMismatchError), or its driver could not resume with it. That
 * report and the hand-over's mark may come in either order, so each looks for the other.
 */

/** The agent's words when it said nothing more. */
const REFUSED_WITHOUT_WORDS = 'the agent received the decision and did not act on it';

export function handsOver(view: PauseView): boolean {
  const mode = view.pause.external?.resume.mode;
  return mode === 'poll' || mode === 'webhook';
}

/**
 * Once the hand-over is marked (or a report arrives after it): a `refused` report among the
 * pause's outcomes makes its resume `refused`. True when this call changed it.
 */
export async function refuseIfReported(
  store: Pick<ApprovalStore, 'reports' | 'notes'>,
  view: PauseView,
  now: number,
): Promise<boolean> {
  const keyName = view.pause.external?.keyName;
  if (keyName === undefined || !handsOver(view)) return false;
  const { outcomes } = await store.notes.readNotes(view.pause.id);
  const refused = Object.values(outcomes).find((outcome) => outcome.status === 'refused');
  if (refused === undefined) return false;
  const result = await store.reports.refuseHandOver({
    pauseId: view.pause.id,
    actor: `api:${keyName}`,
    error: refused.detail ?? REFUSED_WITHOUT_WORDS,
    at: now,
  });
  return result === 'refused';
}
