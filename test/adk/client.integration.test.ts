import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { AdkClient, type AdkClientOptions, type RunItem } from '../../src/adk/client.js';
import { AdkError } from '../../src/adk/errors.js';
import { keptAliveMsFor } from '../../src/adk/http-transport.js';
import { parseGates } from '../../src/adk/wire.js';
import { loadCapture } from './capture.js';

/**
 * The client against small local HTTP servers that replay captured responses or misbehave in
 * ways the real server cannot be made to (see live.integration.test.ts for the real one).
 */

interface Received {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
  /** The client's end of the connection it came on. */
  remotePort: number | undefined;
}

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

const servers: { close(): Promise<void> }[] = [];

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function serve(handler: Handler): Promise<{ baseUrl: string; received: Received[] }> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        remotePort: req.socket.remotePort,
      });
      handler(req, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push({
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
  const address = server.address();
  if (typeof address !== 'object' || address === null) throw new Error('no port');
  return { baseUrl: `http://127.0.0.1:${address.port}`, received };
}

/** Answers with a captured response's status, content type and body, verbatim. */
function replay(name: string): Handler {
  const { response } = loadCapture(name);
  return (_req, res) => {
    res.writeHead(response.status, { 'content-type': response.headers['content-type'] ?? '' });
    res.end(response.body);
  };
}

function sse(...frames: string[]): Handler {
  return (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.end(frames.map((frame) => `data: ${frame}\n\n`).join(''));
  };
}

function json(status: number, body: unknown, contentType = 'application/json'): Handler {
  return (_req, res) => {
    res.writeHead(status, { 'content-type': contentType });
    res.end(typeof body === 'string' ? body : JSON.stringify(body));
  };
}

const RUN = {
  appName: 'payments',
  userId: 'u1',
  sessionId: 's1',
  newMessage: { role: 'user', parts: [{ text: 'transfer 250' }] },
};

function client(baseUrl: string, options: Partial<AdkClientOptions> = {}): AdkClient {
  return new AdkClient({ baseUrl, ...options });
}

async function collect(run: AsyncIterable<RunItem>): Promise<RunItem[]> {
  const items: RunItem[] = [];
  for await (const item of run) items.push(item);
  return items;
}

/** The error a promise rejects with, as an AdkError. */
async function failure(promise: Promise<unknown>): Promise<AdkError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof AdkError) return error;
    throw error;
  }
  throw new Error('expected a rejection');
}

const EVENT = JSON.stringify({
  id: 'e1',
  author: 'payments',
  content: { role: 'model', parts: [{ text: 'hi' }] },
});

