import { describe, expect, it } from 'vitest';
import { EXPIRE_GATE } from '../../../src/approvals/store/scripts/expire-gate.lua.js';
import {
  arg,
  luaPrologue,
  NO_SEAL_OFFER,
  PauseScript,
} from '../../../src/approvals/store/scripts/pause-script.js';
import { VOTE, VOTE_ALL } from '../../../src/approvals/store/scripts/vote.lua.js';

const decision = { by: 'U1', at: 5 };

describe('a per-pause script defined once', () => {
  it('writes ARGV in the order its arguments are declared, JSON as text and none as empty', () => {
    const argv = VOTE.encode({
      now: 5,
      gateIndex: 2,
      voter: 'U1',
      choice: 'approve',
      vote: { voter: 'U1', choice: 'approve', at: 5 },
      payload: undefined,
      decision,
      expiry: { by: 'system', at: 5 },
      retentionMs: 60_000,
      detail: 'approve',
      checkedGatesVersion: 7,
      claimOwner: 'replica-a:1',
      claimLeaseMs: 30_000,
      ...NO_SEAL_OFFER,
    });
    expect(argv).toEqual([
      5,
      2,
      'U1',
      'approve',
      '{"voter":"U1","choice":"approve","at":5}',
      '',
      '{"by":"U1","at":5}',
      '{"by":"system","at":5}',
      60_000,
      'approve',
      7,
      'replica-a:1',
      30_000,
      '',
      '',
      '',
    ]);
  });

  it('reads each argument into the Lua table `args` under its TypeScript name, at its position', () => {
    expect(luaPrologue(EXPIRE_GATE.spec)).toBe(
      [
        'local args = {',
        '  now = tonumber(ARGV[1]),',
        '  gateIndex = tonumber(ARGV[2]),',
        '  decision = ARGV[3],',
        '  retentionMs = tonumber(ARGV[4]),',
        '  sealAfter = ARGV[5],',
        '  sealHead = ARGV[6],',
        '  sealDigest = ARGV[7],',
        '}',
      ].join('\n'),
    );
    expect(EXPIRE_GATE.lua.source).toContain(luaPrologue(EXPIRE_GATE.spec));
  });

  it('passes a trailing list as the rest of ARGV', () => {
    const argv = VOTE_ALL.encode({
      now: 5,
      voter: 'U1',
      choice: 'reject',
      vote: { voter: 'U1', choice: 'reject', at: 5 },
      decision,
      expiry: decision,
      retentionMs: 1,
      detail: '',
      gateIndexes: [3, 1],
    });
    expect(argv.slice(-2)).toEqual([3, 1]);
    expect(luaPrologue(VOTE_ALL.spec)).toContain('for i = 9, #ARGV do');
  });

  it('refuses a definition whose list argument is not last, or whose first argument is not the clock', () => {
    expect(() => luaPrologue({ now: arg.number, rest: arg.numbers, after: arg.text() })).toThrow(
      'argument rest takes the rest of ARGV but is not the last',
    );
    const body = { body: 'return 1' };
    const clockless = { at: arg.text(), now: arg.number };
    expect(() => new PauseScript('x', clockless, body, () => undefined)).toThrow(
      'script x: its first argument is not now',
    );
  });

  it('makes an argument missing or of the wrong type a type error (checked by tsc)', () => {
    const args = { now: 1, gateIndex: 1, decision, retentionMs: 1, ...NO_SEAL_OFFER };
    expect(EXPIRE_GATE.encode(args)).toHaveLength(7);
    // @ts-expect-error retentionMs is missing
    expect(() => EXPIRE_GATE.encode({ now: 1, gateIndex: 1, decision, ...NO_SEAL_OFFER })).toThrow(
      'script expire_gate: argument retentionMs is missing',
    );
    // @ts-expect-error gateIndex is a number, not a call id
    EXPIRE_GATE.encode({ ...args, gateIndex: 'call-1' });
  });
});
