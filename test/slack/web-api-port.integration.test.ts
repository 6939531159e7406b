import { randomBytes } from 'node:crypto';
import { CHANNELS, type Sandbox, startSandbox } from '@adk-slack-approvals/slack-sandbox';
import { WebClient } from '@slack/web-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SlackHttpClient } from '../../src/slack/slack-http-client.js';
import { WebApiSlackPort } from '../../src/slack/web-api-port.js';

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
