import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { BOT, CHANNELS, PEOPLE, type Sandbox, slackSignature, TEAM } from '../src/index.js';
import { SIGNING_SECRET, startTestSandbox, webClient } from './sandbox-fixture.js';

const ops = CHANNELS.ops.id;

const envelopeSchema = z.object({
  type: z.literal('event_callback'),
  event_id: z.string().regex(/^Ev[0-9A-Z]+$/),
  event_time: z.number().int(),
  team_id: z.literal(TEAM.id),
  api_app_id: z.literal(BOT.appId),
  authorizations: z.array(z.object({ user_id: z.literal(BOT.userId), is_bot: z.literal(true) })),
  event: z.record(z.string(), z.unknown()),
});

interface Received {
  headers: IncomingMessage['headers'];
  body: string;
  envelope: z.infer<typeof envelopeSchema>;
}

/** An app endpoint that records each event and answers as `answer` says (default 200 at once). */
async function startEventApp(
  answer: (index: number, res: ServerResponse) => void = (_i, res) => res.end(),
) {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => {
      body += chunk;
    });
    req.on('end', () => {
      received.push({
        headers: req.headers,
        body,
        envelope: envelopeSchema.parse(JSON.parse(body)),
      });
      answer(received.length - 1, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return {
    url: `http://127.0.0.1:${address.port}/slack/events`,
    received,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

let sandbox: Sandbox | undefined;
let app: Awaited<ReturnType<typeof startEventApp>> | undefined;
afterEach(async () => {
  await sandbox?.stop();
  await app?.stop();
});

describe('Events API deliveries', () => {
  it('a reply in a thread reaches the app as a signed message event with thread_ts', async () => {
    app = await startEventApp();
    sandbox = await startTestSandbox({ appEventsUrl: app.url });
    const root = sandbox.postAsPerson({ user: 'alice', channel: 'ops', text: 'root' });
    const reply = sandbox.postAsPerson({
      user: 'bob',
      channel: 'ops',
      threadTs: root.ts,
      text: 'a & b',
    });
    await sandbox.waitFor((s) => s.events('message').every((e) => e.attempts.length > 0));
    const [first, second] = app.received;
    expect(first?.envelope.event).toMatchObject({ type: 'message', ts: root.ts, channel: ops });
    expect(first?.envelope.event.thread_ts).toBeUndefined();
    expect(second?.envelope.event).toMatchObject({
      type: 'message',
      user: PEOPLE.bob.id,
      text: 'a &amp; b',
      ts: reply.ts,
      thread_ts: root.ts,
      channel_type: 'channel',
    });
    const timestamp = Number(second?.headers['x-slack-request-timestamp']);
    expect(second?.headers['content-type']).toBe('application/json');
    expect(second?.headers['x-slack-signature']).toBe(
      slackSignature(SIGNING_SECRET, timestamp, second?.body ?? ''),
    );
    expect(second?.headers['x-slack-retry-num']).toBeUndefined();
  });

  it('a mention of the bot also raises app_mention; the app’s own posts and edits carry bot_id and message_changed', async () => {
    app = await startEventApp();
    sandbox = await startTestSandbox({ appEventsUrl: app.url });
    sandbox.postAsPerson({ user: 'alice', channel: 'ops', text: 'hey @approvals' });
    const posted = await webClient(sandbox).chat.postMessage({ channel: ops, text: 'hello' });
    await webClient(sandbox).chat.update({ channel: ops, ts: posted.ts ?? '', text: 'edited' });
    const types = await sandbox.waitFor((s) => {
      const events = s.events();
      return events.length === 4 && events.every((e) => e.attempts.length > 0) && events;
    });
    expect(types.map((e) => e.type)).toEqual([
      'message',
      'app_mention',
      'message',
      'message/message_changed',
    ]);
    expect(types[1]?.envelope.event).toMatchObject({ text: `hey <@${BOT.userId}>` });
    expect(types[2]?.envelope.event).toMatchObject({ bot_id: BOT.botId, user: BOT.userId });
    expect(types[3]?.envelope.event).toMatchObject({
      subtype: 'message_changed',
      message: { text: 'edited' },
      previous_message: { text: 'hello' },
    });
  });

  it('an event the app does not acknowledge in time is retried with X-Slack-Retry-Num and the same event_id', async () => {
    // The first delivery never gets an answer; the retry is acknowledged.
    app = await startEventApp((index, res) => {
      if (index > 0) res.end();
    });
    sandbox = await startTestSandbox({
      appEventsUrl: app.url,
      ackTimeoutMs: 200,
      eventRetryDelaysMs: [0, 0, 0],
    });
    sandbox.postAsPerson({ user: 'alice', channel: 'ops', text: 'hello' });
    const delivery = await sandbox.waitFor((s) => s.events('message')[0]?.attempts[1]);
    expect(delivery).toMatchObject({ retryNum: 1, retryReason: 'http_timeout' });
    const [first, retry] = app.received;
    expect(retry?.envelope.event_id).toBe(first?.envelope.event_id);
    expect(retry?.headers['x-slack-retry-num']).toBe('1');
    expect(retry?.headers['x-slack-retry-reason']).toBe('http_timeout');
  });

  it('redeliverEvent sends a delivered event again, as Slack’s next retry', async () => {
    app = await startEventApp();
    sandbox = await startTestSandbox({ appEventsUrl: app.url });
    sandbox.postAsPerson({ user: 'alice', channel: 'ops', text: 'hello' });
    const first = await sandbox.waitFor(
      (s) => s.events('message')[0]?.attempts[0] && s.events()[0],
    );
    const again = await sandbox.redeliverEvent(first.eventId);
    expect(again.attempts.map((a) => a.retryNum)).toEqual([0, 1]);
    expect(app.received.map((r) => r.envelope.event_id)).toEqual([first.eventId, first.eventId]);
    expect(app.received[1]?.headers['x-slack-retry-num']).toBe('1');
  });
});

describe('apps.connections.open', () => {
  it('takes only the app-level token, and hands out a ws:// URL of the sandbox', async () => {
    sandbox = await startTestSandbox({ appToken: 'xapp-1-test' });
    const opened = await webClient(sandbox, {}, 'xapp-1-test').apps.connections.open();
    expect(opened.url).toMatch(new RegExp(`^ws://127\\.0\\.0\\.1:${sandbox.port}/link/\\?ticket=`));
    await expect(webClient(sandbox).apps.connections.open()).rejects.toThrow(
      /not_allowed_token_type/,
    );
  });
});
