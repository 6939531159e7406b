import type { PauseView } from './records.js';

/**
 * Until when a decided pause's decision is held back from its agent, if it is at `now`: a rule's
 * undo window runs (`holdUntil`, set by the deciding vote), in which the approver may still take
 * the approval back. The same test as the resume claim's (claim-resume.lua.ts): once the resume
 * is claimed, or the window has passed, the decision is final and nothing holds it.
 */
export function heldUntil(view: PauseView, now: number): number | undefined {
  const { state, holdUntil } = view.pause.resume;
  return state === 'idle' && holdUntil !== undefined && now < holdUntil ? holdUntil : undefined;
}
