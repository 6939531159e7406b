import { type SandboxMessage, toSlackMessage } from '../conversations.js';
import type { JsonObject } from '../json.js';
import { type SandboxView, toSlackView } from '../modals.js';
import { BOT, type Conversation, type Person, TEAM } from '../workspace.js';

/**
 * Events API payloads as Slack sends them: the inner `event` objects the sandbox raises, and the
 * `event_callback` envelope around one (https://docs.slack.dev/apis/events-api/).
 */

/** `channel_type` of message events: public channel, private channel, or DM. */
export function channelType(conversation: Conversation): 'channel' | 'group' | 'im' {
  if (conversation.kind === 'dm') return 'im';
  return conversation.channel.isPrivate ? 'group' : 'channel';
}

/** A message was posted (by a person, or by the app: then it carries `bot_id`). */
export function messageEvent(message: SandboxMessage, conversation: Conversation): JsonObject {
  const event: JsonObject = {
    ...toSlackMessage(message),
    channel: message.channel,
    event_ts: message.ts,
    channel_type: channelType(conversation),
  };
  // The root of a thread has no `thread_ts` until it is answered; a reply's names its root.
  if (message.threadTs === undefined || message.threadTs === message.ts) delete event.thread_ts;
  return event;
}

/** The bot was mentioned (`<@U…>` in the text) in a channel it is in. */
export function appMentionEvent(message: SandboxMessage): JsonObject {
  const event: JsonObject = {
    type: 'app_mention',
    user: message.user,
    text: message.text,
    ts: message.ts,
    team: TEAM.id,
    channel: message.channel,
    event_ts: message.ts,
  };
  if (message.threadTs !== undefined && message.threadTs !== message.ts) {
    event.thread_ts = message.threadTs;
  }
  return event;
}

/** A message was edited: `message_changed`, with the message before and after. */
export function messageChangedEvent(
  before: JsonObject,
  after: SandboxMessage,
  conversation: Conversation,
  eventTs: string,
): JsonObject {
  return {
    type: 'message',
    subtype: 'message_changed',
    hidden: true,
    channel: after.channel,
    channel_type: channelType(conversation),
    ts: eventTs,
    event_ts: eventTs,
    message: toSlackMessage(after),
    previous_message: before,
  };
}

export function mentionsBot(text: string): boolean {
  return text.includes(`<@${BOT.userId}>`) || text.includes(`<@${BOT.userId}|`);
}

/** The envelope every Events API delivery (HTTP body, or a Socket Mode `events_api` payload) has. */
export function eventCallback(
  event: JsonObject,
  eventId: string,
  eventTimeSec: number,
): JsonObject {
  return {
    token: 'sandbox-verification-token',
    team_id: TEAM.id,
    context_team_id: TEAM.id,
    context_enterprise_id: null,
    api_app_id: BOT.appId,
    event,
    type: 'event_callback',
    event_id: eventId,
    event_time: eventTimeSec,
    authorizations: [
      {
        enterprise_id: null,
        team_id: TEAM.id,
        user_id: BOT.userId,
        is_bot: true,
        is_enterprise_install: false,
      },
    ],
    is_ext_shared_channel: false,
    event_context: `4-${Buffer.from(`${TEAM.id}:${eventId}`).toString('base64url')}`,
  };
}

/**
 * A person opened the app's Home tab: `app_home_opened`, with the view the app last published
 * for them, if any (Slack leaves `view` out until the app has published one).
 */
export function appHomeOpenedEvent(
  person: Person,
  home: SandboxView | undefined,
  eventTs: string,
): JsonObject {
  const event: JsonObject = {
    type: 'app_home_opened',
    user: person.id,
    channel: person.dmId,
    tab: 'home',
    event_ts: eventTs,
  };
  if (home) event.view = toSlackView(home);
  return event;
}
