import http from 'node:http';
import https from 'node:https';
import { isConnectionReset } from '../../error-message.js';
import { parseJsonText } from '../../json.js';

/** The one method of a Web API client the Slack port calls (`WebClient` has it too). */
export interface SlackApiCaller {
  apiCall(method: string, args: Record<string, unknown>): Promise<unknown>;
}

/** Slack answered `ok: false`: `data.error` is its code (`channel_not_found`, …). */
export class SlackPlatformError extends Error {
  readonly code = 'slack_webapi_platform_error';
  constructor(
    method: string,
    readonly data: { error: string } & Record<string, unknown>,
  ) {
    super(`${method}: Slack answered ${data.error}`);
  }
}

/** HTTP 429: `retryAfter` is Slack's `Retry-After`, in seconds. */
export class SlackRateLimitedError extends Error {
  readonly code = 'slack_webapi_rate_limited_error';
  constructor(
    method: string,
    readonly retryAfter: number,
  ) {
    super(`${method}: rate limited, retry after ${retryAfter} s`);
  }
}

/** No usable answer: the connection failed, timed out, or Slack answered an HTTP error. */
export class SlackRequestError extends Error {
  readonly code = 'slack_webapi_request_error';
}

export interface SlackHttpClientOptions {
  token: string;
  /** Where the Web API is, ending in `/api/`. Default: Slack's. */
  apiUrl?: string;
  /** Longest one request may take. */
  timeoutMs: number;
  /** Tries after the first, for a failed connection, a timeout or an HTTP 5xx. */
  retries: number;
  /** Wait before the first retry; doubled for each next one, up to `maxRetryDelayMs`. */
  retryDelayMs: number;
  maxRetryDelayMs: number;
  sleep?: (ms: number) => Promise<void>;
}

const SLACK_API_URL = 'https://slack.com/api/';
/** Slack's answers are small; anything larger is not one. */
const MAX_RESPONSE_BYTES = 5 * 1024 * 1024;
/** When a 429 names no `Retry-After`, the shortest window Slack ever names. */
const DEFAULT_RETRY_AFTER_S = 1;
const MAX_SOCKETS = 32;

/**
 * A Web API client on `node:http(s)` with kept-alive connections, for the calls every decision
 * makes (posting and updating messages). It sends what `WebClient` sends (a form body, objects
 * as JSON strings, the token as a bearer header) and throws the same kinds of errors, at about a
 * fifth of the CPU per call: `WebClient` goes through axios and `fetch` through web streams.
 * Rate limits are the caller's (a 429 throws at once); failed connections, timeouts and 5xx
 * answers are retried a few times, as `WebClient` was set to. A call that went out on a kept-alive
 * connection just as Slack closed it is sent again at once: waiting would only delay it.
 */
export class SlackHttpClient implements SlackApiCaller {
  private readonly base: URL;
  private readonly agent: http.Agent;
  private readonly request: typeof http.request;
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(private readonly options: SlackHttpClientOptions) {
    this.base = new URL(options.apiUrl ?? SLACK_API_URL);
    const secure = this.base.protocol === 'https:';
    this.agent = secure
      ? new https.Agent({ keepAlive: true, maxSockets: MAX_SOCKETS })
      : new http.Agent({ keepAlive: true, maxSockets: MAX_SOCKETS });
    this.request = secure ? https.request : http.request;
    this.sleep = options.sleep ?? defaultSleep;
  }

  async apiCall(method: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
    const body = formBody(args);
    for (let attempt = 0; ; attempt += 1) {
      try {
        return await this.once(method, body);
      } catch (error) {
        // Slack closed the kept-alive connection as the call went out on it: at once, on another,
        // and not counted (each such try uses up one of the connections kept).
        if (error instanceof StaleConnectionError) {
          attempt -= 1;
          continue;
        }
        const retryable = error instanceof RetryableError;
        if (!retryable || attempt >= this.options.retries) {
          throw retryable ? new SlackRequestError(error.message, { cause: error }) : error;
        }
        const { retryDelayMs, maxRetryDelayMs } = this.options;
        await this.sleep(Math.min(retryDelayMs * 2 ** attempt, maxRetryDelayMs));
      }
    }
  }

