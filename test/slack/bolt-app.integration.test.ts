import { type Sandbox, startSandbox } from '@adk-slack-approvals/slack-sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLog } from '../../src/log.js';
import { createSlackApp, type SlackApp } from '../../src/slack/bolt-app.js';

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

  it('/readyz answers 200 when Redis and ADK answer, and 503 naming the one that does not', async () => {
    adkUp = true;
    expect(await get('/readyz')).toEqual({
      status: 200,
      body: { status: 'ready', checks: { store: 'ok', adk: 'ok', slow: 'ok' } },
    });
    adkUp = false;
    expect(await get('/readyz')).toEqual({
      status: 503,
      body: {
        status: 'not ready',
        checks: { store: 'ok', adk: 'connect ECONNREFUSED 127.0.0.1:8000', slow: 'ok' },
      },
    });
  });
});
