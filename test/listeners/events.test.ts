import { describe, expect, it } from 'vitest';
import { threadMessageOf } from '../../src/listeners/events.js';

const body = { event_id: 'Ev123', team_id: 'T1' };
const reply = {
  type: 'message',
  user: 'U1',
  channel: 'C1',
  text: 'go on',
  ts: '2.000002',
  thread_ts: '1.000001',
};

describe('threadMessageOf', () => {
  it('reads a person’s reply in a thread', () => {
    expect(threadMessageOf('message', body, reply)).toEqual({
      kind: 'message',
      message: {
        eventId: 'Ev123',
        kind: 'message',
        teamId: 'T1',
        channelId: 'C1',
        userId: 'U1',
        text: 'go on',
        ts: '2.000002',
        threadTs: '1.000001',
      },
    });
  });

  it('ignores bot messages (the app’s own included), edits, deletions and joins', () => {
    expect(threadMessageOf('message', body, { ...reply, bot_id: 'B1' })).toEqual({
      kind: 'ignored',
    });
    for (const subtype of ['message_changed', 'message_deleted', 'bot_message', 'channel_join']) {
      expect(threadMessageOf('message', body, { ...reply, subtype })).toEqual({ kind: 'ignored' });
    }
  });

  it('takes a reply also sent to the channel as a reply', () => {
    const read = threadMessageOf('message', body, { ...reply, subtype: 'thread_broadcast' });
    expect(read).toMatchObject({ kind: 'message', message: { threadTs: '1.000001' } });
  });

  it('a thread root (thread_ts equal to its ts) is top-level', () => {
    const read = threadMessageOf('message', body, { ...reply, thread_ts: reply.ts });
    expect(read).toMatchObject({ kind: 'message', message: { threadTs: undefined } });
  });

  it('names what is missing from an unreadable event', () => {
    const read = threadMessageOf('message', {}, reply);
    expect(read).toMatchObject({
      kind: 'unreadable',
      problem: expect.stringContaining('event_id'),
    });
  });
});
