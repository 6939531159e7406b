import { describe, expect, it } from 'vitest';
import { compileGlob } from '../../../src/approvals/policy/glob.js';

function matches(pattern: string, name: string): boolean {
  const compiled = compileGlob(pattern);
  if (!compiled.ok) throw new Error(compiled.error);
  return compiled.glob.test(name);
}

describe('compileGlob', () => {
  it('matches the whole name: a pattern is not a substring search', () => {
    expect(matches('restart_*', 'restart_service')).toBe(true);
    expect(matches('restart_*', 'force_restart_service')).toBe(false);
    expect(matches('restart', 'restart_service')).toBe(false);
  });

  it('lets * stand for any run of characters, including none', () => {
    expect(matches('*', '')).toBe(true);
    expect(matches('scale_*', 'scale_')).toBe(true);
    expect(matches('*_payment*', 'refund_payment_v2')).toBe(true);
  });

  it('lets ? stand for exactly one character', () => {
    expect(matches('db?', 'db1')).toBe(true);
    expect(matches('db?', 'db')).toBe(false);
    expect(matches('db?', 'db12')).toBe(false);
  });

  it('matches either alternative of {a,b}, nested too', () => {
    expect(matches('restart_{service,pod}', 'restart_pod')).toBe(true);
    expect(matches('restart_{service,pod}', 'restart_node')).toBe(false);
    expect(matches('{get,put}_{a,b{1,2}}', 'put_b2')).toBe(true);
  });

  it('is case-sensitive', () => {
    expect(matches('Restart_*', 'restart_service')).toBe(false);
  });

  it('takes regular expression characters literally', () => {
    expect(matches('a.b', 'a.b')).toBe(true);
    expect(matches('a.b', 'axb')).toBe(false);
    expect(matches('tool(1)+[x]-y', 'tool(1)+[x]-y')).toBe(true);
    expect(matches('lit\\*', 'lit*')).toBe(true);
    expect(matches('lit\\*', 'literal')).toBe(false);
  });

  it('says which patterns match every name', () => {
    const all = compileGlob('**');
    const some = compileGlob('*_x');
    expect(all.ok && all.glob.matchesEverything).toBe(true);
    expect(some.ok && some.glob.matchesEverything).toBe(false);
  });

  it('rejects unbalanced braces and empty patterns with a reason', () => {
    expect(compileGlob('restart_{a,b')).toEqual({
      ok: false,
      error: 'pattern "restart_{a,b" has a "{" without "}"',
    });
    expect(compileGlob('a}')).toMatchObject({ ok: false });
    expect(compileGlob('a\\')).toMatchObject({ ok: false });
    expect(compileGlob('')).toMatchObject({ ok: false });
  });
});
