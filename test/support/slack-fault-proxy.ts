import { createServer, request, type ServerResponse } from 'node:http';

export interface SlackFaultProxy {
  /** The Web API base URL to give the app (`SLACK_API_URL`). */
  apiUrl: string;
  /** Calls of `method` in `channel` are held unanswered until the proxy stops. */
  hang(method: string, channel: string): void;
  /**
   * Calls of `method` in `channel` reach Slack, which does what they ask, but its answers are held
   * back until the proxy stops: a caller that dies meanwhile never learns what Slack did.
   */
  loseAnswers(method: string, channel: string): void;
  /** Calls of `method` in `channel` are answered 429 with `Retry-After: retryAfterSec`. */
  rateLimit(method: string, channel: string, retryAfterSec: number): void;
  /** Calls of `method`, in any channel, are answered `{ok: false, error}` (a revoked token). */
  fail(method: string, error: string): void;
  /** Lifts every fault; requests already held stay held. */
  clear(): void;
  /** Requests held now, and refused with 429 so far, per `method channel` (and message `ts`). */
  heldNow(method: string, channel: string): number;
  refused(method: string, channel: string, ts?: string): number;
  stop(): Promise<void>;
}

/**
 * A stand-in for Slack misbehaving, at the HTTP boundary: a proxy in front of the sandbox's Web
 * API that hangs or rate-limits chosen methods in chosen channels and forwards everything else.
 */
export async function startSlackFaultProxy(sandboxApiUrl: string): Promise<SlackFaultProxy> {
  const upstream = new URL(sandboxApiUrl);
  const hangs = new Set<string>();
  const losing = new Set<string>();
  const limits = new Map<string, number>();
  const failures = new Map<string, string>();
  const held = new Map<string, Set<ServerResponse>>();
  const refusedCounts = new Map<string, number>();

  const server = createServer((incoming, outgoing) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const body = Buffer.concat(chunks);
      const method = (incoming.url ?? '').split('?')[0]?.split('/').pop() ?? '';
      const contentType = incoming.headers['content-type'];
      const key = `${method} ${argumentOf(body, contentType, 'channel')}`;
      const hold = () => {
        const set = held.get(key) ?? new Set();
        held.set(key, set);
        set.add(outgoing);
        outgoing.on('close', () => set.delete(outgoing));
      };
      if (hangs.has(key)) {
        hold();
        return;
      }
      const failure = failures.get(method);
      if (failure !== undefined) {
        outgoing.writeHead(200, { 'content-type': 'application/json' });
        outgoing.end(JSON.stringify({ ok: false, error: failure }));
        return;
      }
      const retryAfter = limits.get(key);
      if (retryAfter !== undefined) {
        for (const counted of [key, `${key} ${argumentOf(body, contentType, 'ts')}`]) {
          refusedCounts.set(counted, (refusedCounts.get(counted) ?? 0) + 1);
        }
        outgoing.writeHead(429, {
          'content-type': 'application/json',
          'retry-after': String(retryAfter),
        });
        outgoing.end(JSON.stringify({ ok: false, error: 'ratelimited' }));
        return;
      }
      const proxied = request(
        {
          host: upstream.hostname,
          port: upstream.port,
          method: incoming.method,
          path: incoming.url,
          headers: incoming.headers,
        },
        (response) => {
          if (losing.has(key)) {
            response.resume();
            hold();
            return;
          }
          outgoing.writeHead(response.statusCode ?? 502, response.headers);
          response.pipe(outgoing);
        },
      );
      proxied.on('error', () => outgoing.destroy());
      proxied.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (typeof address !== 'object' || address === null) throw new Error('the proxy has no port');

  return {
    apiUrl: `http://127.0.0.1:${address.port}${upstream.pathname}`,
    hang(method, channel) {
      hangs.add(`${method} ${channel}`);
    },
    loseAnswers(method, channel) {
      losing.add(`${method} ${channel}`);
    },
    rateLimit(method, channel, retryAfterSec) {
      limits.set(`${method} ${channel}`, retryAfterSec);
    },
    fail(method, error) {
      failures.set(method, error);
    },
    clear() {
      hangs.clear();
      losing.clear();
      limits.clear();
      failures.clear();
    },
    heldNow: (method, channel) => held.get(`${method} ${channel}`)?.size ?? 0,
    refused: (method, channel, ts) =>
      refusedCounts.get(ts === undefined ? `${method} ${channel}` : `${method} ${channel} ${ts}`) ??
      0,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A string argument of a Web API call (`channel`, `ts`), form-encoded or JSON; '' when absent. */
function argumentOf(body: Buffer, contentType: string | undefined, name: string): string {
  const text = body.toString('utf8');
  if (contentType?.includes('application/json')) {
    const match = new RegExp(`"${name}"\\s*:\\s*"([^"]*)"`).exec(text);
    return match?.[1] ?? '';
  }
  return new URLSearchParams(text).get(name) ?? '';
}
