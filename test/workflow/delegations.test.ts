import { describe, expect, it } from 'vitest';
import { MemoryDelegationStore } from '../../src/approvals/delegations.js';
import { Delegations } from '../../src/workflow/delegations.js';
import { workflowTestDefaults } from '../support/workflow.js';

/**
 * Setting, ending and sweeping hand-overs redraws what shows them: the cards that name the
 * delegator (found by the pending index of their user id) and both people's Homes.
 */
const HOUR = 3_600_000;
const T0 = 1_800_000_000_000;

function world() {
  let now = T0;
  const redrawn: string[] = [];
  const homes: string[] = [];
  const store = new MemoryDelegationStore();
  const delegations = new Delegations({
    store,
    pending: {
      listPending: async (index) =>
        index.kind === 'user' && index.id === 'UBOB'
          ? [
              { pauseId: 'p1', callId: 'c1' },
              { pauseId: 'p1', callId: 'c2' },
            ]
          : [],
    },
    cards: { pauseChanged: (pauseId) => redrawn.push(pauseId) },
    homes: {
      refresh: (user) => homes.push(user),
      peopleChanged: (users) => homes.push(...users),
    },
    clock: () => now,
    log: workflowTestDefaults.log,
  });
  const settle = () => new Promise((resolve) => setImmediate(resolve));
  return {
    delegations,
    store,
    redrawn,
    homes,
    settle,
    advance: (ms: number) => {
      now += ms;
    },
  };
}

describe('Delegations', () => {
  it('setting one redraws the delegator’s cards (once per pause) and both Homes; a refused one changes nothing', async () => {
    const w = world();
    const refused = await w.delegations.set('UBOB', {
      delegate: 'UBOB',
      startsAt: T0,
      endsAt: T0 + HOUR,
    });
    expect(refused).toMatchObject({ kind: 'invalid', problem: { field: 'delegate' } });
    expect(await w.store.list(T0)).toEqual([]);

    const set = await w.delegations.set('UBOB', {
      delegate: 'UCAROL',
      startsAt: T0 - 30_000,
      endsAt: T0 + HOUR,
    });
    // A start picked a little in the past means now.
    expect(set).toMatchObject({ kind: 'set', delegation: { startsAt: T0 } });
    await w.settle();
    expect(w.redrawn).toEqual(['p1']);
    expect(w.homes.sort()).toEqual(['UBOB', 'UCAROL']);
  });

  it('a sweep redraws a hand-over’s cards when it starts and when it ends, and not in between', async () => {
    const w = world();
    await w.delegations.set('UBOB', {
      delegate: 'UCAROL',
      startsAt: T0 + HOUR,
      endsAt: T0 + 2 * HOUR,
    });
    await w.settle();
    w.redrawn.length = 0;
    await w.delegations.sweep();
    w.advance(HOUR);
    await w.delegations.sweep();
    await w.settle();
    expect(w.redrawn).toEqual(['p1']);
    w.advance(HOUR / 2);
    await w.delegations.sweep();
    await w.settle();
    expect(w.redrawn).toEqual(['p1']);
    w.advance(HOUR / 2);
    await w.delegations.sweep();
    await w.settle();
    expect(w.redrawn).toEqual(['p1', 'p1']);
  });
});