describe('AdkClient.runSse on captured streams', () => {
  it('yields the two events of a captured pause (10a), the second with its gate', async () => {
    const { baseUrl } = await serve(replay('10a_transfer_request'));
    const items = await collect(client(baseUrl).runSse(RUN));
    expect(items.map((item) => item.type)).toEqual(['event', 'event']);
    const [, request] = items;
    if (request?.type !== 'event') throw new Error('event expected');
    expect(parseGates(request.event)).toMatchObject({
      kind: 'pause',
      gates: [{ confirmationCallId: 'adk-5d08c4c0-b9ed-489c-b1dd-577e4bcba395' }],
    });
  });

  it('turns the IntentMismatch error frame of 12b into a stream_error with its call id and reason', async () => {
    const { baseUrl } = await serve(replay('12b_timeoff_approve_with_payload'));
    const error = await failure(collect(client(baseUrl).runSse(RUN)));
    expect(error).toMatchObject({
      reason: 'stream_error',
      serverMessage:
        "Tool confirmation rejected for function call 'adk-3f1859f8-946a-458b-a5e5-4cf82389139a': confirmation_not_required.",
      intentMismatch: {
        callId: 'adk-3f1859f8-946a-458b-a5e5-4cf82389139a',
        reason: 'confirmation_not_required',
      },
    });
  });

  it.each([
    [
      '24c_run_sse_unknown_app',
      "Agent 'no_such_app' not found in ./agents. Available agents: hitl_agent, hitl_workflow",
    ],
    [
      '27_function_response_for_unknown_call',
      'No function call event found for function responses ids: adk-unknown',
    ],
  ])(
    'turns the error frame of %s into a stream_error with the server message',
    async (name, message) => {
      const { baseUrl } = await serve(replay(name));
      const error = await failure(collect(client(baseUrl).runSse(RUN)));
      expect(error.reason).toBe('stream_error');
      expect(error.serverMessage).toBe(message);
      expect(error.intentMismatch).toBeUndefined();
      expect(error.message).toBe(`ADK run failed: ${message}`);
    },
  );

  it('reports frames that are not JSON or not events, in order, and keeps reading', async () => {
    const { baseUrl } = await serve(
      sse('not json {', JSON.stringify({ id: 'bad', author: 5 }), '[]', EVENT),
    );
    const items = await collect(client(baseUrl).runSse(RUN));
    expect(items.map((item) => item.type)).toEqual([
      'malformed',
      'malformed',
      'malformed',
      'event',
    ]);
    const [notJson, notEvent] = items;
    expect(notJson).toMatchObject({
      error: { reason: 'protocol', message: expect.stringContaining('SSE frame 0 is not JSON') },
    });
    expect(notEvent).toMatchObject({
      error: {
        reason: 'protocol',
        message: expect.stringMatching(/SSE frame 1: event bad .*author/),
      },
    });
  });

  it('refuses a frame over the size limit with a protocol error', async () => {
    const huge = JSON.stringify({
      id: 'h',
      author: 'a',
      content: { parts: [{ text: 'x'.repeat(5_000) }] },
    });
    const { baseUrl } = await serve(sse(huge));
    const error = await failure(collect(client(baseUrl, { maxFrameSize: 1_000 }).runSse(RUN)));
    expect(error.reason).toBe('protocol');
    expect(error.message).toContain('larger than the limit');
  });
});

describe('AdkClient requests', () => {
  it('sends the camelCase run body, with invocationId only when given', async () => {
    const { baseUrl, received } = await serve(sse(EVENT));
    const adk = client(baseUrl);
    await collect(adk.runSse(RUN));
    await collect(
      adk.runSse({ ...RUN, invocationId: 'e-1', streaming: true, stateDelta: { k: 1 } }),
    );
    expect(received.map((r) => [r.method, r.url, r.headers['content-type']])).toEqual([
      ['POST', '/run_sse', 'application/json'],
      ['POST', '/run_sse', 'application/json'],
    ]);
    expect(received.map((r) => JSON.parse(r.body))).toEqual([
      { ...RUN, streaming: false },
      { ...RUN, streaming: true, stateDelta: { k: 1 }, invocationId: 'e-1' },
    ]);
  });

  it('sends the bearer token on every call when one is configured, and none otherwise', async () => {
    const session = {
      id: 's1',
      appName: 'payments',
      userId: 'u1',
      state: {},
      events: [],
      lastUpdateTime: 1,
    };
    const handler: Handler = (req, res) =>
      req.url === '/run_sse'
        ? sse(EVENT)(req, res)
        : req.url === '/list-apps'
          ? json(200, ['payments'])(req, res)
          : json(200, session)(req, res);
    const { baseUrl, received } = await serve(handler);
    const withToken = client(`${baseUrl}/`, { token: 'tok-123' });
    await withToken.listApps();
    await withToken.createSession('payments', 'u1', { sessionId: 's1', state: { team: 'ops' } });
    await withToken.getSession('payments', 'u1', 's1');
    await collect(withToken.runSse(RUN));
    await client(baseUrl).listApps();

    expect(received.map((r) => [r.method, r.url, r.headers.authorization])).toEqual([
      ['GET', '/list-apps', 'Bearer tok-123'],
      ['POST', '/apps/payments/users/u1/sessions/s1', 'Bearer tok-123'],
      ['GET', '/apps/payments/users/u1/sessions/s1', 'Bearer tok-123'],
      ['POST', '/run_sse', 'Bearer tok-123'],
      ['GET', '/list-apps', undefined],
    ]);
    expect(JSON.parse(received[1]?.body ?? '')).toEqual({ state: { team: 'ops' } });
  });

  it('creates a session without an id at the collection path, and escapes path segments', async () => {
    const session = { id: 'generated', appName: 'a b', userId: 'u/1', state: {}, events: [] };
    const { baseUrl, received } = await serve(json(200, session));
    const created = await client(baseUrl).createSession('a b', 'u/1');
    expect(created).toEqual(session);
    expect(received[0]?.url).toBe('/apps/a%20b/users/u%2F1/sessions');
  });
});

