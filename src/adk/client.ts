import { z } from 'zod';
import { type JsonObject, parseJsonText } from '../json.js';
import { type Metrics, noMetrics, secondsSince } from '../metrics.js';
import { CallScope } from './call-scope.js';
import { AdkError, truncateServerMessage } from './errors.js';
import { type HttpAnswer, HttpTransport } from './http-transport.js';
import { readSseFrames, type SseFrame } from './sse.js';
import {
  type AdkEvent,
  type AdkSession,
  type Content,
  parseEvent,
  parseIntentMismatch,
  parseSession,
} from './wire.js';

export interface AdkClientOptions {
  /** The API server, e.g. `http://127.0.0.1:8000`. */
  baseUrl: string;
  /** Sent as `Authorization: Bearer <token>` (for a proxy in front of the server). */
  token?: string;
  /** Limit for calls other than runs, response body included. Default 10 s. */
  requestTimeoutMs?: number;
  /** Limit for a whole run, from request to the end of its stream. Default 300 s. */
  runTimeoutMs?: number;
  /** A run that sends no bytes for this long is aborted. Default 120 s. */
  idleTimeoutMs?: number;
  /** The largest SSE frame accepted, in characters. Default 16 MiB. */
  maxFrameSize?: number;
  /** Told the latency and outcome of every call (runs: until the stream starts). */
  metrics?: Metrics;
  /** How long an unused connection is kept for the next call. Default: 4 s, 55 s over https. */
  keptAliveMs?: number;
}

export interface CallOptions {
  signal?: AbortSignal;
}

export interface RunRequest {
  appName: string;
  userId: string;
  sessionId: string;
  newMessage: Content;
  /** Only for resumable targets (see `buildResume`); ADK JS ignores it. */
  invocationId?: string;
  /** Model streaming: text arrives as partial events, then whole. Default false. */
  streaming?: boolean;
  stateDelta?: JsonObject;
}

/** One item of a run's stream. A frame that is not a valid event is reported, never dropped. */
export type RunItem = { type: 'event'; event: AdkEvent } | { type: 'malformed'; error: AdkError };

const listAppsSchema = z.array(z.string());
/** Python (FastAPI) puts request validation errors in a list; only `loc` and `msg` are safe to show. */
const httpErrorBodySchema = z.union([
  z.object({ error: z.string() }),
  z.object({ detail: z.string() }),
  z.object({
    detail: z.array(
      z.object({ loc: z.array(z.union([z.string(), z.number()])).optional(), msg: z.string() }),
    ),
  }),
]);

const MAX_ERROR_BODY = 64 * 1024;

/** The ADK API server's HTTP API (JS `adk api_server`; Python `adk api_server` speaks the same). */
export class AdkClient {
  private readonly baseUrl: string;
  private readonly token: string | undefined;
  private readonly http: HttpTransport;
  private readonly requestTimeoutMs: number;
  private readonly runTimeoutMs: number;
  private readonly idleTimeoutMs: number;
  private readonly maxFrameSize: number | undefined;
  private readonly metrics: Metrics;

  constructor(options: AdkClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.token = options.token;
    this.http = new HttpTransport(this.baseUrl, options.keptAliveMs);
    this.requestTimeoutMs = options.requestTimeoutMs ?? 10_000;
    this.runTimeoutMs = options.runTimeoutMs ?? 300_000;
    this.idleTimeoutMs = options.idleTimeoutMs ?? 120_000;
    this.maxFrameSize = options.maxFrameSize;
    this.metrics = options.metrics ?? noMetrics;
  }

  async listApps(options: CallOptions = {}): Promise<string[]> {
    const json = await this.requestJson('list_apps', 'GET', '/list-apps', undefined, options);
    const apps = listAppsSchema.safeParse(json);
    if (!apps.success)
      throw new AdkError('protocol', 'GET /list-apps did not return a list of names');
    return apps.data;
  }

  /** Creates a session; with `sessionId`, that id (HTTP 400 if it exists). */
  async createSession(
    appName: string,
    userId: string,
    options: CallOptions & { sessionId?: string; state?: JsonObject } = {},
  ): Promise<AdkSession> {
    const path =
      options.sessionId === undefined
        ? `${sessionsPath(appName, userId)}`
        : `${sessionsPath(appName, userId)}/${encodeURIComponent(options.sessionId)}`;
    const json = await this.requestJson(
      'create_session',
      'POST',
      path,
      { state: options.state ?? {} },
      options,
    );
    return this.session(json, `POST ${path}`);
  }

