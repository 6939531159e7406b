import { escapeMrkdwn } from './escape.js';

/**
 * Slack's own markup that we do want live: user and group mentions, and dates that each reader
 * sees in their own time zone. Ids are checked before they go inside `<…>`, so a malformed id
 * cannot open a link or a broadcast.
 */

/** Slack ids (users `U…`/`W…`, groups `S…`, bots `B…`) are upper-case letters and digits. */
const SLACK_ID = /^[A-Z0-9]{2,64}$/;

export function userMention(id: string): string {
  return SLACK_ID.test(id) ? `<@${id}>` : `@${escapeMrkdwn(id.slice(0, 64))}`;
}

/** A channel link, or `undefined` for an id that is not one. */
export function channelMention(id: string): string | undefined {
  return SLACK_ID.test(id) ? `<#${id}>` : undefined;
}

/** Slack's own links (`chat.getPermalink`): http(s), no spaces, nothing that ends a link early. */
const PERMALINK = /^https?:\/\/[^\s|<>]+$/;
const URL_MAX = 3_000;

/** `<url|label>` for a link Slack gave us; nothing for anything else. `label` is escaped here. */
export function permalinkTo(permalink: string | undefined, label: string): string | undefined {
  if (permalink === undefined || permalink.length > URL_MAX || !PERMALINK.test(permalink)) {
    return undefined;
  }
  return `<${permalink}|${escapeMrkdwn(label)}>`;
}

export function usergroupMention(id: string): string {
  return SLACK_ID.test(id) ? `<!subteam^${id}>` : `@${escapeMrkdwn(id.slice(0, 64))}`;
}

/** Bounds of a JavaScript `Date`: beyond them `toISOString` throws. */
const MAX_DATE_MS = 8.64e15;

/**
 * `<!date^1795326457^{date_short_pretty} at {time}|2026-11-22T06:34:17Z>`: the reader's own
 * "Today at 09:34"; clients that cannot render it show the UTC fallback. `seconds`: "09:34:17",
 * for moments a few seconds apart (an undo window's end).
 */
export function slackDate(ms: number, precision: 'minutes' | 'seconds' = 'minutes'): string {
  if (!Number.isFinite(ms) || Math.abs(ms) > MAX_DATE_MS) return 'an unknown time';
  const fallback = new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
  const time = precision === 'seconds' ? '{time_secs}' : '{time}';
  return `<!date^${Math.floor(ms / 1000)}^{date_short_pretty} at ${time}|${fallback}>`;
}
