import { webApi } from '@slack/bolt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChannelRateLimits } from '../src/channel-rates.js';
import { CHANNELS, type Sandbox, SLACK_CHANNEL_RATES } from '../src/index.js';
import { startTestSandbox, webClient } from './sandbox-fixture.js';

const ops = CHANNELS.ops.id;
const payments = CHANNELS.payments.id;

describe('per-channel rate limits (a token bucket per method and channel)', () => {
  it('a quiet channel takes a burst, then one call a second; a refused call costs no token', () => {
    let now = 0;
    const limits = new ChannelRateLimits(
      { 'chat.postMessage': { perSecond: 1, burst: 3 } },
      () => now,
    );
    const burst = [1, 2, 3, 4].map(() => limits.take('chat.postMessage', ops));
    expect(burst).toEqual([undefined, undefined, undefined, 1]);
    now = 999;
    expect(limits.take('chat.postMessage', ops)).toBe(1);
    now = 1_000;
    expect(limits.take('chat.postMessage', ops)).toBeUndefined();
    expect(limits.take('chat.postMessage', ops)).toBe(1);
    // Other channels and other methods have buckets of their own, or none.
    expect(limits.take('chat.postMessage', payments)).toBeUndefined();
    expect(limits.take('chat.update', ops)).toBeUndefined();
  });

  it('Retry-After is whole seconds, at least 1, as Slack sends it', () => {
    let now = 0;
    const limits = new ChannelRateLimits(
      { 'chat.update': { perSecond: 0.25, burst: 1 } },
      () => now,
    );
    expect(limits.take('chat.update', ops)).toBeUndefined();
    expect(limits.take('chat.update', ops)).toBe(4);
    now = 3_500;
    expect(limits.take('chat.update', ops)).toBe(1);
  });

  describe('through the real Web API client, on a sandbox started with SLACK_CHANNEL_RATES', () => {
    let sandbox: Sandbox;
    beforeAll(async () => {
      sandbox = await startTestSandbox({ channelRates: SLACK_CHANNEL_RATES });
    });
    afterAll(() => sandbox.stop());

    it('the post over the burst answers 429 ratelimited with Retry-After; another channel still posts', async () => {
      const client = webClient(sandbox, { rejectRateLimitedCalls: true });
      for (const n of [1, 2, 3]) await client.chat.postMessage({ channel: ops, text: `m${n}` });
      await expect(client.chat.postMessage({ channel: ops, text: 'm4' })).rejects.toMatchObject({
        code: webApi.ErrorCode.RateLimitedError,
        retryAfter: 1,
      });
      expect(sandbox.calls('chat.postMessage').at(-1)).toMatchObject({
        status: 429,
        ok: false,
        error: 'ratelimited',
      });
      const other = await client.chat.postMessage({ channel: payments, text: 'elsewhere' });
      expect(other.ok).toBe(true);
      // An update has its own bucket per channel: the posts did not spend it.
      const posted = sandbox.messages(ops)[0];
      if (posted === undefined) throw new Error('no message in ops');
      const updated = await client.chat.update({ channel: ops, ts: posted.ts, text: 'edited' });
      expect(updated.ok).toBe(true);
      expect(sandbox.messages(ops).map((m) => m.text)).toEqual(['edited', 'm2', 'm3']);
    });
  });

  it('a sandbox started without channel rates never refuses a burst', async () => {
    const sandbox = await startTestSandbox();
    try {
      const client = webClient(sandbox, { rejectRateLimitedCalls: true });
      for (let n = 0; n < 10; n += 1) await client.chat.postMessage({ channel: ops, text: `${n}` });
      expect(sandbox.messages(ops)).toHaveLength(10);
    } finally {
      await sandbox.stop();
    }
  });
});
