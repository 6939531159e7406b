import { createConnection, createServer, type Socket } from 'node:net';

export interface StallingTcpProxy {
  /** `host:port` of the proxy. */
  host: string;
  port: number;
  /**
   * While stalled, requests still reach the server (a Redis script runs) but its answers are held
   * back: to the client, the server has stopped answering. Released, they arrive late.
   */
  stall(stalled: boolean): void;
  /** Stalls as soon as a request containing `needle` passes (that request still reaches the server). */
  stallAtRequest(needle: string): void;
  stop(): Promise<void>;
}

/** A loopback TCP proxy to `host:port` that can hold back the server's answers. */
export async function startStallingTcpProxy(host: string, port: number): Promise<StallingTcpProxy> {
  let stalled = false;
  let trigger: string | undefined;
  const links = new Set<{ client: Socket; server: Socket; held: Buffer[] }>();
  const proxy = createServer((client) => {
    const server = createConnection({ host, port });
    const link = { client, server, held: [] as Buffer[] };
    links.add(link);
    client.on('data', (chunk: Buffer) => {
      if (trigger !== undefined && chunk.includes(trigger)) {
        trigger = undefined;
        stalled = true;
      }
      server.write(chunk);
    });
    server.on('data', (chunk: Buffer) => {
      if (stalled) link.held.push(chunk);
      else client.write(chunk);
    });
    const close = () => {
      links.delete(link);
      client.destroy();
      server.destroy();
    };
    client.on('close', close);
    server.on('close', close);
    client.on('error', close);
    server.on('error', close);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const address = proxy.address();
  if (typeof address !== 'object' || address === null) throw new Error('the proxy has no port');
  return {
    host: '127.0.0.1',
    port: address.port,
    stallAtRequest(needle) {
      trigger = needle;
    },
    stall(value) {
      trigger = undefined;
      stalled = value;
      if (stalled) return;
      for (const link of links) {
        for (const chunk of link.held.splice(0)) link.client.write(chunk);
      }
    },
    stop: () =>
      new Promise<void>((resolve) => {
        for (const link of links) {
          link.client.destroy();
          link.server.destroy();
        }
        proxy.close(() => resolve());
      }),
  };
}
