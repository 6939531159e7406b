import { randomBytes } from 'node:crypto';
import { CHANNELS, type Sandbox, startSandbox } from '@adk-slack-approvals/slack-sandbox';
import { WebClient } from '@slack/web-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SlackHttpClient } from '../../../src/slack/transport/slack-http-client.js';
import { WebApiSlackPort } from '../../../src/slack/transport/web-api-port.js';
import { texts } from '../blocks.js';

const ops = CHANNELS.ops.id;
const payments = CHANNELS.payments.id;

const clients = {
  SlackHttpClient: (token: string, apiUrl: string) =>
    new SlackHttpClient({
      token,
      apiUrl,
      timeoutMs: 5_000,
      retries: 0,
      retryDelayMs: 1,
      maxRetryDelayMs: 1,
    }),
  WebClient: (token: string, apiUrl: string) =>
    new WebClient(token, {
      slackApiUrl: apiUrl,
      rejectRateLimitedCalls: true,
      retryConfig: { retries: 0 },
    }),
};

describe.each(Object.entries(clients))(
  'the Slack port under per-channel rate limits (the sandbox answering 429), over %s',
  (_, makeClient) => {
    let sandbox: Sandbox;
    let port: WebApiSlackPort;

    beforeAll(async () => {
      const botToken = `xoxb-test-${randomBytes(4).toString('hex')}`;
      // A fast rate, so that the test waits about a second: Retry-After is whole seconds.
      sandbox = await startSandbox({
        botToken,
        signingSecret: 'secret',
        channelRates: { 'chat.postMessage': { perSecond: 20, burst: 5 } },
      });
      port = new WebApiSlackPort({ client: makeClient(botToken, sandbox.apiUrl) });
    });
    afterAll(() => sandbox.stop());

    it('a burst of posts to one channel past its limit all get posted, in turns, none given up', async () => {
      const texts = Array.from({ length: 12 }, (_, i) => `card ${i}`);
      const posted = await Promise.allSettled(
        texts.map((text) => port.postMessage({ channel: ops, text })),
      );
      expect(posted.filter((result) => result.status === 'rejected')).toEqual([]);
      expect(
        sandbox
          .messages(ops)
          .map((message) => message.text)
          .sort(),
      ).toEqual([...texts].sort());
      expect(sandbox.calls('chat.postMessage').some((call) => call.status === 429)).toBe(true);
    });

    it('a post given up on while it waits its turn is never sent', async () => {
      sandbox.reset();
      sandbox.rateLimit('chat.postMessage', 1, 1);
      const given = new AbortController();
      const waiting = port.postMessage({ channel: ops, text: 'stale card', signal: given.signal });
      await sandbox.waitFor(() => sandbox.calls('chat.postMessage').length === 1);
      given.abort();
      await expect(waiting).rejects.toMatchObject({ method: 'chat.postMessage', code: 'aborted' });
      await port.postMessage({ channel: ops, text: 'next' });
      expect(sandbox.messages(ops).map((message) => message.text)).toEqual(['next']);
    });

    it('a channel waiting out its limit holds up no other channel', async () => {
      sandbox.reset();
      const busy = Array.from({ length: 8 }, (_, i) =>
        port.postMessage({ channel: ops, text: `ops ${i}` }),
      );
      await port.postMessage({ channel: payments, text: 'elsewhere' });
      // The payments post answered while ops posts still wait their turn.
      expect(sandbox.messages(ops).length).toBeLessThan(8);
      await Promise.all(busy);
      expect(sandbox.messages(ops)).toHaveLength(8);
    });
  },
);

describe('what the Slack port lets reach a screen', () => {
  let sandbox: Sandbox;
  let port: WebApiSlackPort;
  const tags = (text: string) =>
    [...text].map((c) => String.fromCodePoint(0xe0000 + c.charCodeAt(0))).join('');
  /** Bidi controls, a tag run spelling words, and the flag of Wales (spelled in tags). */
  const wales = `\u{1F3F4}${tags('gbwls')}\u{E007F}`;
  const hiding = `pay \u202Eevil\u202C bob${tags(' and alice')}\u200F ${wales}`;
  const HIDING = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]|\uDB40[\uDC00-\uDC7F]/;

  beforeAll(async () => {
    const botToken = `xoxb-test-${randomBytes(4).toString('hex')}`;
    sandbox = await startSandbox({ botToken, signingSecret: 'secret' });
    port = new WebApiSlackPort({ client: clients.SlackHttpClient(botToken, sandbox.apiUrl) });
  });
  afterAll(() => sandbox.stop());

  it('no text object and no notification text carries bidi controls or tag characters; values and flags are kept', async () => {
    const value = JSON.stringify({ note: hiding });
    await port.postMessage({
      channel: ops,
      text: hiding,
      blocks: [
        { type: 'section', text: { type: 'mrkdwn', text: hiding } },
        {
          type: 'actions',
          elements: [
            { type: 'button', action_id: 'a', text: { type: 'plain_text', text: hiding }, value },
          ],
        },
      ],
    });
    const [message] = sandbox.messages(ops);
    const [call] = sandbox.calls('chat.postMessage');
    const sent = JSON.stringify(call?.args);
    expect(message?.text).toBe(`pay evil bob ${wales}`);
    expect(JSON.stringify(message?.blocks)).toContain(`pay evil bob ${wales}`);
    // The button's value is data, not text: it goes as it was.
    expect(sent).toContain(JSON.stringify(value).slice(1, -1));
    const shown = [message?.text ?? '', ...texts(message?.blocks)];
    expect(shown).toHaveLength(3);
    for (const text of shown) expect(text.replaceAll(wales, '')).not.toMatch(HIDING);
  });
});