  /** Closes the kept-alive connections. */
  close(): void {
    this.agent.destroy();
  }

  private once(method: string, body: string): Promise<Record<string, unknown>> {
    const url = new URL(method, this.base);
    return new Promise((resolve, reject) => {
      let answered = false;
      const request = this.request(
        url,
        {
          method: 'POST',
          agent: this.agent,
          timeout: this.options.timeoutMs,
          headers: {
            authorization: `Bearer ${this.options.token}`,
            'content-type': 'application/x-www-form-urlencoded',
            'content-length': Buffer.byteLength(body),
          },
        },
        (response) => {
          answered = true;
          const chunks: Buffer[] = [];
          let size = 0;
          response.on('data', (chunk: Buffer) => {
            size += chunk.length;
            if (size > MAX_RESPONSE_BYTES) {
              const tooLarge = `${method}: Slack's answer is larger than ${MAX_RESPONSE_BYTES} B`;
              response.destroy(new SlackRequestError(tooLarge));
              return;
            }
            chunks.push(chunk);
          });
          response.on('error', (error) => reject(failureOf(method, error)));
          response.on('end', () => {
            try {
              resolve(answerOf(method, response, Buffer.concat(chunks).toString('utf8')));
            } catch (error) {
              reject(error);
            }
          });
        },
      );
      request.on('timeout', () => {
        request.destroy(new Error(`no answer within ${this.options.timeoutMs} ms`));
      });
      request.on('error', (error) => {
        const stale = request.reusedSocket && !answered && isConnectionReset(error);
        reject(stale ? new StaleConnectionError(method) : failureOf(method, error));
      });
      request.end(body);
    });
  }
}

/** A failure worth another try (the connection, a timeout, Slack's 5xx). */
class RetryableError extends Error {}

/** A reset before any answer on a connection kept alive from an earlier call. */
class StaleConnectionError extends Error {
  constructor(method: string) {
    super(`${method}: the kept-alive connection was closed`);
  }
}

/** A broken connection is worth another try; an answer too large to read is not. */
function failureOf(method: string, error: Error): Error {
  return error instanceof SlackRequestError
    ? error
    : new RetryableError(`${method}: ${error.message}`);
}

function answerOf(
  method: string,
  response: http.IncomingMessage,
  text: string,
): Record<string, unknown> {
  const status = response.statusCode ?? 0;
  if (status === 429) {
    const header = Number(response.headers['retry-after']);
    const retryAfter = Number.isFinite(header) && header >= 0 ? header : DEFAULT_RETRY_AFTER_S;
    throw new SlackRateLimitedError(method, retryAfter);
  }
  if (status >= 500) throw new RetryableError(`${method}: Slack answered HTTP ${status}`);
  if (status !== 200) throw new SlackRequestError(`${method}: Slack answered HTTP ${status}`);
  const json = parseJsonText(text);
  if (!json.ok || typeof json.value !== 'object' || json.value === null) {
    throw new SlackRequestError(`${method}: Slack's answer is not a JSON object`);
  }
  const answer = json.value as Record<string, unknown>;
  if (answer.ok !== true) {
    const error = typeof answer.error === 'string' ? answer.error : 'unknown_error';
    throw new SlackPlatformError(method, { ...answer, error });
  }
  return answer;
}

/** As `WebClient` encodes arguments: strings as they are, anything else as JSON; no undefined. */
function formBody(args: Record<string, unknown>): string {
  const form = new URLSearchParams();
  for (const [name, value] of Object.entries(args)) {
    if (value === undefined) continue;
    form.append(name, typeof value === 'string' ? value : JSON.stringify(value));
  }
  return form.toString();
}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
