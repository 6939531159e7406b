import type { InputValues } from './view-input.js';

/**
 * What came of an interaction: the app's HTTP answer (its ack), or why there was none: the
 * sandbox refused to send (as a Slack client would), no app is connected, or the app did not
 * answer within Slack's deadline.
 */
export type InteractionResult =
  | { answered: true; status: number; body: string }
  | { answered: false; reason: string };

export interface SlashCommandInput {
  /** Id or handle of the person typing it. */
  user: string;
  /** Id or name of the channel it is typed in. */
  channel: string;
  /** With the slash: `/agent`. */
  command: string;
  text?: string;
}

export interface ClickInput {
  user: string;
  actionId: string;
  /** Needed only when several blocks hold the same action id. */
  blockId?: string;
  /**
   * Buttons: which of several buttons sharing the action id (by their value). Overflow, select
   * and radio buttons: the option value chosen. Checkboxes and multi-selects: the values checked.
   */
  value?: string | readonly string[];
  /** A message (or ephemeral message) in a channel… */
  channel?: string;
  messageTs?: string;
  /** …or an open modal. */
  viewId?: string;
}

export interface SubmitViewInput {
  user: string;
  /** Default: the person's topmost modal. */
  viewId?: string;
  values?: InputValues;
}

export interface CloseViewInput {
  user: string;
  viewId?: string;
}

export interface PostAsPersonInput {
  user: string;
  channel: string;
  text: string;
  threadTs?: string;
}
