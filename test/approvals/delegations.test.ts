import { describe, expect, it } from 'vitest';
import {
  actingFor,
  type Delegation,
  delegationProblem,
  standInFor,
  standIns,
} from '../../src/approvals/delegations.js';

const HOUR = 60 * 60 * 1000;
const NOW = 1_800_000_000_000;

function handOver(delegator: string, delegate: string, from = NOW - HOUR, until = NOW + HOUR) {
  return { delegator, delegate, startsAt: from, endsAt: until, setAt: from } satisfies Delegation;
}

describe('who decides for whom under hand-overs', () => {
  it('the delegate stands in for the delegator while the hand-over lasts, and not before or after', () => {
    const bob = handOver('BOB', 'CAROL', NOW + HOUR, NOW + 2 * HOUR);
    expect(actingFor('CAROL', [bob], NOW, 1)).toEqual([]);
    expect(actingFor('CAROL', [bob], NOW + HOUR, 1)).toEqual(['BOB']);
    expect(actingFor('CAROL', [bob], NOW + 2 * HOUR, 1)).toEqual([]);
    expect(standInFor('BOB', [bob], NOW + HOUR, 1)).toBe('CAROL');
    expect(standInFor('BOB', [bob], NOW + 2 * HOUR, 1)).toBeUndefined();
  });

  it('a chain reaches one hop by default, and further only as far as the setting says', () => {
    const chain = [handOver('BOB', 'CAROL'), handOver('CAROL', 'DAVE')];
    expect(actingFor('DAVE', chain, NOW, 1)).toEqual(['CAROL']);
    expect(actingFor('DAVE', chain, NOW, 2)).toEqual(['CAROL', 'BOB']);
    expect(standInFor('BOB', chain, NOW, 1)).toBe('CAROL');
    expect(standInFor('BOB', chain, NOW, 2)).toBe('DAVE');
    expect(standIns(chain, NOW, 1)).toEqual(
      new Map([
        ['BOB', 'CAROL'],
        ['CAROL', 'DAVE'],
      ]),
    );
  });

  it('a loop that got in anyway (two replicas at once) ends the walk instead of going round', () => {
    const loop = [handOver('BOB', 'CAROL'), handOver('CAROL', 'BOB')];
    expect(actingFor('CAROL', loop, NOW, 5)).toEqual(['BOB']);
    expect(standInFor('BOB', loop, NOW, 5)).toBe('CAROL');
  });
});

describe('a hand-over is refused with a reason on the field it is about', () => {
  const form = (delegate: string, startsAt = NOW, endsAt = NOW + HOUR) => ({
    delegator: 'BOB',
    delegate,
    startsAt,
    endsAt,
  });

  it('to oneself', () => {
    expect(delegationProblem(form('BOB'), [], NOW)).toEqual({
      field: 'delegate',
      message: expect.stringContaining('yourself'),
    });
  });

  it('an end in the past, not after the start, or more than 90 days away', () => {
    expect(delegationProblem(form('CAROL', NOW - 2 * HOUR, NOW - HOUR), [], NOW)?.message).toBe(
      'The end is in the past.',
    );
    expect(delegationProblem(form('CAROL', NOW + 2 * HOUR, NOW + HOUR), [], NOW)?.message).toBe(
      'The end must be after the start.',
    );
    expect(delegationProblem(form('CAROL', NOW, NOW + 91 * 24 * HOUR), [], NOW)?.field).toBe(
      'endsAt',
    );
    expect(delegationProblem(form('CAROL'), [], NOW)).toBeUndefined();
  });

  it('a loop (Bob→Carol while Carol→Bob), directly or through others, when their times overlap', () => {
    const carolToBob = handOver('CAROL', 'BOB', NOW, NOW + HOUR);
    expect(delegationProblem(form('CAROL'), [carolToBob], NOW)).toEqual({
      field: 'delegate',
      message: expect.stringContaining('loop'),
    });
    const carolToDaveToBob = [handOver('CAROL', 'DAVE'), handOver('DAVE', 'BOB')];
    expect(delegationProblem(form('CAROL'), carolToDaveToBob, NOW)?.message).toContain('loop');
    // Carol's hand-over ends before Bob's starts: no loop.
    expect(
      delegationProblem(form('CAROL', NOW + HOUR, NOW + 2 * HOUR), [carolToBob], NOW),
    ).toBeUndefined();
  });

  it("Bob's own earlier hand-over is replaced, not counted as a loop", () => {
    expect(delegationProblem(form('CAROL'), [handOver('BOB', 'DAVE')], NOW)).toBeUndefined();
  });
});
