import type { IncomingMessage, ServerResponse } from 'node:http';
import type { SandboxState } from '../state.js';

/** Proxies drop idle streams; a comment line now and then keeps them open. */
const HEARTBEAT_MS = 15_000;

/**
 * Server-Sent Events for the page: a `change` event carrying the state version after every
 * change (coalesced per tick); the page then fetches what it shows.
 */
export class LiveUpdates {
  private readonly clients = new Set<ServerResponse>();
  private pending = false;
  private readonly unsubscribe: () => void;
  private readonly heartbeat: NodeJS.Timeout;

  constructor(private readonly state: SandboxState) {
    this.unsubscribe = state.subscribe(() => this.schedule());
    this.heartbeat = setInterval(() => this.broadcast(': heartbeat\n\n'), HEARTBEAT_MS);
    this.heartbeat.unref();
  }

  handle(req: IncomingMessage, res: ServerResponse): void {
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
    });
    res.write(`retry: 1000\n${this.changeEvent()}`);
    this.clients.add(res);
    req.on('close', () => this.clients.delete(res));
  }

  close(): void {
    clearInterval(this.heartbeat);
    this.unsubscribe();
    for (const client of this.clients) client.end();
    this.clients.clear();
  }

  private schedule(): void {
    if (this.pending) return;
    this.pending = true;
    setImmediate(() => {
      this.pending = false;
      this.broadcast(this.changeEvent());
    });
  }

  private changeEvent(): string {
    return `event: change\ndata: ${JSON.stringify({ version: this.state.currentVersion })}\n\n`;
  }

  private broadcast(text: string): void {
    for (const client of this.clients) client.write(text);
  }
}
