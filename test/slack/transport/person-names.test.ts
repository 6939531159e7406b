import { describe, expect, it } from 'vitest';
import {
  displayNameWithin,
  SlackPersonNames,
  type UsersInfoClient,
} from '../../../src/slack/transport/person-names.js';

/** A `users.info` stand-in that answers from a table and counts its calls. */
function usersInfo(answers: Record<string, unknown>): UsersInfoClient & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    users: {
      info: async ({ user }) => {
        calls.push(user);
        const answer = answers[user];
        if (answer instanceof Error) throw answer;
        return answer ?? { ok: false, error: 'user_not_found' };
      },
    },
  };
}

describe('SlackPersonNames', () => {
  it('prefers the display name, then the real name, then the handle', async () => {
    const client = usersInfo({
      U1: {
        ok: true,
        user: { name: 'bob', real_name: 'Bob B', profile: { display_name: 'Bobby' } },
      },
      U2: {
        ok: true,
        user: { name: 'carol', profile: { display_name: ' ', real_name: 'Carol C' } },
      },
      U3: { ok: true, user: { name: 'dan' } },
    });
    const names = new SlackPersonNames(client);
    expect(await names.nameOf('U1')).toBe('Bobby');
    expect(await names.nameOf('U2')).toBe('Carol C');
    expect(await names.nameOf('U3')).toBe('dan');
  });

  it('remembers a name for its time to live, and has none when Slack cannot say', async () => {
    let now = 0;
    const client = usersInfo({
      U1: { ok: true, user: { name: 'bob' } },
      U9: new Error('connect ECONNREFUSED'),
    });
    const names = new SlackPersonNames(client, { ttlMs: 1_000, now: () => now });
    await names.nameOf('U1');
    await names.nameOf('U1');
    expect(client.calls).toEqual(['U1']);
    now = 1_000;
    await names.nameOf('U1');
    expect(client.calls).toEqual(['U1', 'U1']);
    expect(await names.nameOf('U9')).toBeUndefined();
    expect(await names.nameOf('U404')).toBeUndefined();
  });
});

describe('a decider’s name for the audit', () => {
  it('is the name when Slack answers in time, else nothing: a decision never waits on it', async () => {
    const quick = { nameOf: async () => 'Bob Brennan' };
    expect(await displayNameWithin(quick, 'U1', 50)).toBe('Bob Brennan');
    // A lookup that never ends: the decision goes on without the name.
    const hung = { nameOf: () => new Promise<string>(() => {}) };
    expect(await displayNameWithin(hung, 'U1', 20)).toBeUndefined();
    const broken = { nameOf: () => Promise.reject(new Error('ratelimited')) };
    expect(await displayNameWithin(broken, 'U1', 50)).toBeUndefined();
    expect(await displayNameWithin(undefined, 'U1', 50)).toBeUndefined();
  });
});
