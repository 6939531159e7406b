import { withGeneratedIds } from '../blocks.js';
import type { JsonObject } from '../json.js';
import type { ResponseTarget } from '../response-urls.js';
import type { SandboxState } from '../state.js';
import { type Arguments, booleanArg, stringArg } from '../web-api/arguments.js';
import { readMessageContent } from '../web-api/message-content.js';
import type { MethodResult } from '../web-api/results.js';
import { BOT } from '../workspace.js';

/**
 * A reply through a `response_url` or a slash command's ack body: a new ephemeral (the default)
 * or in-channel message, or a replacement or deletion of the message the interaction came from.
 */
export type ReplyOutcome =
  | { ok: true; effect: 'posted' | 'ephemeral' | 'replaced' | 'deleted' }
  | { ok: false; result: MethodResult };

export function applyReply(
  state: SandboxState,
  target: ResponseTarget,
  body: Arguments,
): ReplyOutcome {
  const original = target.original;
  if (booleanArg(body, 'delete_original')) {
    if (original?.kind === 'message') {
      const message = state.conversations.find(target.channel, original.ts);
      if (message && message.user === BOT.userId) state.conversations.remove(message);
    } else if (original?.kind === 'ephemeral') {
      const ephemeral = state.conversations.findEphemeral(target.user, original.ts);
      if (ephemeral) state.conversations.removeEphemeral(ephemeral);
    }
    return { ok: true, effect: 'deleted' };
  }

  const read = readMessageContent(body);
  if (!read.ok) return read;
  const text = read.content.text ?? '';
  const blocks = withGeneratedIds(read.content.blocks ?? []);

  if (booleanArg(body, 'replace_original') && original) {
    if (original.kind === 'message') {
      const message = state.conversations.find(target.channel, original.ts);
      if (message && message.user === BOT.userId) {
        state.conversations.update(message, { text, blocks, editor: BOT.userId });
      }
    } else {
      const ephemeral = state.conversations.findEphemeral(target.user, original.ts);
      if (ephemeral) {
        ephemeral.text = text;
        ephemeral.blocks = blocks;
      }
    }
    return { ok: true, effect: 'replaced' };
  }

  const threadTs = stringArg(body, 'thread_ts') ?? target.threadTs;
  if (stringArg(body, 'response_type') === 'in_channel') {
    state.conversations.post({
      channel: target.channel,
      user: BOT.userId,
      botId: BOT.botId,
      text,
      blocks,
      threadTs,
    });
    return { ok: true, effect: 'posted' };
  }
  state.conversations.postEphemeral({
    channel: target.channel,
    user: target.user,
    from: BOT.userId,
    text,
    blocks,
    threadTs,
  });
  return { ok: true, effect: 'ephemeral' };
}

/** Describes a refused reply for a notice: the error and Slack's reasons. */
export function describeFailure(result: JsonObject): string {
  const error = typeof result.error === 'string' ? result.error : 'error';
  const problems = Array.isArray(result.errors)
    ? result.errors.filter((e) => typeof e === 'string')
    : [];
  return problems.length > 0 ? `${error}: ${problems.join('; ')}` : error;
}
