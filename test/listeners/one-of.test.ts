import { describe, expect, it } from 'vitest';
import { exactlyOneOf } from '../../src/listeners/one-of.js';

describe('exactlyOneOf', () => {
  const pattern = exactlyOneOf(['approvals.approve', 'approvals.reject', 'a+b']);

  it('matches each id whole', () => {
    expect(pattern.test('approvals.approve')).toBe(true);
    expect(pattern.test('approvals.reject')).toBe(true);
    expect(pattern.test('a+b')).toBe(true);
  });

  it('matches nothing else: no prefix, suffix or regex meaning of a character', () => {
    expect(pattern.test('approvals.approve2')).toBe(false);
    expect(pattern.test('xapprovals.reject')).toBe(false);
    expect(pattern.test('approvalsXapprove')).toBe(false);
    expect(pattern.test('aab')).toBe(false);
  });

  it('refuses an empty list, which would match nothing or everything', () => {
    expect(() => exactlyOneOf([])).toThrow(/at least one id/);
  });
});
