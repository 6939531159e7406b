import { beforeEach, describe, expect, it } from 'vitest';
import { ApproverDirectoryError, SlackApproverDirectory } from '../../../src/approvals/policy.js';
import { FakeDirectoryClient } from './fake-directory-client.js';

const GROUP_LIST = 'usergroups.users.list';
const MEMBERS = 'conversations.members';

describe('SlackApproverDirectory: user groups', () => {
  let client: FakeDirectoryClient;
  let now: number;
  let directory: SlackApproverDirectory;

  beforeEach(() => {
    client = new FakeDirectoryClient();
    client.groups.set('S0ONCALL', ['U0ALICE', 'U0BOB']);
    client.groups.set('S0SRE', ['U0CAROL']);
    now = 1_000_000;
    directory = new SlackApproverDirectory(client, { ttlMs: 60_000, now: () => now });
  });

  it('lists a group with usergroups.users.list', async () => {
    expect(await directory.usergroupMembers('S0ONCALL')).toEqual(['U0ALICE', 'U0BOB']);
    expect(client.calls).toEqual([{ method: GROUP_LIST, args: { usergroup: 'S0ONCALL' } }]);
  });

  it('answers repeated lookups from its cache: one call per group within the TTL', async () => {
    await directory.usergroupMembers('S0ONCALL');
    now += 59_999;
    await directory.usergroupMembers('S0ONCALL');
    await directory.usergroupMembers('S0SRE');
    await directory.usergroupMembers('S0SRE');
    expect(client.callsTo(GROUP_LIST)).toBe(2);
  });

  it('by default, sees an approver removed from a group within 5 s', async () => {
    const fresh = new SlackApproverDirectory(client, { now: () => now });
    expect(await fresh.usergroupMembers('S0ONCALL')).toContain('U0BOB');
    client.groups.set('S0ONCALL', ['U0ALICE']);
    now += 5_001;
    expect(await fresh.usergroupMembers('S0ONCALL')).not.toContain('U0BOB');
  });

  it('shares one call among concurrent lookups of the same group', async () => {
    client.hold();
    const lookups = Array.from({ length: 10 }, () => directory.usergroupMembers('S0ONCALL'));
    client.release();
    const results = await Promise.all(lookups);
    expect(results.every((members) => members.includes('U0ALICE'))).toBe(true);
    expect(client.callsTo(GROUP_LIST)).toBe(1);
  });

  it('looks a group up again once the TTL has passed, and sees membership changes', async () => {
    await directory.usergroupMembers('S0ONCALL');
    client.groups.set('S0ONCALL', ['U0DAVE']);
    now += 60_000;
    expect(await directory.usergroupMembers('S0ONCALL')).toEqual(['U0DAVE']);
    expect(client.callsTo(GROUP_LIST)).toBe(2);
  });

  it('forgets the oldest group when it holds maxEntries', async () => {
    directory = new SlackApproverDirectory(client, { now: () => now, maxEntries: 1 });
    await directory.usergroupMembers('S0ONCALL');
    await directory.usergroupMembers('S0SRE');
    await directory.usergroupMembers('S0SRE');
    await directory.usergroupMembers('S0ONCALL');
    expect(client.callsTo(GROUP_LIST)).toBe(3);
  });

  it('throws a typed error naming the group and Slack error, and does not cache the failure', async () => {
    client.failure = { response: { ok: false, error: 'missing_scope' } };
    const error = await directory.usergroupMembers('S0ONCALL').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApproverDirectoryError);
    expect(error).toMatchObject({
      lookup: { kind: 'usergroup', id: 'S0ONCALL' },
      slackError: 'missing_scope',
      message: 'Could not list the members of user group S0ONCALL (missing_scope)',
    });

    client.failure = undefined;
    expect(await directory.usergroupMembers('S0ONCALL')).toEqual(['U0ALICE', 'U0BOB']);
    expect(client.callsTo(GROUP_LIST)).toBe(2);
  });

  it('fails every concurrent caller of a failed lookup', async () => {
    client.failure = { thrown: new Error('socket hang up') };
    client.hold();
    const lookups = [
      directory.usergroupMembers('S0ONCALL'),
      directory.usergroupMembers('S0ONCALL'),
    ];
    client.release();
    const outcomes = await Promise.allSettled(lookups);
    expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected']);
    expect(client.callsTo(GROUP_LIST)).toBe(1);
  });

  it('reads the Slack error code from a Web API client exception', async () => {
    client.failure = {
      thrown: Object.assign(new Error('An API error occurred: ratelimited'), {
        code: 'slack_webapi_platform_error',
        data: { ok: false, error: 'ratelimited' },
      }),
    };
    await expect(directory.usergroupMembers('S0ONCALL')).rejects.toMatchObject({
      name: 'ApproverDirectoryError',
      slackError: 'ratelimited',
    });
  });

  it('refuses a response that does not have the expected shape', async () => {
    client.failure = { response: { ok: true, users: 'U0ALICE' } };
    await expect(directory.usergroupMembers('S0ONCALL')).rejects.toMatchObject({
      slackError: 'unexpected_response',
    });
  });
});

describe('SlackApproverDirectory: channel members', () => {
  let client: FakeDirectoryClient;
  let now: number;

  beforeEach(() => {
    client = new FakeDirectoryClient();
    now = 0;
  });

  it('follows next_cursor through every page, then caches the whole list', async () => {
    client.channels.set('C0OPS', [['U0A', 'U0B'], ['U0C'], ['U0D']]);
    const directory = new SlackApproverDirectory(client, { now: () => now, pageSize: 2 });

    expect(await directory.channelMembers('C0OPS')).toEqual(['U0A', 'U0B', 'U0C', 'U0D']);
    expect(client.calls.map((call) => call.args)).toEqual([
      { channel: 'C0OPS', limit: 2 },
      { channel: 'C0OPS', limit: 2, cursor: 'page-1' },
      { channel: 'C0OPS', limit: 2, cursor: 'page-2' },
    ]);
    await directory.channelMembers('C0OPS');
    expect(client.callsTo(MEMBERS)).toBe(3);
  });

  it('fails closed on a channel larger than maxPages rather than judging on part of it', async () => {
    client.channels.set('C0BIG', [['U0A'], ['U0B'], ['U0C']]);
    const directory = new SlackApproverDirectory(client, { maxPages: 2 });
    await expect(directory.channelMembers('C0BIG')).rejects.toMatchObject({
      lookup: { kind: 'channel', id: 'C0BIG' },
      slackError: 'more_than_2_pages',
    });
  });

  it('stops on a cursor that repeats instead of looping forever', async () => {
    client.failure = {
      response: { ok: true, members: ['U0A'], response_metadata: { next_cursor: 'same' } },
    };
    const directory = new SlackApproverDirectory(client);
    await expect(directory.channelMembers('C0OPS')).rejects.toMatchObject({
      slackError: 'repeated_cursor',
    });
    expect(client.callsTo(MEMBERS)).toBe(2);
  });

  it('throws a typed error when the bot cannot see the channel', async () => {
    const directory = new SlackApproverDirectory(client);
    await expect(directory.channelMembers('G0PRIVATE')).rejects.toThrow(
      new ApproverDirectoryError({ kind: 'channel', id: 'G0PRIVATE' }, 'channel_not_found'),
    );
  });
});
