import type { Json, JsonObject } from './json.js';
import type { TimestampSource } from './timestamps.js';
import { BOT, TEAM } from './workspace.js';

/** A message as the sandbox keeps it; `toSlackMessage` gives Slack's JSON shape. */
export interface SandboxMessage {
  channel: string;
  ts: string;
  /** The author: a person's id, or the bot user for the app's messages. */
  user: string;
  /** Set on the app's messages. */
  botId: string | undefined;
  text: string;
  blocks: Json[];
  /** On replies: the parent's ts. On a parent with replies: its own ts. */
  threadTs: string | undefined;
  /** A reply also shown in the channel (`reply_broadcast`). */
  broadcast: boolean;
  replyCount: number;
  replyUsers: string[];
  latestReply: string | undefined;
  edited: { user: string; ts: string } | undefined;
  /** A deleted parent that still has replies stays as "This message was deleted." */
  deleted: boolean;
  metadata: Json | undefined;
}

/** An ephemeral message: only `user` sees it, it has no thread and the Web API can't edit it. */
export interface SandboxEphemeral {
  channel: string;
  ts: string;
  /** The one person who sees it. */
  user: string;
  /** Who it is from: the bot user, or Slackbot (`USLACKBOT`) for Slack's own notes. */
  from: string;
  text: string;
  blocks: Json[];
  threadTs: string | undefined;
}

export interface NewMessage {
  channel: string;
  user: string;
  botId?: string | undefined;
  text: string;
  blocks: Json[];
  threadTs?: string | undefined;
  broadcast?: boolean | undefined;
  metadata?: Json | undefined;
}

/** Messages per channel (with threads) and ephemerals per person. */
export class Conversations {
  private readonly byChannel = new Map<string, SandboxMessage[]>();
  private ephemeralList: SandboxEphemeral[] = [];

  constructor(private readonly timestamps: TimestampSource) {}

  post(input: NewMessage): SandboxMessage {
    const list = this.list(input.channel);
    const ts = this.timestamps.next();
    // A reply to a reply joins the parent's thread.
    const parent =
      input.threadTs === undefined ? undefined : this.find(input.channel, input.threadTs);
    const threadTs = parent?.threadTs ?? parent?.ts ?? input.threadTs;
    const message: SandboxMessage = {
      channel: input.channel,
      ts,
      user: input.user,
      botId: input.botId,
      text: input.text,
      blocks: input.blocks,
      threadTs,
      broadcast: threadTs !== undefined && (input.broadcast ?? false),
      replyCount: 0,
      replyUsers: [],
      latestReply: undefined,
      edited: undefined,
      deleted: false,
      metadata: input.metadata,
    };
    list.push(message);
    const root = threadTs === undefined ? undefined : this.find(input.channel, threadTs);
    if (root && root.ts !== ts) {
      root.threadTs = root.ts;
      root.replyCount += 1;
      root.latestReply = ts;
      if (!root.replyUsers.includes(input.user)) root.replyUsers.push(input.user);
    }
    return message;
  }

  find(channel: string, ts: string): SandboxMessage | undefined {
    return this.byChannel.get(channel)?.find((m) => m.ts === ts);
  }

  /** Top-level messages (and broadcast replies), oldest first. */
  roots(channel: string): SandboxMessage[] {
    return this.list(channel).filter(
      (m) => m.threadTs === undefined || m.threadTs === m.ts || m.broadcast,
    );
  }

  /** Replies in a thread, oldest first (the parent excluded). */
  replies(channel: string, threadTs: string): SandboxMessage[] {
    return this.list(channel).filter((m) => m.threadTs === threadTs && m.ts !== threadTs);
  }

  update(
    message: SandboxMessage,
    change: { text: string; blocks: Json[]; editor: string; metadata?: Json | undefined },
  ): void {
    message.text = change.text;
    message.blocks = change.blocks;
    if (change.metadata !== undefined) message.metadata = change.metadata;
    message.edited = { user: change.editor, ts: this.timestamps.next() };
  }

  remove(message: SandboxMessage): void {
    if (message.replyCount > 0 && message.threadTs === message.ts) {
      message.deleted = true;
      message.text = 'This message was deleted.';
      message.blocks = [];
      return;
    }
    const list = this.list(message.channel);
    list.splice(list.indexOf(message), 1);
    const root =
      message.threadTs === undefined ? undefined : this.find(message.channel, message.threadTs);
    if (root && root !== message) {
      root.replyCount = Math.max(0, root.replyCount - 1);
      const left = this.replies(message.channel, root.ts);
      root.latestReply = left.at(-1)?.ts;
      root.replyUsers = [...new Set(left.map((m) => m.user))];
      if (root.deleted && root.replyCount === 0) list.splice(list.indexOf(root), 1);
    }
  }

  postEphemeral(input: Omit<SandboxEphemeral, 'ts'>): SandboxEphemeral {
    const ephemeral = { ...input, ts: this.timestamps.next() };
    this.ephemeralList.push(ephemeral);
    return ephemeral;
  }

  ephemeralsFor(user: string): SandboxEphemeral[] {
    return this.ephemeralList.filter((e) => e.user === user);
  }

  findEphemeral(user: string, ts: string): SandboxEphemeral | undefined {
    return this.ephemeralList.find((e) => e.user === user && e.ts === ts);
  }

  removeEphemeral(ephemeral: SandboxEphemeral): void {
    this.ephemeralList = this.ephemeralList.filter((e) => e !== ephemeral);
  }

  clear(): void {
    this.byChannel.clear();
    this.ephemeralList = [];
  }

  private list(channel: string): SandboxMessage[] {
    let list = this.byChannel.get(channel);
    if (!list) {
      list = [];
      this.byChannel.set(channel, list);
    }
    return list;
  }
}

/** A message in Slack's JSON shape (Web API responses, `block_actions` payloads). */
export function toSlackMessage(message: SandboxMessage): JsonObject {
  const json: JsonObject = {
    type: 'message',
    user: message.user,
    text: message.text,
    ts: message.ts,
    team: TEAM.id,
  };
  if (message.blocks.length > 0) json.blocks = message.blocks;
  if (message.deleted) {
    json.subtype = 'tombstone';
    json.hidden = true;
  }
  if (message.botId !== undefined) {
    json.bot_id = message.botId;
    json.app_id = BOT.appId;
    json.bot_profile = {
      id: message.botId,
      app_id: BOT.appId,
      name: BOT.realName,
      deleted: false,
      team_id: TEAM.id,
    };
  }
  if (message.threadTs !== undefined) {
    json.thread_ts = message.threadTs;
    if (message.threadTs === message.ts) {
      json.reply_count = message.replyCount;
      json.reply_users_count = message.replyUsers.length;
      json.reply_users = message.replyUsers;
      if (message.latestReply !== undefined) json.latest_reply = message.latestReply;
      json.is_locked = false;
    }
  }
  if (message.broadcast) json.subtype = 'thread_broadcast';
  if (message.edited) json.edited = message.edited;
  if (message.metadata !== undefined) json.metadata = message.metadata;
  return json;
}
