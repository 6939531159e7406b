import { describe, expect, it } from 'vitest';
import { messagePermalink, workspaceUrlOf } from '../../../src/slack/codecs/permalinks.js';

/**
 * The shapes of Slack's reference (docs.slack.dev, chat.getPermalink); its example links drop a
 * digit of the ts, while real ones keep all sixteen (`p` + seconds + microseconds).
 */
const WORKSPACE = 'https://ghostbusters.slack.com/';

describe('message links computed as Slack gives them', () => {
  it("a top-level message: the workspace's URL, the channel, and the ts without its dot", () => {
    expect(messagePermalink(WORKSPACE, { channel: 'C1H9RESGA', ts: '1358546515.000008' })).toBe(
      'https://ghostbusters.slack.com/archives/C1H9RESGA/p1358546515000008',
    );
  });

  it('a reply in a thread names the thread and the channel', () => {
    expect(
      messagePermalink(WORKSPACE, {
        channel: 'C1H9RESGL',
        ts: '1358546517.000023',
        threadTs: '1358546515.000008',
      }),
    ).toBe(
      'https://ghostbusters.slack.com/archives/C1H9RESGL/p1358546517000023?thread_ts=1358546515.000008&cid=C1H9RESGL',
    );
    // A thread's root is no reply: its link is the plain one.
    expect(
      messagePermalink(WORKSPACE, {
        channel: 'C1H9RESGL',
        ts: '1358546515.000008',
        threadTs: '1358546515.000008',
      }),
    ).toBe('https://ghostbusters.slack.com/archives/C1H9RESGL/p1358546515000008');
  });

  it('ids not of Slack’s form give no link (Slack is asked instead)', () => {
    for (const message of [
      { channel: 'C1/../x', ts: '1358546515.000008' },
      { channel: 'c1lower', ts: '1358546515.000008' },
      { channel: 'C1H9RESGA', ts: '1358546515' },
      { channel: 'C1H9RESGA', ts: '1358546515.8&x=1' },
      { channel: 'C1H9RESGA', ts: '1358546515.000008', threadTs: 'x&cid=evil' },
    ]) {
      expect(messagePermalink(WORKSPACE, message)).toBeUndefined();
    }
  });

  it("the workspace's URL is taken only as a plain http(s) origin, with its trailing slash", () => {
    expect(workspaceUrlOf('https://acme.slack.com/')).toBe('https://acme.slack.com/');
    expect(workspaceUrlOf('https://acme.slack.com')).toBe('https://acme.slack.com/');
    expect(workspaceUrlOf('http://127.0.0.1:3001/')).toBe('http://127.0.0.1:3001/');
    for (const url of [
      undefined,
      '',
      'acme.slack.com',
      'javascript:alert(1)',
      'https://acme.slack.com/?x=1',
      'https://user:pw@acme.slack.com/',
      'https://acme.slack.com/#top',
    ]) {
      expect(workspaceUrlOf(url)).toBeUndefined();
    }
  });
});
