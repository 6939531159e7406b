import type * as types from '@slack/types';

/**
 * Block Kit types (from `@slack/types`, the package Bolt's own `types` re-exports: imported
 * directly, so that the codecs need nothing of the transport) and the two text objects every
 * builder uses.
 */
export type KnownBlock = types.KnownBlock;
export type SectionBlock = types.SectionBlock;
export type ContextBlock = types.ContextBlock;
export type ActionsBlock = types.ActionsBlock;
export type InputBlock = types.InputBlock;
export type Button = types.Button;
export type Overflow = types.Overflow;
export type StaticSelect = types.StaticSelect;
export type PlainTextOption = types.PlainTextOption;
export type PlainTextElement = types.PlainTextElement;
export type MrkdwnElement = types.MrkdwnElement;
export type ModalView = types.ModalView;
/** A modal whose blocks are all known types (so `block.type` narrows them). */
export type Modal = Omit<ModalView, 'blocks'> & { blocks: KnownBlock[] };

/** A message as the builders return it: `text` is the notification fallback. */
export interface SlackMessage {
  text: string;
  blocks?: KnownBlock[];
}

/** mrkdwn with `verbatim`: Slack does not auto-link names or URLs in it. */
export function mrkdwn(text: string): MrkdwnElement {
  return { type: 'mrkdwn', text, verbatim: true };
}

export function plain(text: string): PlainTextElement {
  return { type: 'plain_text', text, emoji: true };
}
