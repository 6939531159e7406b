import { createHmac } from 'node:crypto';
import { createServer } from 'node:net';
import { type Sandbox, startSandbox } from '@adk-slack-approvals/slack-sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLog } from '../../../src/log.js';
import { createSlackApp, type SlackApp } from '../../../src/slack/transport/bolt-app.js';

let sandbox: Sandbox;
let slackApp: SlackApp;
let port: number;
let adkUp = true;

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, signingSecret: 'secret', botToken: 'xoxb-probe' });
  slackApp = createSlackApp({
    transport: {
      mode: 'http',
      botToken: 'xoxb-probe',
      signingSecret: 'secret',
      apiUrl: sandbox.apiUrl,
    },
    port: 0,
    log: createLog('error', 'test', () => {}),
    readiness: {
      store: async () => {},
      adk: async () => {
        if (!adkUp) throw new Error('connect ECONNREFUSED 127.0.0.1:8000');
      },
      slow: () => new Promise<void>((resolve) => setTimeout(resolve, 5)),
    },
    readinessTimeoutMs: 1_000,
  });
  port = await slackApp.start();
});
afterAll(async () => {
  await slackApp?.stop();
  await sandbox?.stop();
});

async function get(path: string): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`http://127.0.0.1:${port}${path}`);
  return { status: response.status, body: await response.json() };
}

describe('health probes', () => {
  it('/healthz answers while the process runs', async () => {
    expect(await get('/healthz')).toEqual({ status: 200, body: { status: 'ok' } });
  });

  it('/readyz answers 200 when Slack accepts the bot token and Redis and ADK answer, and 503 naming the one that does not', async () => {
    adkUp = true;
    expect(await get('/readyz')).toEqual({
      status: 200,
      body: { status: 'ready', checks: { slack: 'ok', store: 'ok', adk: 'ok', slow: 'ok' } },
    });
    adkUp = false;
    expect(await get('/readyz')).toEqual({
      status: 503,
      body: {
        status: 'not ready',
        checks: {
          slack: 'ok',
          store: 'ok',
          adk: 'connect ECONNREFUSED 127.0.0.1:8000',
          slow: 'ok',
        },
      },
    });
  });
});

function signed(body: string, contentType: string): RequestInit {
  const timestamp = String(Math.floor(Date.now() / 1000));
  const signature = `v0=${createHmac('sha256', 'secret').update(`v0:${timestamp}:${body}`).digest('hex')}`;
  return {
    method: 'POST',
    body,
    headers: {
      'content-type': contentType,
      'x-slack-request-timestamp': timestamp,
      'x-slack-signature': signature,
    },
  };
}

describe('signed but malformed bodies', () => {
  const form = 'application/x-www-form-urlencoded';
  it.each([
    ['payload=null', form],
    ['payload=%5B%5D', form],
    ['payload=42', form],
    ['null', 'application/json'],
    ['"text"', 'application/json'],
    // Look like an object at first sight, which Bolt alone parses: it answers 400 as well.
    ['payload=%7Bnot%20json', form],
    ['payload={"type"', form],
    ['{"type": ', 'application/json'],
  ])('%s (%s) is answered 400, and the app keeps serving', async (body, contentType) => {
    const response = await fetch(
      `http://127.0.0.1:${port}/slack/events`,
      signed(body, contentType),
    );
    expect(response.status).toBe(400);
    expect((await get('/healthz')).status).toBe(200);
  });

  it('an unsigned body is still refused as unsigned (401)', async () => {
    const response = await fetch(`http://127.0.0.1:${port}/slack/events`, {
      method: 'POST',
      body: 'payload=null',
      headers: { 'content-type': form },
    });
    expect(response.status).toBe(401);
  });
});

describe('LOG_LEVEL', () => {
  it('holds for the whole app, although Bolt and its Web API client set their logger to info', () => {
    const lines: string[] = [];
    const log = createLog('warn', 'app', (line) => lines.push(line));
    createSlackApp({
      transport: { mode: 'http', botToken: 'xoxb-x', signingSecret: 's', apiUrl: sandbox.apiUrl },
      port: 0,
      log,
      readiness: {},
    });
    log.child('workflow').info('an info line');
    log.child('workflow').warn('a warning');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('a warning');
  });
});

describe('a PORT another process holds', () => {
  it('stops the start with a message naming PORT, over HTTP and in Socket Mode', async () => {
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, resolve));
    const address = holder.address();
    if (typeof address !== 'object' || address === null) throw new Error('no port');
    const log = createLog('error', 'test', () => {});
    try {
      for (const transport of [
        { mode: 'http', botToken: 'xoxb-probe', signingSecret: 's', apiUrl: sandbox.apiUrl },
        { mode: 'socket', botToken: 'xoxb-probe', appToken: 'xapp-1', apiUrl: sandbox.apiUrl },
      ] as const) {
        const taken = createSlackApp({ transport, port: address.port, log, readiness: {} });
        await expect(taken.start()).rejects.toThrow(
          `PORT=${address.port}: the port is in use by another process (EADDRINUSE)`,
        );
      }
    } finally {
      await new Promise((resolve) => holder.close(resolve));
    }
  });
});
