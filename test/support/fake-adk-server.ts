import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { type JsonObject, type JsonValue, parseJsonText } from '../../src/json.js';

/**
 * An ADK api_server at the HTTP boundary, for the flavours the real JS server cannot play: adk-rs
 * asking again with a call id it used before, ADK Java ending a failed run's stream with no error
 * frame. It keeps sessions (the user's messages and the events it streamed), records every
 * `/run_sse` body, and answers each run with the events its app's script gives for it. Only the
 * routes the app calls: `/list-apps`, creating and reading sessions, `/run_sse`.
 */

export interface ScriptedRun {
  sessionId: string;
  /** The message the app sent. */
  newMessage: JsonValue;
  /** 0 for the session's first run, 1 for the next… */
  index: number;
}

/** The events (JSON objects, streamed as `data:` frames) one run answers; the stream then ends. */
export type RunScript = (run: ScriptedRun) => JsonObject[];

export interface FakeAdkServer {
  baseUrl: string;
  /** Every `/run_sse` body, in order. */
  runs: JsonObject[];
  stop(): Promise<void>;
}

interface StoredSession {
  id: string;
  appName: string;
  userId: string;
  state: JsonObject;
  events: JsonObject[];
  lastUpdateTime: number;
  runs: number;
}

export async function startFakeAdkServer(apps: Record<string, RunScript>): Promise<FakeAdkServer> {
  const sessions = new Map<string, StoredSession>();
  const runs: JsonObject[] = [];
  const key = (app: string, user: string, id: string) => `${app}\u0000${user}\u0000${id}`;

  const handle = async (incoming: IncomingMessage, outgoing: ServerResponse) => {
    const body = await readJson(incoming);
    const path = new URL(incoming.url ?? '/', 'http://fake').pathname;
    const sessionRoute = /^\/apps\/([^/]+)\/users\/([^/]+)\/sessions(?:\/([^/]+))?$/.exec(path);

    if (incoming.method === 'GET' && path === '/list-apps') {
      return json(outgoing, 200, Object.keys(apps));
    }
    if (sessionRoute) {
      const [, app = '', user = '', given] = sessionRoute.map((part) =>
        part === undefined ? undefined : decodeURIComponent(part),
      );
      if (incoming.method === 'POST') {
        const id = given ?? randomUUID();
        const session: StoredSession = {
          id,
          appName: app,
          userId: user,
          state: {},
          events: [],
          lastUpdateTime: Date.now(),
          runs: 0,
        };
        sessions.set(key(app, user, id), session);
        return json(outgoing, 200, sessionJson(session));
      }
      const session = given === undefined ? undefined : sessions.get(key(app, user, given));
      if (!session) return json(outgoing, 404, { error: `Session not found: ${given}` });
      return json(outgoing, 200, sessionJson(session));
    }
    if (incoming.method === 'POST' && path === '/run_sse' && isObject(body)) {
      runs.push(body);
      const session = sessions.get(
        key(String(body.appName), String(body.userId), String(body.sessionId)),
      );
      const script = apps[String(body.appName)];
      if (!session || !script) return json(outgoing, 404, { error: 'Session not found' });
      const newMessage = body.newMessage ?? null;
      const index = session.runs++;
      session.events.push({
        id: randomUUID().slice(0, 8),
        invocationId: `e-user-${index}`,
        author: 'user',
        content: newMessage,
        timestamp: Date.now(),
      });
      outgoing.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      for (const event of script({ sessionId: session.id, newMessage, index })) {
        session.events.push(event);
        outgoing.write(`data: ${JSON.stringify(event)}\n\n`);
      }
      session.lastUpdateTime = Date.now();
      outgoing.end();
      return;
    }
    json(outgoing, 404, { error: `no route ${incoming.method} ${path}` });
  };

  const server: Server = createServer((incoming, outgoing) => {
    handle(incoming, outgoing).catch((error: unknown) => {
      if (!outgoing.headersSent) json(outgoing, 500, { error: String(error) });
      else outgoing.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (typeof address !== 'object' || address === null) throw new Error('the fake has no port');
  return {
    baseUrl: `http://127.0.0.1:${address.port}`,
    runs,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function sessionJson(session: StoredSession): JsonObject {
  const { id, appName, userId, state, events, lastUpdateTime } = session;
  return { id, appName, userId, state, events, lastUpdateTime };
}

function json(outgoing: ServerResponse, status: number, value: JsonValue): void {
  outgoing.writeHead(status, { 'content-type': 'application/json' });
  outgoing.end(JSON.stringify(value));
}

async function readJson(incoming: IncomingMessage): Promise<JsonValue | undefined> {
  const chunks: Buffer[] = [];
  for await (const chunk of incoming) chunks.push(Buffer.from(chunk));
  if (chunks.length === 0) return undefined;
  const parsed = parseJsonText(Buffer.concat(chunks).toString('utf8'));
  return parsed.ok ? toJson(parsed.value) : undefined;
}

function isObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Whatever JSON.parse returned, typed as JSON (it is, by construction). */
function toJson(value: unknown): JsonValue {
  if (value === null || typeof value !== 'object') {
    return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean'
      ? value
      : null;
  }
  if (Array.isArray(value)) return value.map(toJson);
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, toJson(v)]));
}
