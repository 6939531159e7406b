import { formatSlackDate, fullTime } from './dates.js';
import { h } from './dom.js';
import { withEmoji } from './emoji.js';

/**
 * Slack's mrkdwn rendered to DOM nodes: *bold*, _italic_, ~strike~, `code`, ``` blocks ```,
 * > quotes, <links|label>, <@U…> / <!subteam^S…> / <#C…> / <!here> mentions and <!date^…> tokens.
 * Only `&amp;`, `&lt;` and `&gt;` are entities, as in Slack. Every piece of text becomes a text
 * node; nothing is parsed as HTML.
 *
 * @typedef {{ id: string, name: string, realName: string }} PersonRef
 * @typedef {{ id: string, handle: string, users: string[] }} GroupRef
 * @typedef {{ id: string, name: string }} ChannelRef
 * @typedef {{
 *   people: Map<string, PersonRef>,
 *   groups: Map<string, GroupRef>,
 *   channels: Map<string, ChannelRef>,
 *   me: string,
 *   onChannel: (id: string) => void,
 * }} MrkdwnContext
 */

/** @param {string} text */
export function decodeEntities(text) {
  return text.replace(/&(amp|lt|gt);/g, (_, name) => ({ amp: '&', lt: '<', gt: '>' })[name]);
}

/**
 * A plain_text object's text: entities decoded, emoji shortcodes shown when `emoji` isn't false.
 * @param {{ text?: unknown, emoji?: unknown } | undefined} object
 */
export function plainText(object) {
  const text = typeof object?.text === 'string' ? decodeEntities(object.text) : '';
  return object?.emoji === false ? text : withEmoji(text);
}

/**
 * A text object (plain_text or mrkdwn) as nodes.
 * @param {{ type?: unknown, text?: unknown, emoji?: unknown } | undefined} object
 * @param {MrkdwnContext} context
 */
export function renderTextObject(object, context) {
  if (object?.type === 'mrkdwn')
    return renderMrkdwn(typeof object.text === 'string' ? object.text : '', context);
  return document.createTextNode(plainText(object));
}

/**
 * @param {string} text
 * @param {MrkdwnContext} context
 * @returns {DocumentFragment}
 */
export function renderMrkdwn(text, context) {
  const fragment = document.createDocumentFragment();
  const fence = /```([\s\S]*?)```/g;
  let last = 0;
  for (const match of text.matchAll(fence)) {
    fragment.append(renderLines(text.slice(last, match.index), context));
    const code = decodeEntities((match[1] ?? '').replace(/^\n/, '').replace(/\n$/, ''));
    fragment.append(h('pre', { class: 'code-block' }, code));
    last = (match.index ?? 0) + match[0].length;
  }
  fragment.append(renderLines(text.slice(last), context));
  return fragment;
}

const QUOTE = /^(?:>|&gt;) ?/;

/** Lines, with runs of quoted lines (`>` or `&gt;` first) in a blockquote. */
function renderLines(text, context) {
  const fragment = document.createDocumentFragment();
  if (text === '') return fragment;
  const lines = text.split('\n');
  let quote = null;
  lines.forEach((line, index) => {
    const last = index === lines.length - 1;
    if (QUOTE.test(line)) {
      if (!quote) {
        quote = h('blockquote', { class: 'quote' });
        fragment.append(quote);
      } else quote.append('\n');
      quote.append(...inline(line.replace(QUOTE, ''), context));
      return;
    }
    quote = null;
    fragment.append(...inline(line, context));
    if (!last && !QUOTE.test(lines[index + 1] ?? '')) fragment.append('\n');
  });
  return fragment;
}

const MARKS = { '*': 'strong', _: 'em', '~': 's' };
const WORD = /[\p{L}\p{N}]/u;

/** A formatting mark opens at the start or after a non-word character, before a non-space. */
function opens(text, i) {
  const before = text[i - 1];
  const after = text[i + 1];
  return (
    (before === undefined || !WORD.test(before)) &&
    after !== undefined &&
    !/\s/.test(after) &&
    after !== text[i]
  );
}

/** Where the mark opened at `i` closes, skipping code spans and <…> tokens; -1 if nowhere. */
function closing(text, i) {
  const mark = text[i];
  for (let j = i + 1; j < text.length; j++) {
    const c = text[j];
    if (c === '`' || c === '<') {
      const end = text.indexOf(c === '`' ? '`' : '>', j + 1);
      if (end > j) {
        j = end;
        continue;
      }
    }
    if (c !== mark || j === i + 1) continue;
    const before = text[j - 1] ?? '';
    const after = text[j + 1];
    if (!/\s/.test(before) && (after === undefined || !WORD.test(after))) return j;
  }
  return -1;
}

