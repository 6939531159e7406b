import { createServer, request, type Server } from 'node:http';

export interface SwitchableProxy {
  url: string;
  /** While down, every connection is cut before an answer: the client sees a network failure. */
  setDown(down: boolean): void;
  /** Requests that reached the target, by path. */
  forwarded: string[];
  stop(): Promise<void>;
}

/** A loopback HTTP proxy to `target` that a test can take down and bring back. */
export async function startSwitchableProxy(target: string): Promise<SwitchableProxy> {
  const upstream = new URL(target);
  let down = false;
  const forwarded: string[] = [];
  const server: Server = createServer((incoming, outgoing) => {
    if (down) {
      incoming.socket.destroy();
      return;
    }
    forwarded.push(incoming.url ?? '');
    const proxied = request(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: incoming.method,
        path: incoming.url,
        headers: incoming.headers,
      },
      (response) => {
        outgoing.writeHead(response.statusCode ?? 502, response.headers);
        response.pipe(outgoing);
      },
    );
    proxied.on('error', () => outgoing.destroy());
    incoming.pipe(proxied);
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
    forwarded,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
