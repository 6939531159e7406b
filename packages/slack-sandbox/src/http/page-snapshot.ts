import { type SandboxMessage, toSlackMessage } from '../conversations.js';
import type { JsonObject } from '../json.js';
import { toSlackView } from '../modals.js';
import type { SandboxState } from '../state.js';
import {
  allChannels,
  allPeople,
  allUserGroups,
  BOT,
  findConversation,
  isMember,
  SLACKBOT,
  TEAM,
} from '../workspace.js';

/** The page shows the newest messages of a conversation; older ones are only in the Web API. */
const MESSAGES_SHOWN = 500;
const NOTICES_SHOWN = 10;

/** Who is who, for the page's sidebar, person switch and mention rendering. */
export function workspaceDirectory(state: SandboxState): JsonObject {
  return {
    team: { ...TEAM },
    bot: { ...BOT },
    slackbot: { ...SLACKBOT },
    people: allPeople().map((p) => ({ ...p })),
    channels: allChannels().map((c) => ({ ...c, members: [...c.members] })),
    usergroups: allUserGroups().map((g) => ({ ...g, users: [...state.membersOfGroup(g)] })),
  };
}

/** What one person sees: their conversations with threads, their ephemerals, modals and notices. */
export function pageSnapshot(
  state: SandboxState,
  userId: string,
  appConnected: boolean,
): JsonObject {
  const conversations: JsonObject = {};
  const ids = [...allChannels().map((c) => c.id), ...allPeople().map((p) => p.dmId)];
  for (const id of ids) {
    const conversation = findConversation(id);
    if (!conversation || !isMember(conversation, userId)) continue;
    const roots = state.conversations.roots(id).slice(-MESSAGES_SHOWN);
    const threads: JsonObject = {};
    for (const root of roots) {
      if (root.threadTs === root.ts) {
        threads[root.ts] = state.conversations.replies(id, root.ts).map(pageMessage);
      }
    }
    conversations[id] = { messages: roots.map(pageMessage), threads };
  }
  return {
    version: state.currentVersion,
    appConnected,
    conversations,
    ephemerals: state.conversations.ephemeralsFor(userId).map((e) => ({
      channel: e.channel,
      ts: e.ts,
      user: e.user,
      from: e.from,
      text: e.text,
      blocks: e.blocks,
      thread_ts: e.threadTs ?? null,
    })),
    views: state.modals.stack(userId).map((v) => ({
      view: toSlackView(v),
      errors: { ...v.errors },
      notice: v.notice ?? null,
    })),
    home: homeOf(state, userId),
    notices: state.notices
      .filter((n) => n.user === userId)
      .slice(-NOTICES_SHOWN)
      .map((n) => ({
        id: n.id,
        text: n.text,
        channel: n.channel ?? null,
        messageTs: n.messageTs ?? null,
        viewId: n.viewId ?? null,
        atMs: n.atMs,
      })),
  };
}

/** The person's Home tab as the app last published it, or null before it ever did. */
function homeOf(state: SandboxState, userId: string): JsonObject | null {
  const home = state.homes.of(userId);
  return home === undefined ? null : toSlackView(home);
}

function pageMessage(message: SandboxMessage): JsonObject {
  return { ...toSlackMessage(message), channel: message.channel };
}
