import { describe, expect, it } from 'vitest';
import {
  type HistoryMethod,
  parseBotIdentity,
  searchOwnMessage,
} from '../../../src/slack/transport/own-message-search.js';

const me = { userId: 'U0BOT', botId: 'B0BOT' };
const query = {
  channel: 'C0OPS',
  sinceMs: 1_795_000_000_000,
  eventType: 'adk_approvals_pause',
  payload: { pause_id: 'p-1', message: 'card' },
};
const metadata = (payload: Record<string, string>) => ({
  event_type: 'adk_approvals_pause',
  event_payload: payload,
});

/** Pages as conversations.history answers them, read in turn; the calls made are kept. */
function pages(...answers: object[]) {
  const calls: { method: HistoryMethod; args: Record<string, unknown> }[] = [];
  const read = async (method: HistoryMethod, args: Record<string, unknown>) => {
    calls.push({ method, args });
    return answers[calls.length - 1];
  };
  return { read, calls };
}

describe('finding a message the app posted before a crash', () => {
  it('takes only the app’s own message whose metadata names the pause, and asks Slack for metadata after sinceMs', async () => {
    const { read, calls } = pages({
      messages: [
        { ts: '9.000003', user: 'U0BOT', bot_id: 'B0BOT', metadata: metadata(query.payload) },
        { ts: '9.000002', user: 'U0BOT', metadata: metadata({ pause_id: 'p-1', message: 'line' }) },
        { ts: '9.000001', user: 'U0BOT', bot_id: 'B0BOT' },
        // Another app's message that claims to be the card: never taken for it.
        { ts: '9.000000', user: 'U0OTHER', bot_id: 'B0OTHER', metadata: metadata(query.payload) },
      ],
    });
    expect(await searchOwnMessage(read, me, query)).toBe('9.000003');
    expect(calls).toEqual([
      {
        method: 'conversations.history',
        args: {
          channel: 'C0OPS',
          oldest: '1795000000.000000',
          include_all_metadata: true,
          limit: 200,
        },
      },
    ]);
  });

  it('reads a thread’s replies page by page, and answers the earliest match', async () => {
    const { read, calls } = pages(
      {
        messages: [{ ts: '5.000001', bot_id: 'B0BOT', metadata: metadata(query.payload) }],
        response_metadata: { next_cursor: 'next' },
      },
      {
        messages: [{ ts: '4.000009', bot_id: 'B0BOT', metadata: metadata(query.payload) }],
        response_metadata: { next_cursor: '' },
      },
    );
    expect(await searchOwnMessage(read, me, { ...query, threadTs: '3.000000' })).toBe('4.000009');
    expect(calls.map(({ method, args }) => [method, args.ts, args.cursor])).toEqual([
      ['conversations.replies', '3.000000', undefined],
      ['conversations.replies', '3.000000', 'next'],
    ]);
  });

  it('finds nothing where no message matches, and knows the app from auth.test', async () => {
    const { read } = pages({ messages: [{ ts: '1.000000', user: 'U0PERSON' }] });
    expect(await searchOwnMessage(read, me, query)).toBeUndefined();
    expect(parseBotIdentity({ ok: true, user_id: 'U0BOT', bot_id: 'B0BOT' })).toEqual(me);
    expect(parseBotIdentity({ ok: true })).toBeUndefined();
  });
});
