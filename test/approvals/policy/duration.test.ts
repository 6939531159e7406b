import { describe, expect, it } from 'vitest';
import { parseDuration } from '../../../src/approvals/policy/duration.js';

describe('parseDuration', () => {
  it.each([
    ['45s', 45_000],
    ['30m', 1_800_000],
    ['2h', 7_200_000],
    ['7d', 604_800_000],
    ['1h30m', 5_400_000],
    ['1d12h', 129_600_000],
  ])('reads %s as %d ms', (text, ms) => {
    expect(parseDuration(text)).toEqual({ ok: true, ms });
  });

  it.each(['10x', '-5m', '1.5h', '30', '', ' 5m', '5 m', '5M', '30m1h', 'm'])(
    'rejects %j',
    (text) => {
      expect(parseDuration(text)).toEqual({
        ok: false,
        error: 'expected a duration such as 45s, 30m, 2h, 7d or 1h30m',
      });
    },
  );

  it('rejects a zero duration, which would expire every gate at once', () => {
    expect(parseDuration('0s')).toEqual({
      ok: false,
      error: 'expected a duration longer than zero',
    });
    expect(parseDuration('0d0h')).toMatchObject({ ok: false });
  });

  it('rejects more than a year', () => {
    expect(parseDuration('365d')).toMatchObject({ ok: true });
    expect(parseDuration('366d')).toEqual({
      ok: false,
      error: 'expected a duration of at most 365d',
    });
  });
});
