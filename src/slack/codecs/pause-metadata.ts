/**
 * Slack message metadata on the messages that stand for a pause (its card, or the line of a pause
 * the policy decided alone), so that a message Slack posted but whose answer never reached the
 * app (the app died in between) is found again in the channel instead of posted twice. Slack
 * returns metadata to `conversations.history` and `.replies` with `include_all_metadata`.
 */
export const PAUSE_METADATA_EVENT = 'adk_approvals_pause';

/** Which message of the pause it is: the card, or the policy's line standing in for it. */
export type PauseMessageKind = 'card' | 'policy_line';

export interface MessageMetadata {
  event_type: string;
  event_payload: Record<string, string>;
}

export function pauseMetadata(pauseId: string, message: PauseMessageKind): MessageMetadata {
  return { event_type: PAUSE_METADATA_EVENT, event_payload: { pause_id: pauseId, message } };
}
