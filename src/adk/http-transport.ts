import http from 'node:http';
import https from 'node:https';
import { isConnectionReset } from '../error-message.js';

/** An HTTP answer as the ADK client reads it. */
export interface HttpAnswer {
  status: number;
  statusText: string;
  /** A 2xx status. */
  ok: boolean;
  contentType: string;
  /** The body as it arrives; leaving a `for await` over it early closes the connection. */
  body: AsyncIterable<Uint8Array>;
  /** The whole body as text. */
  text(): Promise<string>;
}

export interface HttpRequest {
  method: 'GET' | 'POST';
  /** From the server's root: `/run_sse`. */
  path: string;
  headers: Record<string, string>;
  body?: string;
  /** Aborting it ends the request, and a body still being read, with its reason. */
  signal: AbortSignal;
}

/**
 * How long a connection is kept unused, so that the client closes it before the server does (a
 * request could otherwise go out on it as the server closes it). Node's agent would keep it
 * without a limit whenever the answer carried no `Keep-Alive: timeout` hint, as an event stream's
 * does not; a hint shortens it.
 * - `http:`: the ADK server itself, whose idle timeout is 5 s (Node's and uvicorn's).
 * - `https:`: most often a load balancer in front of it (by default Google's external ones keep
 *   a connection 610 s, AWS's 60 s), where closing at 4 s would cost each human-paced resume a
 *   TLS handshake.
 */
export function keptAliveMsFor(baseUrl: URL): number {
  return baseUrl.protocol === 'https:' ? 55_000 : 4_000;
}

/**
 * Requests to one server on `node:http(s)`, connections kept alive between them. The ADK client
 * went through `fetch`, whose web streams cost a run's stream several times the CPU of a Node
 * stream. An abort after the whole body was read does nothing: the connection then belongs to
 * the next request.
 *
 * A kept-alive connection can be closed by the server (its idle timeout) just as a request is
 * written on it: the request then fails with a reset before any answer, unseen by the server. A
 * `GET` that fails so is sent again on another connection; a `POST` is not, since the same reset
 * comes from a server that failed while running the request, and its callers decide (a resume
 * first asks the session whether its answer arrived).
 */
export class HttpTransport {
  private readonly base: URL;
  private readonly agent: http.Agent;
  private readonly request: typeof http.request;

  /** `keptAliveMs`: how long a connection waits unused for the next request before it is closed. */
  constructor(baseUrl: string, keptAliveMs?: number) {
    this.base = new URL(baseUrl);
    const secure = this.base.protocol === 'https:';
    // `timeout` closes a connection left unused that long (a hint the server sends may shorten
    // it); during a request it only raises an event nobody listens to: the call's own limits
    // (CallScope) end a request.
    const options = { keepAlive: true, timeout: keptAliveMs ?? keptAliveMsFor(this.base) };
    this.agent = secure ? new https.Agent(options) : new http.Agent(options);
    this.request = secure ? https.request : http.request;
  }

  async send(request: HttpRequest): Promise<HttpAnswer> {
    for (;;) {
      const attempt = await this.attempt(request);
      if (attempt.answer !== undefined) return attempt.answer;
      if (!(request.method === 'GET' && attempt.onStaleConnection)) throw attempt.error;
    }
  }

  /**
   * One try. `onStaleConnection`: it failed with a reset before any answer on a connection kept
   * alive from an earlier request, which is then closed; each retry uses up one such connection.
   */
  private attempt({ method, path, headers, body, signal }: HttpRequest): Promise<Attempt> {
    const url = new URL(`${this.base.pathname.replace(/\/+$/, '')}${path}`, this.base);
    return new Promise((resolve) => {
      if (signal.aborted) {
        resolve({ error: abortReason(signal), onStaleConnection: false });
        return;
      }
      const request = this.request(url, {
        method,
        agent: this.agent,
        headers:
          body === undefined ? headers : { ...headers, 'content-length': Buffer.byteLength(body) },
      });
      const onAbort = () => request.destroy(abortReason(signal));
      signal.addEventListener('abort', onAbort, { once: true });
      const release = () => signal.removeEventListener('abort', onAbort);
      request.on('error', (error) => {
        release();
        const stale = request.reusedSocket && !signal.aborted && isConnectionReset(error);
        resolve({ error, onStaleConnection: stale });
      });
      request.on('response', (response) => {
        response.once('end', release);
        response.once('close', release);
        const status = response.statusCode ?? 0;
        resolve({
          answer: {
            status,
            statusText: response.statusMessage ?? '',
            ok: status >= 200 && status < 300,
            contentType: headerText(response.headers['content-type']),
            body: response,
            text: () => readText(response),
          },
        });
      });
      request.end(body);
    });
  }

  /** Closes the kept-alive connections. */
  close(): void {
    this.agent.destroy();
  }
}

type Attempt =
  | { answer: HttpAnswer; error?: never; onStaleConnection?: never }
  | { answer?: never; error: Error; onStaleConnection: boolean };

function abortReason(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason : new Error('the request was aborted');
}

function headerText(value: string | string[] | undefined): string {
  return Array.isArray(value) ? (value[0] ?? '') : (value ?? '');
}

async function readText(response: http.IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of response) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
