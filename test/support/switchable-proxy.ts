import { createServer, request, type Server } from 'node:http';

export interface SwitchableProxy {
  url: string;
  /** While down, every connection is cut before an answer: the client sees a network failure. */
  setDown(down: boolean): void;
  /**
   * Answers a `/run_sse` request carrying `invocationId` the way a non-resumable server refuses
   * it, before anything reaches the target: Python streams an error frame, Go answers HTTP 400.
   */
  refuseInvocationId(server: 'python' | 'go' | undefined): void;
  /**
   * While on, a `/run_sse` request reaches the target, which runs it to the end, but the client
   * gets HTTP 400 instead of the stream, and session reads get HTTP 503 without reaching the
   * target: the client cannot tell whether its request arrived.
   */
  hideAnswers(hide: boolean): void;
  /** Requests that reached the target, by path. */
  forwarded: string[];
  /** Every `/run_sse` request, refused or forwarded: did it carry `invocationId`? */
  runs: { invocationId: boolean; refused: boolean }[];
  stop(): Promise<void>;
}

/** A loopback HTTP proxy to `target` that a test can take down and bring back. */
export async function startSwitchableProxy(target: string): Promise<SwitchableProxy> {
  const upstream = new URL(target);
  let down = false;
  let refusing: 'python' | 'go' | undefined;
  let hiding = false;
  const forwarded: string[] = [];
  const runs: { invocationId: boolean; refused: boolean }[] = [];
  const server: Server = createServer(async (incoming, outgoing) => {
    if (down) {
      incoming.socket.destroy();
      return;
    }
    const chunks: Buffer[] = [];
    for await (const chunk of incoming) chunks.push(Buffer.from(chunk));
    const body = Buffer.concat(chunks);
    if (incoming.url === '/run_sse') {
      const invocationId = /"invocationId"\s*:/.test(body.toString('utf8'));
      const refused = invocationId && refusing !== undefined;
      runs.push({ invocationId, refused });
      if (refused && refusing === 'python') {
        // The recorded shape of Python ADK's ValueError, after the stream started.
        outgoing.writeHead(200, { 'content-type': 'text/event-stream' });
        outgoing.end(
          `data: ${JSON.stringify({ error: 'invocation_id: e-1 is provided but the app is not resumable.' })}\n\n`,
        );
        return;
      }
      if (refused) {
        // What Go's strict JSON decoding of the request answers.
        outgoing.writeHead(400, { 'content-type': 'text/plain; charset=utf-8' });
        outgoing.end('json: unknown field "invocationId"\n');
        return;
      }
    }
    if (hiding && incoming.method === 'GET' && incoming.url?.includes('/sessions/')) {
      outgoing.writeHead(503, { 'content-type': 'text/plain' });
      outgoing.end('session reads are hidden by the test proxy');
      return;
    }
    forwarded.push(incoming.url ?? '');
    const hideThis = hiding && incoming.url === '/run_sse';
    const proxied = request(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: incoming.method,
        path: incoming.url,
        headers: incoming.headers,
      },
      (response) => {
        if (hideThis) {
          // The run goes on to its end on the target; the client hears only a failure.
          response.resume();
          response.on('end', () => {
            outgoing.writeHead(400, { 'content-type': 'text/plain' });
            outgoing.end('answer hidden by the test proxy');
          });
          return;
        }
        outgoing.writeHead(response.statusCode ?? 502, response.headers);
        response.pipe(outgoing);
      },
    );
    proxied.on('error', () => outgoing.destroy());
    proxied.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (typeof address !== 'object' || address === null) throw new Error('the proxy has no port');
  const { port } = address;
  return {
    url: `http://127.0.0.1:${port}`,
    setDown(value) {
      down = value;
    },
    refuseInvocationId(value) {
      refusing = value;
    },
    hideAnswers(value) {
      hiding = value;
    },
    forwarded,
    runs,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
