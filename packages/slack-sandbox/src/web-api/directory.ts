import { type SandboxMessage, toSlackMessage } from '../conversations.js';
import type { JsonObject } from '../json.js';
import {
  allPeople,
  allUserGroups,
  BOT,
  type Conversation,
  findConversation,
  membersOf,
  type Person,
  TEAM,
} from '../workspace.js';
import { type Arguments, booleanArg, numberArg, stringArg } from './arguments.js';
import type { WebApiContext } from './context.js';
import { failure, type MethodResult } from './results.js';

/** Who is who: `auth.test`, `users.*`, `usergroups.*`, `conversations.*`. */

/** The workspace was "created" at a fixed time so `created` fields are stable. */
const CREATED = 1_700_000_000;

/** `url`: the workspace's address, on which Slack's message links are built: here, the sandbox. */
export function authTest(_args: Arguments, { baseUrl }: WebApiContext): MethodResult {
  return {
    ok: true,
    url: `${baseUrl}/`,
    team: TEAM.name,
    user: BOT.name,
    team_id: TEAM.id,
    user_id: BOT.userId,
    bot_id: BOT.botId,
    is_enterprise_install: false,
  };
}

export function apiTest(args: Arguments): MethodResult {
  const error = stringArg(args, 'error');
  if (error !== undefined) return failure(error);
  return {
    ok: true,
    args: Object.fromEntries(Object.entries(args).filter(([k]) => k !== 'token')),
  };
}

export function usersInfo(args: Arguments): MethodResult {
  const id = stringArg(args, 'user') ?? '';
  if (id === BOT.userId) return { ok: true, user: botUser() };
  const person = allPeople().find((p) => p.id === id);
  if (!person) return failure('user_not_found');
  return { ok: true, user: personUser(person) };
}

export function usersLookupByEmail(args: Arguments): MethodResult {
  const email = stringArg(args, 'email') ?? '';
  const person = allPeople().find((p) => p.email === email);
  if (!person) return failure('users_not_found');
  return { ok: true, user: personUser(person) };
}

export function usergroupsUsersList(args: Arguments, { state }: WebApiContext): MethodResult {
  const group = allUserGroups().find((g) => g.id === stringArg(args, 'usergroup'));
  if (!group) return failure('no_such_subteam');
  return { ok: true, users: [...state.membersOfGroup(group)] };
}

export function usergroupsList(args: Arguments, { state }: WebApiContext): MethodResult {
  const includeUsers = booleanArg(args, 'include_users');
  return {
    ok: true,
    usergroups: allUserGroups().map((g) => ({
      id: g.id,
      team_id: TEAM.id,
      is_usergroup: true,
      name: g.name,
      description: '',
      handle: g.handle,
      is_external: false,
      date_create: CREATED,
      user_count: state.membersOfGroup(g).length,
      ...(includeUsers ? { users: [...state.membersOfGroup(g)] } : {}),
    })),
  };
}

const MEMBERS_DEFAULT_LIMIT = 100;

/** Paginated like Slack: `next_cursor` is base64 of `user:<first id of the next page>`, empty at the end. */
export function conversationsMembers(args: Arguments): MethodResult {
  const conversation = findConversation(stringArg(args, 'channel') ?? '');
  if (!conversation || conversation.id !== stringArg(args, 'channel')) {
    return failure('channel_not_found');
  }
  const members = membersOf(conversation);
  const limit = Math.min(1000, Math.max(1, numberArg(args, 'limit') ?? MEMBERS_DEFAULT_LIMIT));
  const cursor = stringArg(args, 'cursor');
  let start = 0;
  if (cursor !== undefined) {
    const decoded = Buffer.from(cursor, 'base64').toString('utf8');
    start = decoded.startsWith('user:') ? members.indexOf(decoded.slice('user:'.length)) : -1;
    if (start < 0) return failure('invalid_cursor');
  }
  const page = members.slice(start, start + limit);
  const next = members[start + limit];
  return {
    ok: true,
    members: page,
    response_metadata: {
      next_cursor: next === undefined ? '' : Buffer.from(`user:${next}`).toString('base64'),
    },
  };
}

export function conversationsInfo(args: Arguments): MethodResult {
  const conversation = findConversation(stringArg(args, 'channel') ?? '');
  if (!conversation || conversation.id !== stringArg(args, 'channel')) {
    return failure('channel_not_found');
  }
  const info = conversationJson(conversation);
  if (booleanArg(args, 'include_num_members') && conversation.kind === 'channel') {
    info.num_members = membersOf(conversation).length;
  }
  return { ok: true, channel: info };
}

export function conversationsOpen(args: Arguments): MethodResult {
  const users = (stringArg(args, 'users') ?? '').split(',').filter((u) => u !== '');
  if (users.length === 0) return failure('users_list_not_supplied');
  // Group DMs are not modelled: the sandbox opens DMs between the bot and one person.
  if (users.length > 1) return failure('not_supported_in_sandbox');
  const person = allPeople().find((p) => p.id === users[0]);
  if (!person) return failure('user_not_found');
  const dm = findConversation(person.dmId);
  return { ok: true, channel: dm ? conversationJson(dm) : { id: person.dmId } };
}

