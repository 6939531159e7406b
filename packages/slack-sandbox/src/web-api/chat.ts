import { withGeneratedIds } from '../blocks.js';
import { toSlackMessage } from '../conversations.js';
import { messageChangedEvent, messageEvent } from '../events/event-payloads.js';
import { BOT, findConversation, findPerson, isMember } from '../workspace.js';
import { type Arguments, booleanArg, jsonArg, stringArg } from './arguments.js';
import type { WebApiContext } from './context.js';
import { readMessageContent } from './message-content.js';
import { failure, type MethodResult } from './results.js';

/** `chat.*`: the bot posts, edits and deletes its own messages. */

export function postMessage(args: Arguments, { state }: WebApiContext): MethodResult {
  const conversation = findConversation(stringArg(args, 'channel') ?? '');
  if (!conversation) return failure('channel_not_found');
  const read = readMessageContent(args);
  if (!read.ok) return read.result;
  const { text, blocks, metadata } = read.content;
  if (
    text === undefined &&
    (blocks === undefined || blocks.length === 0) &&
    !hasAttachments(args)
  ) {
    return failure('no_text');
  }
  const message = state.conversations.post({
    channel: conversation.id,
    user: BOT.userId,
    botId: BOT.botId,
    text: text ?? '',
    blocks: withGeneratedIds(blocks ?? []),
    threadTs: stringArg(args, 'thread_ts'),
    broadcast: booleanArg(args, 'reply_broadcast'),
    metadata,
  });
  // Slack tells the app of its own messages too; it must tell them apart (`bot_id`).
  state.events.emit(messageEvent(message, conversation));
  return { ok: true, channel: conversation.id, ts: message.ts, message: toSlackMessage(message) };
}

export function update(args: Arguments, { state }: WebApiContext): MethodResult {
  const conversation = findConversation(stringArg(args, 'channel') ?? '');
  if (!conversation) return failure('channel_not_found');
  const message = state.conversations.find(conversation.id, stringArg(args, 'ts') ?? '');
  if (!message || message.deleted) return failure('message_not_found');
  if (message.user !== BOT.userId) return failure('cant_update_message');
  const read = readMessageContent(args);
  if (!read.ok) return read.result;
  const { text, blocks, metadata } = read.content;
  if (text === undefined && blocks === undefined && !hasAttachments(args))
    return failure('no_text');
  const before = toSlackMessage(message);
  // Slack keeps the previous blocks when `blocks` is left out; `[]` removes them.
  state.conversations.update(message, {
    text: text ?? '',
    blocks: blocks === undefined ? message.blocks : withGeneratedIds(blocks),
    editor: BOT.userId,
    metadata,
  });
  state.events.emit(
    messageChangedEvent(before, message, conversation, message.edited?.ts ?? message.ts),
  );
  return {
    ok: true,
    channel: conversation.id,
    ts: message.ts,
    text: message.text,
    message: toSlackMessage(message),
  };
}

export function postEphemeral(args: Arguments, { state }: WebApiContext): MethodResult {
  const conversation = findConversation(stringArg(args, 'channel') ?? '');
  if (!conversation) return failure('channel_not_found');
  const person = findPerson(stringArg(args, 'user') ?? '');
  if (!person) return failure('user_not_found');
  if (!isMember(conversation, person.id)) return failure('user_not_in_channel');
  const read = readMessageContent(args);
  if (!read.ok) return read.result;
  const { text, blocks } = read.content;
  if (
    text === undefined &&
    (blocks === undefined || blocks.length === 0) &&
    !hasAttachments(args)
  ) {
    return failure('no_text');
  }
  const ephemeral = state.conversations.postEphemeral({
    channel: conversation.id,
    user: person.id,
    from: BOT.userId,
    text: text ?? '',
    blocks: withGeneratedIds(blocks ?? []),
    threadTs: stringArg(args, 'thread_ts'),
  });
  return { ok: true, message_ts: ephemeral.ts };
}

export function deleteMessage(args: Arguments, { state }: WebApiContext): MethodResult {
  const conversation = findConversation(stringArg(args, 'channel') ?? '');
  if (!conversation) return failure('channel_not_found');
  const message = state.conversations.find(conversation.id, stringArg(args, 'ts') ?? '');
  if (!message || message.deleted) return failure('message_not_found');
  if (message.user !== BOT.userId) return failure('cant_delete_message');
  state.conversations.remove(message);
  return { ok: true, channel: conversation.id, ts: message.ts };
}

export function getPermalink(args: Arguments, { state, baseUrl }: WebApiContext): MethodResult {
  const conversation = findConversation(stringArg(args, 'channel') ?? '');
  if (!conversation) return failure('channel_not_found');
  const ts = stringArg(args, 'message_ts') ?? '';
  const message = state.conversations.find(conversation.id, ts);
  if (!message) return failure('message_not_found');
  const link = `${baseUrl}/archives/${conversation.id}/p${ts.replace('.', '')}`;
  // Slack's form for a reply names its thread (docs.slack.dev, chat.getPermalink).
  const inThread =
    message.threadTs === undefined || message.threadTs === ts
      ? ''
      : `?thread_ts=${message.threadTs}&cid=${conversation.id}`;
  return { ok: true, channel: conversation.id, permalink: `${link}${inThread}` };
}

function hasAttachments(args: Arguments): boolean {
  const attachments = jsonArg(args, 'attachments');
  return (
    attachments.kind === 'present' &&
    Array.isArray(attachments.value) &&
    attachments.value.length > 0
  );
}
