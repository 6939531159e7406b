import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { type WebSocket, WebSocketServer } from 'ws';
import { z } from 'zod';
import type { Delivery } from '../interactions/delivery.js';
import { type Json, type JsonObject, jsonSchema } from '../json.js';
import type { Log } from '../log.js';
import { BOT } from '../workspace.js';

/** What travels over Socket Mode: https://docs.slack.dev/apis/events-api/using-socket-mode */
export type SocketEnvelopeType = 'events_api' | 'slash_commands' | 'interactive';

/** The path `apps.connections.open` hands out; one ticket opens one connection. */
const LINK_PATH = '/link/';

/** Slack pings its Socket Mode clients; @slack/socket-mode reconnects after 30 s without one. */
const PING_INTERVAL_MS = 10_000;

const ackSchema = z.object({ envelope_id: z.string().min(1), payload: jsonSchema.optional() });

/**
 * Slack's side of Socket Mode: `apps.connections.open` issues a one-time `ws://` URL served
 * here; the app connects, gets `hello`, and from then on every event, slash command and
 * interaction goes to it as an envelope it must ack by `envelope_id` (with a response payload
 * where one is accepted) within the ack deadline. The newest connection gets the envelopes.
 */
export class SocketModeServer {
  private readonly wss = new WebSocketServer({ noServer: true });
  private readonly tickets = new Set<string>();
  private readonly sockets: WebSocket[] = [];
  private readonly waiting = new Map<string, (payload: Json | undefined) => void>();
  private readonly pinger: NodeJS.Timeout;

  constructor(
    private readonly options: {
      baseUrl: () => string;
      ackTimeoutMs: number;
      onChange: () => void;
      log: Log;
    },
  ) {
    this.pinger = setInterval(() => {
      for (const socket of this.sockets) socket.ping();
    }, PING_INTERVAL_MS);
    this.pinger.unref();
  }

  /** `apps.connections.open`: a fresh URL the app may connect to once. */
  openUrl(): string {
    const ticket = randomUUID();
    this.tickets.add(ticket);
    return `${this.options.baseUrl().replace(/^http/, 'ws')}${LINK_PATH}?ticket=${ticket}`;
  }

  /** Takes the HTTP server's `upgrade` for the link path; false for any other path. */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): boolean {
    const url = new URL(req.url ?? '/', 'http://sandbox');
    if (url.pathname !== LINK_PATH) return false;
    const ticket = url.searchParams.get('ticket') ?? '';
    if (!this.tickets.delete(ticket)) {
      socket.end('HTTP/1.1 401 Unauthorized\r\nConnection: close\r\n\r\n');
      return true;
    }
    this.wss.handleUpgrade(req, socket, head, (ws) => this.accept(ws));
    return true;
  }

  connected(): boolean {
    return this.sockets.length > 0;
  }

  /**
   * Sends one envelope to the newest connection and waits for its ack. The ack's payload is
   * the response body, as an HTTP app's would be (empty when it acked with nothing).
   */
  send(
    type: SocketEnvelopeType,
    payload: JsonObject,
    retry: { num: number; reason: string | undefined } = { num: 0, reason: undefined },
  ): Promise<Delivery> {
    const socket = this.sockets.at(-1);
    if (socket === undefined) {
      return Promise.resolve({ kind: 'unreachable', detail: 'no Socket Mode connection' });
    }
    const envelopeId = randomUUID();
    return new Promise<Delivery>((resolve) => {
      const timer = setTimeout(() => {
        this.waiting.delete(envelopeId);
        resolve({ kind: 'timeout' });
      }, this.options.ackTimeoutMs);
      this.waiting.set(envelopeId, (ackPayload) => {
        clearTimeout(timer);
        const empty =
          ackPayload === undefined ||
          (typeof ackPayload === 'object' &&
            ackPayload !== null &&
            Object.keys(ackPayload).length === 0);
        resolve({
          kind: 'answered',
          status: 200,
          body: empty ? '' : JSON.stringify(ackPayload),
          contentType: 'application/json',
        });
      });
      socket.send(
        JSON.stringify({
          envelope_id: envelopeId,
          payload,
          type,
          accepts_response_payload: type !== 'events_api',
          retry_attempt: retry.num,
          retry_reason: retry.reason ?? '',
        }),
      );
    });
  }

  /** Asks every connection to go (`refresh_requested`: the client reconnects with a new URL). */
  disconnectAll(reason = 'refresh_requested'): void {
    for (const socket of this.sockets) socket.send(JSON.stringify({ type: 'disconnect', reason }));
  }

  close(): void {
    clearInterval(this.pinger);
    for (const socket of this.sockets) socket.terminate();
    this.wss.close();
  }

  private accept(ws: WebSocket): void {
    this.sockets.push(ws);
    this.options.log.info('app connected over Socket Mode', { connections: this.sockets.length });
    ws.send(
      JSON.stringify({
        type: 'hello',
        num_connections: this.sockets.length,
        debug_info: { host: 'sandbox', approximate_connection_time: 18060 },
        connection_info: { app_id: BOT.appId },
      }),
    );
    ws.on('message', (data) => {
      let parsed: z.ZodSafeParseResult<z.infer<typeof ackSchema>>;
      try {
        parsed = ackSchema.safeParse(JSON.parse(String(data)));
      } catch {
        this.options.log.warn('unreadable Socket Mode message from the app');
        return;
      }
      if (!parsed.success) {
        this.options.log.warn('Socket Mode message without an envelope_id');
        return;
      }
      const resolve = this.waiting.get(parsed.data.envelope_id);
      this.waiting.delete(parsed.data.envelope_id);
      resolve?.(parsed.data.payload);
    });
    ws.on('close', () => {
      this.sockets.splice(this.sockets.indexOf(ws), 1);
      this.options.onChange();
    });
    this.options.onChange();
  }
}
