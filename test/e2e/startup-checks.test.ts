import { createServer } from 'node:net';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { type Harness, PEOPLE, startHarness } from '../support/app-harness.js';

/**
 * What the app says at start about the two things it cannot work without: the bot token (Slack's
 * `auth.test`, the Slack sandbox refusing a token it did not issue) and the ADK server. The whole
 * app, real Redis, the sandbox.
 */
const POLICY = `
defaults:
  approvers: [${PEOPLE.bob.id}]
rules: []
`;

const readySchema = z.object({
  status: z.string(),
  checks: z.record(z.string(), z.string()),
  warnings: z.record(z.string(), z.string()).optional(),
});

let harness: Harness | undefined;
const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);

beforeEach(() => {
  unhandled.length = 0;
  process.on('unhandledRejection', onUnhandled);
});
afterEach(async () => {
  process.off('unhandledRejection', onUnhandled);
  await harness?.stop();
  harness = undefined;
});

async function readyz(app: Harness) {
  const response = await fetch(`http://127.0.0.1:${app.app.port}/readyz`);
  return { status: response.status, body: readySchema.parse(await response.json()) };
}

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (typeof address !== 'object' || address === null) throw new Error('no port');
  return address.port;
}

describe('the bot token', () => {
  it('one Slack refuses makes /readyz answer 503 naming SLACK_BOT_TOKEN; the start log names it; nothing is left unhandled', async () => {
    harness = await startHarness({ policy: POLICY, appBotToken: 'xoxb-not-the-sandbox-token' });
    const ready = await readyz(harness);
    expect(ready.status).toBe(503);
    expect(ready.body.checks.slack).toMatch(/SLACK_BOT_TOKEN \(invalid_auth\)/);
    expect(ready.body.checks.store).toBe('ok');
    const named = harness.logs.filter((line) =>
      / ERROR .*SLACK_BOT_TOKEN.*invalid_auth/.test(line),
    );
    expect(named).toHaveLength(1);
    // Bolt's own auth.test used to reject with nobody listening, a while after the start.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(unhandled).toEqual([]);
  });

  it('one revoked while the app runs turns /readyz to 503 naming SLACK_BOT_TOKEN at the next check', async () => {
    harness = await startHarness({ policy: POLICY, slackProxy: true, botTokenRecheckMs: 100 });
    const running = harness;
    expect((await readyz(running)).status).toBe(200);
    expect(running.logs.some((line) => line.includes('SLACK_BOT_TOKEN verified'))).toBe(true);
    running.slackProxy?.fail('auth.test', 'token_revoked');
    const refused = await vi.waitFor(
      async () => {
        const ready = await readyz(running);
        if (ready.status !== 503) throw new Error(`/readyz answered ${ready.status}`);
        return ready;
      },
      { timeout: 10_000, interval: 100 },
    );
    expect(refused.body.checks.slack).toMatch(/SLACK_BOT_TOKEN \(token_revoked\)/);
    expect(unhandled).toEqual([]);
  });
});

describe('the ADK server', () => {
  it('one that does not answer at start is a warning naming ADK_BASE_URL; the app starts anyway', async () => {
    const url = `http://127.0.0.1:${await closedPort()}`;
    harness = await startHarness({ policy: POLICY, adkBaseUrl: url });
    const warned = harness.logs.filter((line) => / WARN .*ADK_BASE_URL/.test(line));
    expect(warned).toEqual([expect.stringContaining(`ADK_BASE_URL (${url}) does not answer`)]);
    const ready = await readyz(harness);
    expect(ready.status).toBe(503);
    expect(ready.body.checks.slack).toBe('ok');
  });
});
