import { describe, expect, it } from 'vitest';
import { createLog } from '../../../src/log.js';
import { BotToken } from '../../../src/slack/transport/bot-token.js';
import {
  SlackPlatformError,
  SlackRequestError,
} from '../../../src/slack/transport/slack-http-client.js';

/** Slack's `auth.test`, answering what the test sets: a bot, a refusal or no connection. */
function slack() {
  const state: { answer: 'bot' | 'unreachable' | { refused: string }; calls: number } = {
    answer: 'bot',
    calls: 0,
  };
  const client = {
    async apiCall(method: string) {
      state.calls += 1;
      if (method !== 'auth.test') throw new Error(`unexpected ${method}`);
      if (state.answer === 'bot') return { ok: true, user_id: 'U0BOT', bot_id: 'B0BOT', team: 'T' };
      if (state.answer === 'unreachable') throw new SlackRequestError('connect ECONNREFUSED');
      throw new SlackPlatformError('auth.test', { error: state.answer.refused });
    },
  };
  return { state, client };
}

function botToken(client: ReturnType<typeof slack>['client'], clock = { now: 0 }) {
  const lines: string[] = [];
  const token = new BotToken({
    token: 'xoxb-1',
    client,
    log: createLog('debug', 'app', (line) => lines.push(line)),
    recheckMs: 60_000,
    now: () => clock.now,
  });
  return { token, lines, clock };
}

describe('BotToken', () => {
  it('a refused token fails readiness and every authorization, naming SLACK_BOT_TOKEN, and is logged once', async () => {
    const { state, client } = slack();
    state.answer = { refused: 'invalid_auth' };
    const { token, lines } = botToken(client);
    await token.verify();
    await token.verify();
    await expect(token.readiness()).rejects.toThrow(
      /Slack refuses SLACK_BOT_TOKEN \(invalid_auth\)/,
    );
    await expect(token.authorize()).rejects.toThrow(/SLACK_BOT_TOKEN/);
    expect(lines.filter((line) => line.includes(' ERROR '))).toHaveLength(1);
  });

  it("a valid token hands Bolt the bot's ids, and stays valid when a later check cannot reach Slack", async () => {
    const { state, client } = slack();
    const { token, clock } = botToken(client);
    await token.verify();
    state.answer = 'unreachable';
    clock.now = 120_000;
    await token.verify();
    await expect(token.readiness()).resolves.toBeUndefined();
    expect(await token.authorize()).toEqual({
      botToken: 'xoxb-1',
      botUserId: 'U0BOT',
      botId: 'B0BOT',
    });
    expect(token.warning()).toBeUndefined();
  });

  it('readiness asks Slack again once the verdict is older than recheckMs, without waiting for it', async () => {
    const { state, client } = slack();
    const { token, clock } = botToken(client);
    await token.verify();
    await token.readiness();
    expect(state.calls).toBe(1);
    state.answer = { refused: 'token_revoked' };
    clock.now = 60_000;
    await token.readiness();
    expect(state.calls).toBe(2);
    await token.verify();
    await expect(token.readiness()).rejects.toThrow(/\(token_revoked\)/);
  });

  it('unverified (Slack unreachable at start): ready, with a warning, and requests go on with the token alone', async () => {
    const { state, client } = slack();
    state.answer = 'unreachable';
    const { token, lines } = botToken(client);
    await token.verify();
    await expect(token.readiness()).resolves.toBeUndefined();
    expect(token.warning()).toMatch(/SLACK_BOT_TOKEN not verified yet/);
    expect(await token.authorize()).toEqual({ botToken: 'xoxb-1' });
    expect(lines.filter((line) => line.includes(' WARN '))).toHaveLength(1);
  });
});