export function conversationsHistory(args: Arguments, { state }: WebApiContext): MethodResult {
  const conversation = findConversation(stringArg(args, 'channel') ?? '');
  if (!conversation) return failure('channel_not_found');
  const inTimeline = timeline(args);
  if ('error' in inTimeline) return failure(inTimeline.error);
  const messages = state.conversations
    .roots(conversation.id)
    .filter(inTimeline)
    .reverse()
    .map(asListed(args));
  return { ok: true, messages, has_more: false, response_metadata: { next_cursor: '' } };
}

export function conversationsReplies(args: Arguments, { state }: WebApiContext): MethodResult {
  const conversation = findConversation(stringArg(args, 'channel') ?? '');
  if (!conversation) return failure('channel_not_found');
  const parent = state.conversations.find(conversation.id, stringArg(args, 'ts') ?? '');
  if (!parent) return failure('thread_not_found');
  const rootTs = parent.threadTs ?? parent.ts;
  const root = state.conversations.find(conversation.id, rootTs) ?? parent;
  const inTimeline = timeline(args);
  if ('error' in inTimeline) return failure(inTimeline.error);
  // The parent first, whatever `oldest` and `latest` leave of its replies.
  const replies = state.conversations.replies(conversation.id, rootTs).filter(inTimeline);
  return {
    ok: true,
    messages: [root, ...replies].map(asListed(args)),
    has_more: false,
    response_metadata: { next_cursor: '' },
  };
}

/**
 * Slack's timeline arguments: messages after `oldest` and before `latest` (Slack timestamps),
 * each bound included only with `inclusive`.
 */
function timeline(
  args: Arguments,
): ((message: { ts: string }) => boolean) | { error: 'invalid_ts_oldest' | 'invalid_ts_latest' } {
  const oldest = timestampArg(args, 'oldest', Number.NEGATIVE_INFINITY);
  if (Number.isNaN(oldest)) return { error: 'invalid_ts_oldest' };
  const latest = timestampArg(args, 'latest', Number.POSITIVE_INFINITY);
  if (Number.isNaN(latest)) return { error: 'invalid_ts_latest' };
  const inclusive = booleanArg(args, 'inclusive');
  return ({ ts }) => {
    const at = Number(ts);
    return inclusive ? at >= oldest && at <= latest : at > oldest && at < latest;
  };
}

function timestampArg(args: Arguments, name: string, absent: number): number {
  const value = stringArg(args, name);
  if (value === undefined) return absent;
  return /^\d+(\.\d+)?$/.test(value) ? Number(value) : Number.NaN;
}

/** A message as a listing shows it: its metadata only when asked for (`include_all_metadata`). */
function asListed(args: Arguments): (message: SandboxMessage) => JsonObject {
  const withMetadata = booleanArg(args, 'include_all_metadata');
  return (message) => {
    const json = toSlackMessage(message);
    if (!withMetadata) delete json.metadata;
    return json;
  };
}

function personUser(person: Person): JsonObject {
  return {
    id: person.id,
    team_id: TEAM.id,
    name: person.name,
    deleted: false,
    real_name: person.realName,
    tz: 'Europe/London',
    tz_label: 'Greenwich Mean Time',
    tz_offset: 0,
    is_admin: false,
    is_owner: false,
    is_bot: false,
    is_app_user: false,
    updated: CREATED,
    profile: {
      title: person.title,
      real_name: person.realName,
      real_name_normalized: person.realName,
      display_name: person.name,
      display_name_normalized: person.name,
      email: person.email,
      team: TEAM.id,
    },
  };
}

function botUser(): JsonObject {
  return {
    id: BOT.userId,
    team_id: TEAM.id,
    name: BOT.name,
    deleted: false,
    real_name: BOT.realName,
    is_admin: false,
    is_owner: false,
    is_bot: true,
    is_app_user: false,
    updated: CREATED,
    profile: {
      real_name: BOT.realName,
      display_name: BOT.name,
      bot_id: BOT.botId,
      api_app_id: BOT.appId,
      always_active: true,
      team: TEAM.id,
    },
  };
}

function conversationJson(conversation: Conversation): JsonObject {
  if (conversation.kind === 'dm') {
    return {
      id: conversation.id,
      created: CREATED,
      is_im: true,
      is_org_shared: false,
      user: conversation.person.id,
      is_user_deleted: false,
      priority: 0,
    };
  }
  const channel = conversation.channel;
  const text = (value: string) => ({ value, creator: '', last_set: 0 });
  return {
    id: channel.id,
    name: channel.name,
    name_normalized: channel.name,
    is_channel: !channel.isPrivate,
    is_group: channel.isPrivate,
    is_im: false,
    is_mpim: false,
    is_private: channel.isPrivate,
    is_archived: false,
    is_general: channel.name === 'general',
    is_member: true,
    is_shared: false,
    is_org_shared: false,
    created: CREATED,
    creator: '',
    topic: text(channel.topic),
    purpose: text(channel.topic),
  };
}