  async getSession(
    appName: string,
    userId: string,
    sessionId: string,
    options: CallOptions = {},
  ): Promise<AdkSession> {
    const path = `${sessionsPath(appName, userId)}/${encodeURIComponent(sessionId)}`;
    const json = await this.requestJson('get_session', 'GET', path, undefined, options);
    return this.session(json, `GET ${path}`);
  }

  /**
   * Runs the agent and yields its events as they arrive. Reads to the end of the stream: the
   * server aborts the run when the connection closes, so a consumer that stops early cancels the
   * run. A `data: {"error": ...}` frame (sent with HTTP 200 when the run fails after starting)
   * ends the iteration with `AdkError('stream_error')`.
   */
  async *runSse(request: RunRequest, options: CallOptions = {}): AsyncGenerator<RunItem, void> {
    const scope = new CallScope('ADK run (POST /run_sse)', options.signal);
    try {
      scope.limit(this.runTimeoutMs, `took longer than ${this.runTimeoutMs} ms`);
      const idle = scope.limit(this.idleTimeoutMs, `sent nothing for ${this.idleTimeoutMs} ms`);
      const started = performance.now();
      const response = await this.measured('run_sse', started, async () => {
        const answer = await this.send('POST', '/run_sse', runBody(request), scope);
        if (!answer.ok) throw await httpError(answer, 'POST /run_sse', scope);
        return answer;
      });
      const type = response.contentType;
      if (!type.startsWith('text/event-stream')) {
        throw new AdkError(
          'protocol',
          `POST /run_sse answered ${type || 'no content type'}, not an event stream`,
        );
      }
      const frames = readSseFrames(
        resettingOnEachChunk(response.body, idle.reset),
        this.frameOptions(),
      );
      let index = 0;
      for await (const frame of frames) {
        const item = runItem(frame, index++);
        if (item === undefined) continue;
        // The consumer's own time (e.g. posting to Slack) is not server silence.
        idle.pause();
        yield item;
        idle.reset();
      }
    } catch (error) {
      throw scope.toError(error);
    } finally {
      scope.close();
    }
  }

  private frameOptions() {
    return this.maxFrameSize === undefined ? {} : { maxFrameSize: this.maxFrameSize };
  }

  private session(json: unknown, what: string): AdkSession {
    const session = parseSession(json);
    if (!session.success) throw new AdkError('protocol', `${what}: ${session.error.message}`);
    return session.data;
  }

  /** Reports the call's latency, and its error reason when it throws. */
  private async measured<T>(metric: string, started: number, call: () => Promise<T>): Promise<T> {
    try {
      const result = await call();
      this.metrics.externalCall('adk', metric, secondsSince(started), undefined);
      return result;
    } catch (error) {
      const reason = error instanceof AdkError ? error.reason : 'network';
      this.metrics.externalCall('adk', metric, secondsSince(started), reason);
      throw error;
    }
  }

  private async requestJson(
    metric: string,
    method: 'GET' | 'POST',
    path: string,
    body: JsonObject | undefined,
    options: CallOptions,
  ): Promise<unknown> {
    const what = `${method} ${path}`;
    const scope = new CallScope(`ADK request ${what}`, options.signal);
    try {
      scope.limit(this.requestTimeoutMs, `took longer than ${this.requestTimeoutMs} ms`);
      return await this.measured(metric, performance.now(), async () => {
        const response = await this.send(method, path, body, scope);
        if (!response.ok) throw await httpError(response, what, scope);
        const json = parseJsonText(await response.text());
        if (!json.ok) throw new AdkError('protocol', `${what} did not return JSON`);
        return json.value;
      });
    } catch (error) {
      throw scope.toError(error);
    } finally {
      scope.close();
    }
  }

