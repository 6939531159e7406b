import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { mediaType, parseForm, parseJsonObject, readBody, sendJson } from '../http/bodies.js';
import type { JsonObject } from '../json.js';
import type { Log } from '../log.js';
import { type Arguments, loggedArguments, stringArg } from './arguments.js';
import * as chat from './chat.js';
import type { WebApiContext } from './context.js';
import * as directory from './directory.js';
import { failure, type MethodResult } from './results.js';
import * as views from './views.js';

type Method = (args: Arguments, context: WebApiContext) => MethodResult;

/** The methods the sandbox answers; anything else is an honest `unknown_method`. */
const METHODS: Record<string, Method> = {
  'api.test': directory.apiTest,
  'auth.test': directory.authTest,
  'chat.postMessage': chat.postMessage,
  'chat.update': chat.update,
  'chat.postEphemeral': chat.postEphemeral,
  'chat.delete': chat.deleteMessage,
  'chat.getPermalink': chat.getPermalink,
  'views.open': views.open,
  'views.push': views.push,
  'views.update': views.update,
  'views.publish': views.publish,
  'users.info': directory.usersInfo,
  'users.lookupByEmail': directory.usersLookupByEmail,
  'usergroups.list': directory.usergroupsList,
  'usergroups.users.list': directory.usergroupsUsersList,
  'conversations.members': directory.conversationsMembers,
  'conversations.info': directory.conversationsInfo,
  'conversations.open': directory.conversationsOpen,
  'conversations.history': directory.conversationsHistory,
  'conversations.replies': directory.conversationsReplies,
};

/** Methods that need no token at Slack either. */
const UNAUTHENTICATED = new Set(['api.test']);

const SCOPES =
  'chat:write,chat:write.public,commands,users:read,usergroups:read,channels:read,groups:read,im:write';

export interface WebApiOptions {
  botToken: string;
  /** The app-level token; only `apps.connections.open` takes it. */
  appToken?: string;
  /** A one-time `ws://` URL of the sandbox's Socket Mode server. */
  openSocketUrl: () => string;
  log: Log;
}

/** `/api/<method>`: parse the arguments, check the token, maybe answer 429, run the method, log the call. */
export async function handleWebApi(
  req: IncomingMessage,
  res: ServerResponse,
  method: string,
  context: WebApiContext,
  options: WebApiOptions,
): Promise<void> {
  const { state } = context;
  const parsed = await readArguments(req);
  const args = parsed.ok ? parsed.args : {};
  const answer = (status: number, body: MethodResult, headers: Record<string, string> = {}) => {
    state.recordCall({
      method,
      args: loggedArguments(args),
      status,
      ok: body.ok === true,
      error: typeof body.error === 'string' ? body.error : undefined,
      atMs: state.nowMs(),
    });
    state.changed();
    // The method and outcome only: arguments can hold tool arguments (debug level at most).
    options.log.info('web api call', {
      method,
      status,
      error: typeof body.error === 'string' ? body.error : undefined,
    });
    sendJson(res, status, body, { 'x-oauth-scopes': SCOPES, ...headers });
  };

  if (method === 'apps.connections.open') {
    // Slack: only an app-level token with `connections:write` may open a connection.
    const token = bearerToken(req) ?? stringArg(args, 'token');
    if (token === undefined) return answer(200, failure('not_authed'));
    if (token.startsWith('xoxb-')) return answer(200, failure('not_allowed_token_type'));
    if (options.appToken === undefined || !sameSecret(token, options.appToken))
      return answer(200, failure('invalid_auth'));
    return answer(200, { ok: true, url: options.openSocketUrl() });
  }
  const implementation = METHODS[method];
  if (!implementation) return answer(200, failure('unknown_method', { req_method: method }));
  if (!parsed.ok) return answer(200, failure(parsed.error));
  if (!UNAUTHENTICATED.has(method)) {
    const token = bearerToken(req) ?? stringArg(args, 'token');
    if (token === undefined) return answer(200, failure('not_authed'));
    if (!sameSecret(token, options.botToken)) return answer(200, failure('invalid_auth'));
  }
  const retryAfterSec =
    state.rateLimits.take(method) ?? state.channelRates.take(method, stringArg(args, 'channel'));
  if (retryAfterSec !== undefined) {
    return answer(429, failure('ratelimited'), { 'retry-after': String(retryAfterSec) });
  }
  answer(200, implementation(args, context));
}

type ArgumentsRead = { ok: true; args: Arguments } | { ok: false; error: string };

async function readArguments(req: IncomingMessage): Promise<ArgumentsRead> {
  const query: JsonObject = parseForm(new URL(req.url ?? '/', 'http://sandbox').search.slice(1));
  const body = await readBody(req);
  if (!body.ok) return { ok: false, error: 'request_too_large' };
  if (body.text === '') return { ok: true, args: query };
  const type = mediaType(req);
  if (type === 'application/json') {
    const json = parseJsonObject(body.text);
    return json.ok
      ? { ok: true, args: { ...query, ...json.value } }
      : { ok: false, error: 'invalid_json' };
  }
  if (type === 'application/x-www-form-urlencoded') {
    return { ok: true, args: { ...query, ...parseForm(body.text) } };
  }
  return { ok: false, error: 'invalid_form_data' };
}

function bearerToken(req: IncomingMessage): string | undefined {
  const header = req.headers.authorization;
  const match = header === undefined ? null : /^Bearer\s+(\S+)$/i.exec(header);
  return match?.[1];
}

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
