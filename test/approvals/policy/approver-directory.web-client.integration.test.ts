import { LogLevel, webApi } from '@slack/bolt';
import nock from 'nock';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  ApproverDirectoryError,
  authorize,
  SlackApproverDirectory,
} from '../../../src/approvals/policy.js';

/** The real Web API client, with Slack faked at its HTTP boundary. */
const SLACK = 'https://slack.com';

function webClient(): webApi.WebClient {
  return new webApi.WebClient('xoxb-test-token', {
    retryConfig: { retries: 0 },
    logLevel: LogLevel.ERROR,
  });
}

describe('SlackApproverDirectory over the real WebClient', () => {
  beforeAll(() => {
    nock.disableNetConnect();
  });
  afterEach(() => {
    nock.cleanAll();
  });
  afterAll(() => {
    nock.enableNetConnect();
  });

  it('reads a user group and the pages of a channel through the Web API', async () => {
    const slack = nock(SLACK, { reqheaders: { authorization: 'Bearer xoxb-test-token' } })
      .post('/api/usergroups.users.list', { usergroup: 'S0ONCALL' })
      .reply(200, { ok: true, users: ['U0BOB', 'U0CAROL'] })
      .post('/api/conversations.members', { channel: 'C0CARD', limit: '200' })
      .reply(200, {
        ok: true,
        members: ['U0DAVE'],
        response_metadata: { next_cursor: 'dXNlcjpVMEVSSU4=' },
      })
      .post('/api/conversations.members', {
        channel: 'C0CARD',
        limit: '200',
        cursor: 'dXNlcjpVMEVSSU4=',
      })
      .reply(200, { ok: true, members: ['U0ERIN'], response_metadata: { next_cursor: '' } });

    const directory = new SlackApproverDirectory(webClient());
    expect(await directory.usergroupMembers('S0ONCALL')).toEqual(['U0BOB', 'U0CAROL']);
    expect(await directory.channelMembers('C0CARD')).toEqual(['U0DAVE', 'U0ERIN']);
    expect(slack.isDone()).toBe(true);
  });

  it('turns a Slack error into ApproverDirectoryError, so a click is refused with "try again"', async () => {
    nock(SLACK)
      .post('/api/usergroups.users.list')
      .reply(200, { ok: false, error: 'missing_scope', needed: 'usergroups:read' });

    const directory = new SlackApproverDirectory(webClient());
    const outcome = authorize(
      {
        voter: 'U0BOB',
        requester: 'U0ALICE',
        cardChannelId: 'C0CARD',
        policy: {
          rule: 'defaults',
          approvers: [{ kind: 'usergroup', id: 'S0ONCALL' }],
          quorum: 1,
          selfApproval: false,
          onExpiry: 'reject',
          reasonRequired: false,
        },
      },
      directory,
    );
    await expect(outcome).rejects.toBeInstanceOf(ApproverDirectoryError);
    await expect(outcome).rejects.toMatchObject({ slackError: 'missing_scope' });
  });

  it('turns an HTTP failure into ApproverDirectoryError too', async () => {
    nock(SLACK).post('/api/conversations.members').reply(503, 'upstream unavailable');
    const directory = new SlackApproverDirectory(webClient());
    await expect(directory.channelMembers('C0CARD')).rejects.toMatchObject({
      name: 'ApproverDirectoryError',
      lookup: { kind: 'channel', id: 'C0CARD' },
      slackError: 'slack_webapi_http_error',
    });
  });
});