/** @returns {Node[]} */
function inline(text, context) {
  /** @type {Node[]} */
  const out = [];
  let buffer = '';
  const flush = () => {
    if (buffer !== '') out.push(document.createTextNode(withEmoji(decodeEntities(buffer))));
    buffer = '';
  };
  let i = 0;
  while (i < text.length) {
    const c = text[i] ?? '';
    if (c === '`') {
      const end = text.indexOf('`', i + 1);
      if (end > i + 1) {
        flush();
        out.push(h('code', { class: 'inline-code' }, decodeEntities(text.slice(i + 1, end))));
        i = end + 1;
        continue;
      }
    }
    if (c === '<') {
      const end = text.indexOf('>', i + 1);
      if (end > i + 1) {
        flush();
        out.push(angleToken(text.slice(i + 1, end), context));
        i = end + 1;
        continue;
      }
    }
    if (c in MARKS && opens(text, i)) {
      const end = closing(text, i);
      if (end > 0) {
        flush();
        out.push(h(MARKS[c], {}, inline(text.slice(i + 1, end), context)));
        i = end + 1;
        continue;
      }
    }
    buffer += c;
    i += 1;
  }
  flush();
  return out;
}

const SAFE_PROTOCOLS = new Set(['http:', 'https:', 'mailto:']);

/** @param {string} raw */
function safeUrl(raw) {
  try {
    const url = new URL(raw);
    return SAFE_PROTOCOLS.has(url.protocol) ? url.href : undefined;
  } catch {
    return undefined;
  }
}

/** `<…>`: a mention, a channel, a special command, a date, or a link. Anything else stays literal text. */
function angleToken(inner, context) {
  const bar = inner.indexOf('|');
  const target = bar < 0 ? inner : inner.slice(0, bar);
  const label = bar < 0 ? undefined : decodeEntities(inner.slice(bar + 1));
  const literal = () => document.createTextNode(decodeEntities(`<${inner}>`));

  if (target.startsWith('@')) {
    const id = target.slice(1);
    const person = context.people.get(id);
    const name = person?.name ?? label?.replace(/^@/, '') ?? id;
    return h(
      'span',
      {
        class: `mention${id === context.me ? ' mention-me' : ''}`,
        dataset: { userId: id },
        title: person?.realName,
      },
      `@${name}`,
    );
  }
  if (target.startsWith('#')) {
    const id = target.slice(1);
    const channel = context.channels.get(id);
    return h(
      'button',
      { type: 'button', class: 'channel-link', onClick: () => context.onChannel(id) },
      `#${channel?.name ?? label ?? id}`,
    );
  }
  if (target.startsWith('!')) {
    const command = target.slice(1);
    if (command.startsWith('subteam^')) {
      const id = command.slice('subteam^'.length);
      const group = context.groups.get(id);
      const mine = group?.users.includes(context.me) ?? false;
      return h(
        'span',
        { class: `mention${mine ? ' mention-me' : ''}`, dataset: { groupId: id } },
        `@${group?.handle ?? label?.replace(/^@/, '') ?? id}`,
      );
    }
    if (command === 'here' || command === 'channel' || command === 'everyone') {
      return h('span', { class: 'mention mention-me' }, `@${command}`);
    }
    if (command.startsWith('date^')) {
      const [, seconds, format, link] = command.split('^');
      const unix = Number(seconds);
      if (!Number.isFinite(unix) || format === undefined)
        return document.createTextNode(label ?? '');
      const text = formatSlackDate(unix, decodeEntities(format));
      const href = link === undefined ? undefined : safeUrl(decodeEntities(link));
      const time = h(
        'time',
        {
          class: 'date',
          datetime: new Date(unix * 1000).toISOString(),
          title: fullTime(String(unix)),
        },
        text,
      );
      return href ? h('a', { href, target: '_blank', rel: 'noopener noreferrer' }, time) : time;
    }
    return label === undefined ? literal() : document.createTextNode(label);
  }
  const href = safeUrl(decodeEntities(target));
  if (!href) return literal();
  return h(
    'a',
    { href, target: '_blank', rel: 'noopener noreferrer' },
    label ?? decodeEntities(target),
  );
}