describe('AdkClient errors', () => {
  it('turns the captured 404 (01) into an http error with the server message', async () => {
    const { baseUrl } = await serve(replay('01_get_session_missing'));
    const error = await failure(client(baseUrl).getSession('hitl_agent', 'u1', 'does-not-exist'));
    expect(error).toMatchObject({
      reason: 'http',
      status: 404,
      serverMessage: 'Session not found: does-not-exist',
    });
    expect(error.message).toBe(
      'GET /apps/hitl_agent/users/u1/sessions/does-not-exist answered HTTP 404 Not Found: Session not found: does-not-exist',
    );
  });

  it('turns a run refused before streaming (24a) into an http error', async () => {
    const { baseUrl } = await serve(replay('24a_run_sse_unknown_session'));
    const error = await failure(collect(client(baseUrl).runSse(RUN)));
    expect(error).toMatchObject({
      reason: 'http',
      status: 404,
      serverMessage: 'Session not found: nope',
    });
  });

  it("reads Python's {detail} errors and never echoes the request input they carry", async () => {
    const { baseUrl } = await serve((req, res) =>
      req.url === '/list-apps'
        ? json(404, { detail: 'Not Found' })(req, res)
        : json(422, {
            detail: [
              {
                type: 'missing',
                loc: ['body', 'sessionId'],
                msg: 'Field required',
                input: { secret: 'hunter2' },
              },
            ],
          })(req, res),
    );
    const adk = client(baseUrl);
    expect(await failure(adk.listApps())).toMatchObject({
      status: 404,
      serverMessage: 'Not Found',
    });
    const invalid = await failure(collect(adk.runSse(RUN)));
    expect(invalid).toMatchObject({ status: 422, serverMessage: 'body.sessionId: Field required' });
    expect(invalid.message).not.toContain('hunter2');
  });

  it('keeps a short piece of a non-JSON error body', async () => {
    const page = `<html><body><h1>502 Bad Gateway</h1>${'<p>upstream</p>'.repeat(5_000)}</body></html>`;
    const { baseUrl } = await serve(json(502, page, 'text/html'));
    const error = await failure(client(baseUrl).listApps());
    expect(error).toMatchObject({ reason: 'http', status: 502 });
    expect(error.serverMessage?.startsWith('<html><body><h1>502 Bad Gateway</h1>')).toBe(true);
    expect(error.serverMessage?.length).toBeLessThanOrEqual(500);
  });

  it('reports a server that is not there as a network error', async () => {
    const { baseUrl } = await serve(json(200, []));
    await Promise.all(servers.splice(0).map((server) => server.close()));
    const error = await failure(client(baseUrl).listApps());
    expect(error.reason).toBe('network');
    expect(error.message).toContain('ECONNREFUSED');
  });

  it('reports answers it cannot read as protocol errors', async () => {
    const { baseUrl } = await serve((req, res) => {
      if (req.url === '/list-apps') return json(200, { apps: [] })(req, res);
      if (req.url === '/run_sse') return json(200, [])(req, res);
      if (req.url?.endsWith('/broken'))
        return json(200, '{"id": "s1", ', 'application/json')(req, res);
      return json(200, {
        id: 's1',
        appName: 'a',
        userId: 'u',
        events: [{ id: 'ev', author: 'x', partial: 'no' }],
      })(req, res);
    });
    const adk = client(baseUrl);
    expect(await failure(adk.listApps())).toMatchObject({ reason: 'protocol' });
    expect(await failure(collect(adk.runSse(RUN)))).toMatchObject({
      reason: 'protocol',
      message: expect.stringContaining('not an event stream'),
    });
    expect(await failure(adk.getSession('a', 'u', 'broken'))).toMatchObject({
      reason: 'protocol',
      message: expect.stringContaining('did not return JSON'),
    });
    const badEvent = await failure(adk.getSession('a', 'u', 's1'));
    expect(badEvent.reason).toBe('protocol');
    expect(badEvent.message).toContain('invalid event at index 0');
    expect(badEvent.message).toContain('partial');
  });
});

