import { renderBlocks } from './blocks.js';
import { fullTime, messageDay, messageTime } from './dates.js';
import { h, icon, initials } from './dom.js';
import { renderMrkdwn } from './mrkdwn.js';

/**
 * A conversation's messages as Slack shows them: day dividers, consecutive messages from one
 * author grouped under one name, blocks in place of the text, thread summaries, ephemeral
 * messages marked "Only visible to you".
 *
 * @typedef {{ name: string, color: string, badge?: string, avatar: string }} Author
 * @typedef {{ kind: 'message', message: any } | { kind: 'ephemeral', ephemeral: any }} Item
 * @typedef {{
 *   context: import('./mrkdwn.js').MrkdwnContext,
 *   author: (userId: string) => Author,
 *   notices: any[],
 *   threads: Record<string, any[]>,
 *   inThread: boolean,
 *   onAction: (item: Item, request: import('./blocks.js').ActionRequest) => Promise<void>,
 *   onOpenThread: (ts: string) => void,
 *   onDismiss: (ts: string) => void,
 * }} ListEnv
 */

/** Slack groups messages from one author posted within five minutes. */
const GROUP_SECONDS = 5 * 60;

const authorOf = (item) => (item.kind === 'message' ? item.message.user : item.ephemeral.from);
const tsOf = (item) => (item.kind === 'message' ? item.message.ts : item.ephemeral.ts);

/**
 * @param {Item[]} items
 * @param {ListEnv} env
 * @param {Item} [startAfter] an item shown just above these (a thread's parent), for day dividers and grouping
 */
export function renderMessageItems(items, env, startAfter) {
  const nodes = [];
  let previous = startAfter;
  for (const item of items) {
    const ts = tsOf(item);
    const day = messageDay(ts);
    if (!previous || messageDay(tsOf(previous)) !== day) {
      nodes.push(
        h(
          'div',
          { class: 'day-divider', role: 'separator' },
          h('span', { class: 'day-label' }, day),
        ),
      );
      previous = undefined;
    }
    const grouped =
      previous !== undefined &&
      authorOf(previous) === authorOf(item) &&
      previous.kind === item.kind &&
      Number(ts) - Number(tsOf(previous)) < GROUP_SECONDS &&
      !(previous.kind === 'message' && (previous.message.reply_count ?? 0) > 0);
    nodes.push(renderItem(item, grouped, env));
    previous = item;
  }
  return nodes;
}

/** @param {Item} item @param {boolean} grouped @param {ListEnv} env */
function renderItem(item, grouped, env) {
  const message = item.kind === 'message' ? item.message : item.ephemeral;
  const userId = authorOf(item);
  const author = env.author(userId);
  const ts = message.ts;
  const ephemeral = item.kind === 'ephemeral';
  const deleted = message.subtype === 'tombstone';
  const blocks = Array.isArray(message.blocks) ? message.blocks : [];

  const body = [];
  if (deleted) body.push(h('div', { class: 'message-text deleted' }, 'This message was deleted.'));
  else if (blocks.length > 0) {
    body.push(
      renderBlocks(blocks, {
        context: env.context,
        surface: 'message',
        onAction: (request) => env.onAction(item, request),
      }),
    );
  } else {
    body.push(
      h(
        'div',
        { class: 'message-text', 'data-testid': 'message-text' },
        renderMrkdwn(message.text ?? '', env.context),
      ),
    );
  }
  if (message.edited && !deleted)
    body.push(h('span', { class: 'edited', title: fullTime(message.edited.ts) }, '(edited)'));
  if (message.subtype === 'thread_broadcast' && !env.inThread) {
    body.push(h('div', { class: 'broadcast-note' }, 'replied to a thread'));
  }
  for (const notice of env.notices.filter((n) => n.messageTs === ts)) {
    body.push(
      h(
        'div',
        { class: 'message-notice', role: 'status', 'data-testid': 'message-notice' },
        `⚠️ ${notice.text}`,
      ),
    );
  }
  const replies = env.threads[ts] ?? [];
  if (!env.inThread && !ephemeral && (message.reply_count ?? 0) > 0) {
    body.push(threadSummary(message, replies, env));
  }
  if (ephemeral) {
    body.push(
      h(
        'div',
        { class: 'ephemeral-footer' },
        icon('eye'),
        h('span', {}, 'Only visible to you'),
        h(
          'button',
          { type: 'button', class: 'link-button', onClick: () => env.onDismiss(ts) },
          'Dismiss message',
        ),
      ),
    );
  }

  const time = h(
    'time',
    {
      class: 'message-time',
      datetime: new Date(Number(ts) * 1000).toISOString(),
      title: fullTime(ts),
    },
    messageTime(ts),
  );
  const hoverActions =
    !ephemeral && !env.inThread && !deleted
      ? h(
          'div',
          { class: 'hover-actions' },
          h(
            'button',
            {
              type: 'button',
              class: 'hover-action',
              'aria-label': 'Reply in thread',
              title: 'Reply in thread',
              'data-testid': 'reply-in-thread',
              onClick: () => env.onOpenThread(ts),
            },
            icon('thread'),
          ),
        )
      : undefined;

  return h(
    'div',
    {
      class: `message${grouped ? ' grouped' : ''}${ephemeral ? ' ephemeral' : ''}`,
      role: 'article',
      'aria-label': `${author.name} at ${messageTime(ts)}`,
      'data-testid': ephemeral ? 'ephemeral' : 'message',
      dataset: { ts, user: userId },
    },
    h(
      'div',
      { class: 'gutter' },
      grouped
        ? h('span', { class: 'gutter-time' }, messageTime(ts))
        : h(
            'div',
            { class: 'avatar', style: { '--avatar': author.color }, 'aria-hidden': 'true' },
            author.avatar,
          ),
    ),
    h(
      'div',
      { class: 'message-content' },
      !grouped &&
        h(
          'div',
          { class: 'message-meta' },
          h('span', { class: 'author' }, author.name),
          author.badge && h('span', { class: 'badge' }, author.badge),
          time,
        ),
      body,
    ),
    hoverActions,
  );
}

function threadSummary(message, replies, env) {
  const users = [...new Set(replies.map((r) => r.user))].slice(0, 5);
  const count = message.reply_count ?? replies.length;
  return h(
    'button',
    {
      type: 'button',
      class: 'thread-summary',
      'data-testid': 'thread-summary',
      onClick: () => env.onOpenThread(message.ts),
    },
    h(
      'span',
      { class: 'thread-avatars', 'aria-hidden': 'true' },
      users.map((id) => {
        const author = env.author(id);
        return h(
          'span',
          { class: 'avatar small', style: { '--avatar': author.color } },
          author.avatar,
        );
      }),
    ),
    h('span', { class: 'reply-count' }, `${count} ${count === 1 ? 'reply' : 'replies'}`),
    message.latest_reply &&
      h('span', { class: 'last-reply' }, `Last reply ${messageTime(message.latest_reply)}`),
  );
}

/** An author for the page: people, the app's bot and Slackbot. */
export function authorResolver(workspace) {
  const people = new Map(workspace.people.map((p) => [p.id, p]));
  return (userId) => {
    if (userId === workspace.bot.userId) {
      return { name: workspace.bot.realName, color: '#4a154b', badge: 'APP', avatar: '✓' };
    }
    if (userId === workspace.slackbot.id)
      return { name: 'Slackbot', color: '#2eb67d', badge: '', avatar: '♥' };
    const person = people.get(userId);
    if (!person) return { name: userId, color: '#616061', avatar: '?' };
    return { name: person.realName, color: person.color, avatar: initials(person.realName) };
  };
}
