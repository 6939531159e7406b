import { beforeEach, describe, expect, it } from 'vitest';
import {
  type ApproverDirectory,
  ApproverDirectoryError,
  authorize,
  isEscalated,
  SlackApproverDirectory,
} from '../../../src/approvals/policy.js';
import type { Approver, GatePolicy } from '../../../src/approvals/records.js';
import { FakeDirectoryClient } from './fake-directory-client.js';

function gatePolicy(approvers: Approver[], overrides: Partial<GatePolicy> = {}): GatePolicy {
  return {
    rule: 'rules[0]',
    approvers,
    quorum: 1,
    selfApproval: false,
    onExpiry: 'reject',
    reasonRequired: false,
    ...overrides,
  };
}

const ALICE = { kind: 'user', id: 'U0ALICE' } as const;
const ONCALL = { kind: 'usergroup', id: 'S0ONCALL' } as const;
const CHANNEL = { kind: 'channel' } as const;

/** A directory that must not be asked: user approvers need no Slack call. */
const unreachableDirectory: ApproverDirectory = {
  usergroupMembers: () => Promise.reject(new Error('no lookup expected')),
  channelMembers: () => Promise.reject(new Error('no lookup expected')),
};

describe('authorize', () => {
  let client: FakeDirectoryClient;
  let directory: SlackApproverDirectory;

  beforeEach(() => {
    client = new FakeDirectoryClient();
    client.groups.set('S0ONCALL', ['U0BOB', 'U0REQUESTER']);
    client.channels.set('C0CARD', [['U0CAROL'], ['U0DAVE']]);
    directory = new SlackApproverDirectory(client);
  });

  const check = (voter: string, policy: GatePolicy, dir: ApproverDirectory = directory) =>
    authorize({ voter, requester: 'U0REQUESTER', policy, cardChannelId: 'C0CARD' }, dir);

  it('lets a listed user approve without asking Slack', async () => {
    expect(await check('U0ALICE', gatePolicy([ALICE, ONCALL]), unreachableDirectory)).toEqual({
      ok: true,
    });
  });

  it('refuses someone who is not an approver, and says who is', async () => {
    expect(await check('U0MALLORY', gatePolicy([ALICE, ONCALL, CHANNEL]))).toEqual({
      ok: false,
      reason: 'not_approver',
      approvers: [ALICE, ONCALL, CHANNEL],
    });
  });

  it('refuses the person who started the run even when they are a listed approver', async () => {
    const requesterListed = gatePolicy([{ kind: 'user', id: 'U0REQUESTER' }, ONCALL]);
    expect(await check('U0REQUESTER', requesterListed)).toEqual({
      ok: false,
      reason: 'self_approval',
      approvers: requesterListed.approvers,
    });
  });

  it('lets the person who started the run approve when selfApproval is true', async () => {
    const policy = gatePolicy([ONCALL], { selfApproval: true });
    expect(await check('U0REQUESTER', policy)).toEqual({ ok: true });
  });

  it('refuses everyone when the policy names no approvers', async () => {
    for (const voter of ['U0ALICE', 'U0REQUESTER']) {
      expect(await check(voter, gatePolicy([]), unreachableDirectory)).toEqual({
        ok: false,
        reason: 'nobody_may_approve',
        approvers: [],
      });
    }
  });

  it('lets a member of an approver user group approve', async () => {
    expect(await check('U0BOB', gatePolicy([ONCALL]))).toEqual({ ok: true });
    expect(client.calls).toEqual([
      { method: 'usergroups.users.list', args: { usergroup: 'S0ONCALL' } },
    ]);
  });

  it('lets members of the card channel approve when the approvers are "channel", on any page', async () => {
    expect(await check('U0DAVE', gatePolicy([CHANNEL]))).toEqual({ ok: true });
    expect(client.calls.map((call) => call.args.channel)).toEqual(['C0CARD', 'C0CARD']);
    expect(await check('U0BOB', gatePolicy([CHANNEL]))).toMatchObject({
      ok: false,
      reason: 'not_approver',
    });
  });

  it('fails closed when Slack cannot be asked: a typed error, never an approval', async () => {
    client.failure = { thrown: new Error('connect ECONNREFUSED') };
    await expect(check('U0BOB', gatePolicy([ONCALL]))).rejects.toBeInstanceOf(
      ApproverDirectoryError,
    );
    await expect(check('U0CAROL', gatePolicy([CHANNEL]))).rejects.toMatchObject({
      lookup: { kind: 'channel', id: 'C0CARD' },
    });
  });

  it('turns any other failure of a directory into the same typed error', async () => {
    const broken: ApproverDirectory = {
      usergroupMembers: () => Promise.reject(new Error('redis down')),
      channelMembers: () => Promise.reject(new Error('redis down')),
    };
    await expect(check('U0BOB', gatePolicy([ONCALL]), broken)).rejects.toMatchObject({
      name: 'ApproverDirectoryError',
      lookup: { kind: 'usergroup', id: 'S0ONCALL' },
    });
  });

  it('still admits a member of one group when another group cannot be looked up', async () => {
    client.groups.set('S0SRE', ['U0ERIN']);
    const policy = gatePolicy([
      { kind: 'usergroup', id: 'S0GONE' },
      { kind: 'usergroup', id: 'S0SRE' },
    ]);
    expect(await check('U0ERIN', policy)).toEqual({ ok: true });
    await expect(check('U0MALLORY', policy)).rejects.toMatchObject({
      lookup: { id: 'S0GONE' },
      slackError: 'no_such_subteam',
    });
  });

  it('refuses self-approval before asking Slack about groups', async () => {
    expect(await check('U0REQUESTER', gatePolicy([ONCALL]), unreachableDirectory)).toMatchObject({
      reason: 'self_approval',
    });
  });

  describe('escalation', () => {
    const escalating = gatePolicy([ALICE], { escalateAfterMs: 600_000, escalateTo: [ONCALL] });
    const escalatedCheck = (voter: string, escalated: boolean) =>
      authorize(
        { voter, requester: 'U0REQUESTER', policy: escalating, cardChannelId: 'C0CARD', escalated },
        directory,
      );

    it('refuses the escalateTo group before the gate is escalated', async () => {
      expect(await escalatedCheck('U0BOB', false)).toEqual({
        ok: false,
        reason: 'not_approver',
        approvers: [ALICE],
      });
    });

    it('lets the escalateTo group approve once the gate is escalated, the approvers still too', async () => {
      expect(await escalatedCheck('U0BOB', true)).toEqual({ ok: true });
      expect(await escalatedCheck('U0ALICE', true)).toEqual({ ok: true });
    });

    it('escalates from escalateAfter on, exactly, and never without an escalation', () => {
      expect(isEscalated(escalating, 1_000, 600_999)).toBe(false);
      expect(isEscalated(escalating, 1_000, 601_000)).toBe(true);
      expect(isEscalated(gatePolicy([ALICE]), 0, Number.MAX_SAFE_INTEGER)).toBe(false);
    });
  });
});
