import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CHANNELS, type Sandbox, startSandbox } from '@adk-slack-approvals/slack-sandbox';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  SlackHttpClient,
  type SlackHttpClientOptions,
  SlackPlatformError,
  SlackRateLimitedError,
  SlackRequestError,
} from '../../../src/slack/transport/slack-http-client.js';

const ops = CHANNELS.ops.id;
const clients: SlackHttpClient[] = [];

function client(options: Partial<SlackHttpClientOptions> & { token: string }): SlackHttpClient {
  const made = new SlackHttpClient({
    timeoutMs: 2_000,
    retries: 2,
    retryDelayMs: 1,
    maxRetryDelayMs: 2,
    ...options,
  });
  clients.push(made);
  return made;
}

afterEach(() => {
  for (const made of clients.splice(0)) made.close();
});

describe('the Slack HTTP client against the sandbox', () => {
  let sandbox: Sandbox;
  const botToken = `xoxb-test-${randomBytes(4).toString('hex')}`;

  beforeAll(async () => {
    sandbox = await startSandbox({ botToken, signingSecret: 'secret' });
  });
  afterAll(() => sandbox.stop());

  it('posts a message as WebClient would: blocks arrive as Block Kit, the answer as sent', async () => {
    const slack = client({ token: botToken, apiUrl: sandbox.apiUrl });
    const blocks = [{ type: 'section', text: { type: 'mrkdwn', text: 'Approve *restart* & go?' } }];
    const answer = await slack.apiCall('chat.postMessage', {
      channel: ops,
      text: 'Approve restart?',
      blocks,
      thread_ts: undefined,
      unfurl_links: false,
    });
    expect(answer).toMatchObject({ ok: true, channel: ops, ts: expect.any(String) });
    const [call] = sandbox.calls('chat.postMessage');
    expect(call?.args).toMatchObject({ channel: ops, text: 'Approve restart?', blocks });
    expect(call?.args).not.toHaveProperty('thread_ts');
    expect(sandbox.messages(ops).map((message) => message.text)).toContain('Approve restart?');
  });

  it("throws Slack's own error code as a platform error", async () => {
    const slack = client({ token: botToken, apiUrl: sandbox.apiUrl });
    const failing = slack.apiCall('chat.postMessage', { channel: 'C0NOWHERE', text: 'x' });
    await expect(failing).rejects.toBeInstanceOf(SlackPlatformError);
    await expect(failing).rejects.toMatchObject({
      code: 'slack_webapi_platform_error',
      data: { error: 'channel_not_found' },
    });
  });

  it('throws a 429 at once with its Retry-After, without retrying it', async () => {
    sandbox.reset();
    sandbox.rateLimit('chat.update', 1, 7);
    const slack = client({ token: botToken, apiUrl: sandbox.apiUrl });
    const failing = slack.apiCall('chat.update', { channel: ops, ts: '1.2', text: 'x' });
    await expect(failing).rejects.toBeInstanceOf(SlackRateLimitedError);
    await expect(failing).rejects.toMatchObject({ retryAfter: 7 });
    expect(sandbox.calls('chat.update')).toHaveLength(1);
  });

  it('refuses a wrong token as Slack does', async () => {
    const slack = client({ token: 'xoxb-wrong', apiUrl: sandbox.apiUrl });
    await expect(
      slack.apiCall('chat.postMessage', { channel: ops, text: 'x' }),
    ).rejects.toMatchObject({ data: { error: 'invalid_auth' } });
  });
});

describe('the Slack HTTP client when Slack fails', () => {
  let server: Server;
  let url: string;
  let answer: (request: IncomingMessage, response: ServerResponse) => void;
  let requests = 0;

  beforeAll(async () => {
    server = createServer((request, response) => {
      requests += 1;
      request.resume();
      request.on('end', () => answer(request, response));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  function answering(statuses: number[]): void {
    requests = 0;
    answer = (_request, response) => {
      const status = statuses[Math.min(requests - 1, statuses.length - 1)] ?? 200;
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(
        status === 200 ? '{"ok":true,"ts":"1.2","channel":"C1"}' : 'Service Unavailable',
      );
    };
  }

  it('retries a 5xx and gets the answer that follows', async () => {
    answering([503, 502, 200]);
    const slack = client({ token: 'xoxb-t', apiUrl: url });
    await expect(slack.apiCall('chat.update', { channel: 'C1', ts: '1.2' })).resolves.toMatchObject(
      { ok: true },
    );
    expect(requests).toBe(3);
  });

  it('gives up after its retries, as a request error naming the method and status', async () => {
    answering([503]);
    const slack = client({ token: 'xoxb-t', apiUrl: url, retries: 1 });
    const failing = slack.apiCall('chat.update', { channel: 'C1', ts: '1.2' });
    await expect(failing).rejects.toBeInstanceOf(SlackRequestError);
    await expect(failing).rejects.toThrow(/chat\.update: Slack answered HTTP 503/);
    expect(requests).toBe(2);
  });

  it('does not retry a 4xx other than 429', async () => {
    answering([404]);
    const slack = client({ token: 'xoxb-t', apiUrl: url });
    await expect(slack.apiCall('chat.update', {})).rejects.toThrow(/HTTP 404/);
    expect(requests).toBe(1);
  });

  it('times out a request that gets no answer, and retries it', async () => {
    requests = 0;
    answer = () => {}; // never answers
    const slack = client({ token: 'xoxb-t', apiUrl: url, timeoutMs: 100, retries: 1 });
    await expect(slack.apiCall('chat.update', {})).rejects.toThrow(/no answer within 100 ms/);
    expect(requests).toBe(2);
  });

  it('refuses an answer that is not a JSON object', async () => {
    requests = 0;
    answer = (_request, response) => {
      response.writeHead(200, { 'content-type': 'text/html' });
      response.end('<html>proxy</html>');
    };
    const slack = client({ token: 'xoxb-t', apiUrl: url });
    await expect(slack.apiCall('chat.update', {})).rejects.toThrow(/not a JSON object/);
  });

  it("refuses an answer too large to be one of Slack's, without trying again", async () => {
    requests = 0;
    answer = (_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(`{"ok":true,"text":"${'x'.repeat(6 * 1024 * 1024)}"}`);
    };
    const slack = client({ token: 'xoxb-t', apiUrl: url });
    const failing = slack.apiCall('chat.update', {});
    await expect(failing).rejects.toBeInstanceOf(SlackRequestError);
    await expect(failing).rejects.toThrow(/larger than/);
    expect(requests).toBe(1);
  });

  it('sends a call again at once, and without counting it, when Slack closed the kept-alive connection as it went out', async () => {
    answering([200]);
    const answered = new WeakSet<object>();
    const answerFirst = answer;
    // Each connection answers its first call and is closed, unanswered, on the next.
    answer = (request, response) => {
      if (answered.has(request.socket)) {
        request.socket.destroy();
        return;
      }
      answered.add(request.socket);
      answerFirst(request, response);
    };
    const slack = client({ token: 'xoxb-t', apiUrl: url, retries: 0, retryDelayMs: 60_000 });
    await slack.apiCall('chat.update', {});
    await expect(slack.apiCall('chat.update', {})).resolves.toMatchObject({ ok: true });
    expect(requests).toBe(3);
  });

  it('fails a refused connection as a request error after its retries', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const slack = client({ token: 'xoxb-t', apiUrl: `http://127.0.0.1:${port}/api/` });
    const failing = slack.apiCall('chat.update', {});
    await expect(failing).rejects.toBeInstanceOf(SlackRequestError);
    await expect(failing).rejects.toThrow(/ECONNREFUSED/);
  });
});
