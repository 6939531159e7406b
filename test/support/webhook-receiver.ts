import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A webhook receiver on 127.0.0.1 for tests of webhook resumes: it records each delivery's id
 * (`X-Approvals-Delivery`) and answers 204, or 503 while `failNext` is above zero.
 */
export interface WebhookReceiver {
  /** A URL prefix the receiver answers under (every path below it). */
  url: string;
  /** Delivery ids taken, in order. */
  delivered: string[];
  /** When each of them arrived (epoch ms), in the same order. */
  deliveredAt: number[];
  /** How many of the next deliveries to answer 503 (each one counts it down). */
  failNext: number;
  close(): Promise<void>;
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const receiver: WebhookReceiver = {
    url: '',
    delivered: [],
    deliveredAt: [],
    failNext: 0,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (receiver.failNext > 0) {
        receiver.failNext -= 1;
        res.writeHead(503).end();
        return;
      }
      receiver.delivered.push(String(req.headers['x-approvals-delivery']));
      receiver.deliveredAt.push(Date.now());
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/`;
  return receiver;
}
