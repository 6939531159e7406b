import { checkMessage } from '@adk-slack-approvals/block-kit';
import type { SlackMessage } from '../codecs/block-kit.js';

/**
 * Two messages for one thread that are ready at the same moment (the tools that ran and the
 * agent's answer after them), as one message when Slack takes them as one: one
 * `chat.postMessage` instead of two, and the thread reads the same. When the two together would
 * pass a limit of Slack's (50 blocks, about 12,000 characters of text across them), or either
 * has no blocks (its text alone is what shows), both, in order, as before.
 */
export function foldMessages(first: SlackMessage, second: SlackMessage): SlackMessage[] {
  if (first.blocks === undefined || second.blocks === undefined) return [first, second];
  const folded: SlackMessage = {
    text: `${first.text}\n${second.text}`,
    blocks: [...first.blocks, ...second.blocks],
  };
  return checkMessage(folded).length === 0 ? [folded] : [first, second];
}
