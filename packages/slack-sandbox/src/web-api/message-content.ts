import {
  checkMessage,
  MSG_BLOCKS_TOO_LONG,
  MSG_TOO_LONG,
  NO_TEXT,
} from '@adk-slack-approvals/block-kit';
import type { Json } from '../json.js';
import { type Arguments, jsonArg, stringArg } from './arguments.js';
import { blockFailure, failure, type MethodResult } from './results.js';

export interface MessageContent {
  text: string | undefined;
  /** Undefined when the caller sent no `blocks` (`chat.update` then keeps the old ones). */
  blocks: Json[] | undefined;
  metadata: Json | undefined;
}

/**
 * The text and blocks of a message from Web API arguments, `response_url` bodies or command acks,
 * refused the way Slack refuses them: `invalid_blocks_format` for blocks that are not a JSON
 * array, `invalid_blocks` (with the failing rules) for Block Kit that breaks a rule.
 */
export function readMessageContent(
  args: Arguments,
): { ok: true; content: MessageContent } | { ok: false; result: MethodResult } {
  const text = stringArg(args, 'text');
  const blocksArg = jsonArg(args, 'blocks');
  let blocks: Json[] | undefined;
  if (blocksArg.kind === 'invalid') return { ok: false, result: failure('invalid_blocks_format') };
  if (blocksArg.kind === 'present') {
    if (!Array.isArray(blocksArg.value))
      return { ok: false, result: failure('invalid_blocks_format') };
    blocks = blocksArg.value;
  }
  // Whether a message without text or blocks is acceptable depends on the method (attachments, updates).
  const problems = checkMessage({ text, blocks }).filter((p) => !p.startsWith(`${NO_TEXT}:`));
  if (problems.length > 0)
    return { ok: false, result: blockFailure(slackErrorFor(problems), problems) };
  const metadataArg = jsonArg(args, 'metadata');
  const metadata = metadataArg.kind === 'present' ? metadataArg.value : undefined;
  return { ok: true, content: { text, blocks, metadata } };
}

/** Slack answers a few limits with their own error rather than `invalid_blocks`. */
function slackErrorFor(problems: readonly string[]): string {
  if (problems.some((p) => p.startsWith(`${MSG_TOO_LONG}:`))) return 'msg_too_long';
  if (problems.every((p) => p.startsWith(`${MSG_BLOCKS_TOO_LONG}:`))) return 'msg_blocks_too_long';
  return 'invalid_blocks';
}