describe('AdkClient time limits and cancellation', () => {
  it('gives up on a request the server never answers', async () => {
    const { baseUrl } = await serve(() => undefined);
    const error = await failure(client(baseUrl, { requestTimeoutMs: 200 }).listApps());
    expect(error.reason).toBe('timeout');
    expect(error.message).toBe('ADK request GET /list-apps took longer than 200 ms');
  });

  it('aborts a run whose server goes silent, after yielding what came before', async () => {
    const { baseUrl } = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(`data: ${EVENT}\n\n`);
    });
    const items: RunItem[] = [];
    const run = collectInto(client(baseUrl, { idleTimeoutMs: 300 }).runSse(RUN), items);
    const error = await failure(run);
    expect(items.map((item) => item.type)).toEqual(['event']);
    expect(error).toMatchObject({
      reason: 'timeout',
      message: expect.stringContaining('sent nothing for 300 ms'),
    });
  });

  it('aborts a run that outlasts the run limit even while bytes keep coming', async () => {
    const { baseUrl } = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const timer = setInterval(() => res.write(': keep-alive\n\n'), 20);
      res.on('close', () => clearInterval(timer));
    });
    const error = await failure(
      collect(client(baseUrl, { runTimeoutMs: 400, idleTimeoutMs: 300 }).runSse(RUN)),
    );
    expect(error).toMatchObject({
      reason: 'timeout',
      message: expect.stringContaining('took longer than 400 ms'),
    });
  });

  it("does not count the consumer's own slowness as server silence", async () => {
    const { baseUrl } = await serve(sse(EVENT, EVENT));
    const items: RunItem[] = [];
    // The consumer takes 2.4 times the silence allowed over each event. The limit leaves room
    // for the server's first bytes on a loaded machine: a fresh-clone CI run with both cores
    // busy took 148 ms to them, over the 100 ms this test allowed before.
    for await (const item of client(baseUrl, { idleTimeoutMs: 500 }).runSse(RUN)) {
      items.push(item);
      await new Promise((resolve) => setTimeout(resolve, 1_200));
    }
    expect(items.map((item) => item.type)).toEqual(['event', 'event']);
  });

  it("stops when the caller's signal fires, with reason aborted", async () => {
    const { baseUrl } = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(`data: ${EVENT}\n\n`);
    });
    const controller = new AbortController();
    const items: RunItem[] = [];
    const run = client(baseUrl).runSse(RUN, { signal: controller.signal });
    const error = await failure(
      (async () => {
        for await (const item of run) {
          items.push(item);
          controller.abort();
        }
      })(),
    );
    expect(items).toHaveLength(1);
    expect(error).toMatchObject({ reason: 'aborted' });

    const before = new AbortController();
    before.abort();
    expect(await failure(client(baseUrl).listApps({ signal: before.signal }))).toMatchObject({
      reason: 'aborted',
    });
  });

  it('closes the connection when the consumer stops early, which ends the run on the server', async () => {
    let closed = () => {};
    const connectionClosed = new Promise<void>((resolve) => {
      closed = resolve;
    });
    const { baseUrl } = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(`data: ${EVENT}\n\n`);
      res.on('close', () => closed());
    });
    for await (const item of client(baseUrl).runSse(RUN)) {
      expect(item.type).toBe('event');
      break;
    }
    await connectionClosed;
  });
});

