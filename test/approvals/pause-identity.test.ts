import { describe, expect, it } from 'vitest';
import { type IdentityCall, originOfPause, pauseIdFor } from '../../src/approvals/records.js';

const adk = { appName: 'bank', userId: 'u1', sessionId: 's1', invocationId: 'inv-1' };
const transfer: IdentityCall = {
  confirmationCallId: 'call_1',
  originalCall: { name: 'transfer_money', args: { to: 'acct-9', amount: 500 } },
};

describe('a pause is identified by its origin, its ADK coordinates, its invocation and its calls', () => {
  it('the same pause recorded again (a retried stream or post) has the same id', () => {
    const again = {
      ...transfer,
      // Key order is not identity: the arguments are compared as canonical JSON.
      originalCall: { name: 'transfer_money', args: { amount: 500, to: 'acct-9' } },
    };
    expect(pauseIdFor('api:kA', adk, [again])).toBe(pauseIdFor('api:kA', adk, [transfer]));
  });

  it('a call id used again for another tool is another pause', () => {
    const deleteAccount = {
      ...transfer,
      originalCall: { name: 'delete_account', args: { to: 'acct-9', amount: 500 } },
    };
    expect(pauseIdFor('slack', adk, [deleteAccount])).not.toBe(
      pauseIdFor('slack', adk, [transfer]),
    );
  });

  it('a call id used again with other arguments is another pause', () => {
    const more = {
      ...transfer,
      originalCall: { ...transfer.originalCall, args: { amount: 5000 } },
    };
    expect(pauseIdFor('slack', adk, [more])).not.toBe(pauseIdFor('slack', adk, [transfer]));
  });

  it('a call id used again by a later invocation is another pause', () => {
    const later = { ...adk, invocationId: 'inv-2' };
    expect(pauseIdFor('slack', later, [transfer])).not.toBe(pauseIdFor('slack', adk, [transfer]));
    const perCall = { ...transfer, invocationId: 'inv-2' };
    expect(pauseIdFor('slack', adk, [perCall])).not.toBe(pauseIdFor('slack', adk, [transfer]));
  });

  it('another key, or Slack, posting the same coordinates and call gets a pause of its own', () => {
    const ids = new Set(
      (['api:kA', 'api:kC', 'slack'] as const).map((origin) => pauseIdFor(origin, adk, [transfer])),
    );
    expect(ids.size).toBe(3);
  });

  it('the order of the gates does not change the id', () => {
    const second = { ...transfer, confirmationCallId: 'call_2' };
    expect(pauseIdFor('slack', adk, [second, transfer])).toBe(
      pauseIdFor('slack', adk, [transfer, second]),
    );
  });

  it('a pause posted through the API belongs to its key; any other, to Slack', () => {
    const external = {
      keyName: 'runbooks',
      resume: { mode: 'poll' as const },
    };
    expect(originOfPause({ external })).toBe('api:runbooks');
    expect(originOfPause({})).toBe('slack');
  });
});
