/**
 * Links to messages, computed instead of asked for. Slack documents the form `chat.getPermalink`
 * answers (docs.slack.dev, chat.getPermalink): the workspace's URL (`auth.test`'s `url`), then
 * `archives/<channel>/p<ts without its dot>`, and for a reply in a thread
 * `?thread_ts=<the thread's ts>&cid=<channel>`. Computing it saves a Web API call per link (one
 * per decision: the run root's link to its card).
 */

/** A message's `ts`: seconds, a dot, six digits (`1358546515.000008`). */
const MESSAGE_TS = /^\d{1,12}\.\d{6}$/;
/** Conversation ids (`C…`, `G…`, `D…`) are upper-case letters and digits. */
const CONVERSATION_ID = /^[A-Z0-9]{2,64}$/;

export interface MessageRef {
  channel: string;
  ts: string;
  /** The ts of the thread the message is a reply in; absent (or its own ts) for a top-level message. */
  threadTs?: string | undefined;
}

/**
 * The workspace's base URL from `auth.test`'s `url` (`https://acme.slack.com/`), or undefined when
 * it is not a plain http(s) origin (then links are asked of Slack, as before).
 */
export function workspaceUrlOf(url: string | undefined): string | undefined {
  if (url === undefined) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return undefined;
  if (parsed.username !== '' || parsed.password !== '' || parsed.search !== '') return undefined;
  if (parsed.hash !== '') return undefined;
  return parsed.pathname.endsWith('/') ? parsed.href : `${parsed.href}/`;
}

/**
 * The permalink Slack would give for `message`, or undefined when an id is not of Slack's form
 * (then the caller asks Slack). `workspaceUrl`: from `workspaceUrlOf`.
 */
export function messagePermalink(workspaceUrl: string, message: MessageRef): string | undefined {
  const { channel, ts, threadTs } = message;
  if (!CONVERSATION_ID.test(channel) || !MESSAGE_TS.test(ts)) return undefined;
  const link = `${workspaceUrl}archives/${channel}/p${ts.replace('.', '')}`;
  if (threadTs === undefined || threadTs === ts) return link;
  if (!MESSAGE_TS.test(threadTs)) return undefined;
  return `${link}?thread_ts=${threadTs}&cid=${channel}`;
}