describe('AdkClient connections', () => {
  it('keeps one connection for calls one after another: a finished call never closes it', async () => {
    const { baseUrl, received } = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(`data: ${EVENT}\n\n`);
    });
    const adk = client(baseUrl);
    for (let i = 0; i < 5; i += 1) {
      const items = await collect(adk.runSse(RUN));
      expect(items.map((item) => item.type)).toEqual(['event']);
    }
    expect(received).toHaveLength(5);
    const ports = new Set(received.map((request) => request.remotePort));
    expect(ports.size).toBe(1);
    adk.close();
  });

  it('closes a connection left unused for keptAliveMs, before the server would: the next call opens another', async () => {
    const { baseUrl, received } = await serve(json(200, SESSION));
    const adk = client(baseUrl, { keptAliveMs: 100 });
    await adk.getSession('payments', 'u1', 's1');
    await adk.getSession('payments', 'u1', 's1');
    await new Promise((resolve) => setTimeout(resolve, 300));
    await adk.getSession('payments', 'u1', 's1');
    const [first, soon, later] = received.map((request) => request.remotePort);
    expect(soon).toBe(first);
    expect(later).not.toBe(first);
    adk.close();
  });

  it('keeps a connection unused under the ADK server’s 5 s over http, and under a load balancer’s 60 s over https', () => {
    expect(keptAliveMsFor(new URL('http://adk.internal:8000'))).toBe(4_000);
    expect(keptAliveMsFor(new URL('https://agent-abc.a.run.app'))).toBe(55_000);
  });

  it('keeps a run going while its server is quiet for longer than keptAliveMs', async () => {
    const { baseUrl } = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(`data: ${EVENT}\n\n`);
      setTimeout(() => res.end(`data: ${EVENT}\n\n`), 300);
    });
    const adk = client(baseUrl, { keptAliveMs: 50 });
    const items = await collect(adk.runSse(RUN));
    expect(items.map((item) => item.type)).toEqual(['event', 'event']);
    adk.close();
  });

  it('sends a read again on a new connection when the kept-alive one it went out on was closed unanswered', async () => {
    const { baseUrl, received } = await serve(closingReusedConnections(json(200, SESSION)));
    const adk = client(baseUrl);
    await adk.getSession('payments', 'u1', 's1');
    const session = await adk.getSession('payments', 'u1', 's1');
    expect(session.id).toBe('s1');
    expect(received).toHaveLength(3);
    const [first, closed, again] = received.map((request) => request.remotePort);
    expect(closed).toBe(first);
    expect(again).not.toBe(first);
    adk.close();
  });

  it('does not send a run again when its kept-alive connection was closed unanswered: the caller decides', async () => {
    const { baseUrl, received } = await serve(closingReusedConnections(sse(EVENT)));
    const adk = client(baseUrl);
    await collect(adk.runSse(RUN));
    const error = await failure(collect(adk.runSse(RUN)));
    expect(error.reason).toBe('network');
    expect(received).toHaveLength(2);
    adk.close();
  });
});

const SESSION = { id: 's1', appName: 'payments', userId: 'u1', state: {}, events: [] };

/**
 * Answers the first request on each connection, and closes the connection on any later one
 * without answering: what a server's idle timeout does to a request written just as it fires.
 */
function closingReusedConnections(answer: Handler): Handler {
  const answered = new WeakSet<object>();
  return (req, res) => {
    if (answered.has(req.socket)) {
      req.socket.destroy();
      return;
    }
    answered.add(req.socket);
    answer(req, res);
  };
}

async function collectInto(run: AsyncIterable<RunItem>, items: RunItem[]): Promise<void> {
  for await (const item of run) items.push(item);
}
