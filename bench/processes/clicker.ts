import { Agent, request } from 'node:http';
import { performance } from 'node:perf_hooks';
import { slackSignature } from '@adk-slack-approvals/slack-sandbox/payloads';
import { answerCpuQueries } from './cpu-usage.js';
import { epochMs } from './epoch.js';
import { type ClickOutcome, type Fire, fireSchema, tellParent } from './messages.js';
import { stopOnSignal } from './stop-on-signal.js';

/**
 * Plays Slack for a burst of clicks, in a process of its own so that the time it measures is not
 * held up by the sandbox and the fake ADK server, which are busy with the app's work after each
 * ack. Every request is signed as Slack signs it, all are sent at once, and each one's time from
 * sending to the end of the response (the ack) is measured.
 */

// A new connection per request: nothing can be reused across a burst, and a server closing an
// idle kept-alive socket just as it is reused would show up as a failed click.
const agent = new Agent({ keepAlive: false, maxSockets: Number.POSITIVE_INFINITY });
const NO_ACK_AFTER_MS = 10_000;

interface Signed {
  url: string;
  body: string;
  headers: Record<string, string>;
}

function sign(fire: Fire): Signed[] {
  const timestamp = Math.floor(Date.now() / 1000);
  return fire.requests.map(({ url, body }) => ({
    url,
    body,
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      'content-length': String(Buffer.byteLength(body)),
      'x-slack-request-timestamp': String(timestamp),
      'x-slack-signature': slackSignature(fire.signingSecret, timestamp, body),
      'user-agent': 'Slackbot 1.0 (+https://api.slack.com/robots)',
    },
  }));
}

function send({ url, body, headers }: Signed): Promise<ClickOutcome> {
  return new Promise((resolve) => {
    const started = performance.now();
    const sentAt = epochMs(started);
    const req = request(url, { method: 'POST', agent, headers }, (res) => {
      res.resume();
      res.on('end', () =>
        resolve({ sentAt, status: res.statusCode ?? 0, ackMs: performance.now() - started }),
      );
      res.on('error', (error) => resolve({ sentAt, error: error.message }));
    });
    req.setTimeout(NO_ACK_AFTER_MS, () =>
      req.destroy(new Error(`no ack in ${NO_ACK_AFTER_MS} ms`)),
    );
    req.on('error', (error) => resolve({ sentAt, error: error.message }));
    req.end(body);
  });
}

process.on('message', (message: unknown) => {
  const fire = fireSchema.safeParse(message);
  if (!fire.success) return;
  const signed = sign(fire.data);
  Promise.all(signed.map(send)).then((outcomes) => tellParent({ kind: 'fired', outcomes }));
});
answerCpuQueries();
stopOnSignal(async () => agent.destroy());
tellParent({ kind: 'ready', port: 0 });