  private send(
    method: 'GET' | 'POST',
    path: string,
    body: JsonObject | undefined,
    scope: CallScope,
  ): Promise<HttpAnswer> {
    scope.throwIfStopped();
    const headers: Record<string, string> = { accept: 'application/json, text/event-stream' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (this.token !== undefined) headers.authorization = `Bearer ${this.token}`;
    return this.http.send({
      method,
      path,
      headers,
      signal: scope.signal,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  }

  /** Closes the connections kept alive for later calls. */
  close(): void {
    this.http.close();
  }
}

function sessionsPath(appName: string, userId: string): string {
  return `/apps/${encodeURIComponent(appName)}/users/${encodeURIComponent(userId)}/sessions`;
}

/** ADK JS reads only camelCase keys (`app_name` gives "Session not found: undefined"). */
function runBody(request: RunRequest): JsonObject {
  const body: JsonObject = {
    appName: request.appName,
    userId: request.userId,
    sessionId: request.sessionId,
    newMessage: contentJson(request.newMessage),
    streaming: request.streaming ?? false,
  };
  if (request.stateDelta !== undefined) body.stateDelta = request.stateDelta;
  if (request.invocationId !== undefined) body.invocationId = request.invocationId;
  return body;
}

/** The message as JSON, without keys whose value is undefined. */
function contentJson(content: Content): JsonObject {
  const parts = content.parts.map((part) => {
    const json: JsonObject = {};
    if (part.text !== undefined) json.text = part.text;
    if (part.thought !== undefined) json.thought = part.thought;
    if (part.functionCall !== undefined) {
      const { id, name, args } = part.functionCall;
      json.functionCall = id === undefined ? { name, args } : { id, name, args };
    }
    if (part.functionResponse !== undefined) {
      const { id, name, response, willContinue } = part.functionResponse;
      const functionResponse: JsonObject = id === undefined ? { name } : { id, name };
      if (response !== undefined) functionResponse.response = response;
      if (willContinue !== undefined) functionResponse.willContinue = willContinue;
      json.functionResponse = functionResponse;
    }
    return json;
  });
  return content.role === undefined ? { parts } : { role: content.role, parts };
}

async function* resettingOnEachChunk(
  body: AsyncIterable<Uint8Array>,
  onChunk: () => void,
): AsyncGenerator<Uint8Array, void> {
  for await (const chunk of body) {
    onChunk();
    yield chunk;
  }
}

/** Turns one frame into a run item; throws the error an `{"error": ...}` frame carries. */
function runItem(frame: SseFrame, index: number): RunItem | undefined {
  // An empty `data:` line carries nothing (some servers use it as a keep-alive).
  if (frame.data.trim() === '') return undefined;
  const json = parseJsonText(frame.data);
  if (!json.ok) {
    return {
      type: 'malformed',
      error: new AdkError(
        'protocol',
        `SSE frame ${index} is not JSON (${frame.data.length} characters)`,
      ),
    };
  }
  const failure = errorFrameMessage(json.value);
  if (failure !== undefined) {
    const serverMessage = truncateServerMessage(failure);
    const intentMismatch = parseIntentMismatch(failure.trim());
    throw new AdkError('stream_error', `ADK run failed: ${serverMessage}`, {
      serverMessage,
      ...(intentMismatch ? { intentMismatch } : {}),
    });
  }
  const event = parseEvent(json.value);
  if (!event.success) {
    return {
      type: 'malformed',
      error: new AdkError('protocol', `SSE frame ${index}: ${event.error.message}`),
    };
  }
  return { type: 'event', event: event.data };
}

/** `{"error": "..."}`: how ADK reports a failure once the stream has started. */
function errorFrameMessage(json: unknown): string | undefined {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return undefined;
  if (!Object.hasOwn(json, 'error') || Object.hasOwn(json, 'author')) return undefined;
  const error: unknown = Reflect.get(json, 'error');
  if (typeof error === 'string') return error;
  return JSON.stringify(error) ?? 'unknown error';
}

/** A non-2xx answer as an `AdkError('http')` with the server's own message, truncated. */
async function httpError(response: HttpAnswer, what: string, scope: CallScope): Promise<AdkError> {
  const status = `${response.status}${response.statusText ? ` ${response.statusText}` : ''}`;
  let text = '';
  try {
    text = await readLimited(response, MAX_ERROR_BODY);
  } catch (error) {
    scope.throwIfStopped();
    return new AdkError('http', `${what} answered HTTP ${status} (body unreadable)`, {
      status: response.status,
      cause: error,
    });
  }
  const serverMessage = truncateServerMessage(serverMessageOf(text));
  const suffix = serverMessage === '' ? '' : `: ${serverMessage}`;
  return new AdkError('http', `${what} answered HTTP ${status}${suffix}`, {
    status: response.status,
    serverMessage,
  });
}

function serverMessageOf(text: string): string {
  const json = parseJsonText(text);
  if (!json.ok) return text;
  const body = httpErrorBodySchema.safeParse(json.value);
  if (!body.success) return typeof json.value === 'string' ? json.value : text;
  if ('error' in body.data) return body.data.error;
  if (typeof body.data.detail === 'string') return body.data.detail;
  return body.data.detail
    .map((item) => (item.loc ? `${item.loc.join('.')}: ${item.msg}` : item.msg))
    .join('; ');
}

async function readLimited(response: HttpAnswer, limit: number): Promise<string> {
  const decoder = new TextDecoder();
  let text = '';
  for await (const chunk of response.body) {
    text += decoder.decode(chunk, { stream: true });
    // Leaving the loop cancels the rest of the body.
    if (text.length >= limit) return text.slice(0, limit);
  }
  return text + decoder.decode();
}
