import { RE2JS } from 're2js';
import { describe, expect, it } from 'vitest';
import { compileCondition } from '../../../src/approvals/policy/condition.js';
import { CONDITION_LIMITS } from '../../../src/approvals/policy/condition-limits.js';
import { sizeAtMost } from '../../../src/approvals/policy/condition-regex.js';
import { evaluatePolicy, type PolicyCall, parsePolicy } from '../../../src/approvals/policy.js';

/**
 * No condition can hold the event loop: regexes run on RE2 (linear time), an expression whose
 * worst case is over the budget is refused at load naming its line, and a call whose values are
 * over the size bounds is "could not be evaluated" (a person is asked, told why) before anything
 * of the condition runs.
 */

function policyWith(when: string, decision = 'allow') {
  return parsePolicy(
    [
      'defaults:',
      '  approvers: [U0BOB]',
      'rules:',
      '  - name: guarded',
      '    match: { app: ops }',
      `    when: ${when}`,
      `    decision: ${decision}`,
      '    reason: by the policy',
      '',
    ].join('\n'),
    'policy.yml',
  );
}

function loaded(when: string, decision = 'allow') {
  const parsed = policyWith(when, decision);
  if (!parsed.ok) throw new Error(parsed.errors.join('\n'));
  return parsed.policy;
}

/** The errors of a file that must not load. */
function refused(when: string): string[] {
  const parsed = policyWith(when);
  if (parsed.ok) throw new Error(`loaded: ${when}`);
  return parsed.errors;
}

function call(args: Record<string, unknown>): PolicyCall {
  return { app: 'ops', tool: 'run', args, source: 'api', now: new Date('2026-11-25T12:00:00Z') };
}

describe('the cost bound, checked at load', () => {
  it('refuses four nested all() over the call lists, naming the line, the estimate, the budget and why', () => {
    const parsed = policyWith(
      'args.a.all(w, args.b.all(x, args.c.all(y, args.d.all(z, w + x + y + z > 0))))',
    );
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.errors).toHaveLength(1);
    expect(parsed.errors[0]).toMatch(
      /^policy\.yml:6:11 rules\[0\]\.when: too costly: up to [\d.×]*10\^1\d steps, budget 10\^5 \(4 nested all\(\) over lists of up to 1,000 entries each\)$/,
    );
  });

  it('names a regex inside a comprehension as what is expensive', () => {
    expect(refused('args.items.exists(i, i.sku.matches("^X"))')[0]).toContain(
      'matches() with a pattern of 4 RE2 instructions on a string of up to 1,000 characters, inside exists() over lists of up to 1,000 entries',
    );
  });

  it('counts a time zone conversion as the 0.1-0.2 ms it takes: not once per entry of a list', () => {
    expect(refused('args.items.all(i, now.getHours("Europe/Paris") >= 9)')[0]).toContain(
      '(getHours() with a time zone, inside all() over lists of up to 1,000 entries)',
    );
  });

  it('accepts the conditions people write, each well within the budget', () => {
    for (const when of [
      'has(args.amount) && args.amount > 1000',
      'args.env in ["production", "prod"]',
      'tool.startsWith("delete_") && args.env != "staging"',
      'args.email.matches("^[^@]+@example\\\\.com$")',
      'args.recipients.all(r, r.endsWith("@example.com"))',
      'args.tags.exists(t, t in ["prod", "production"])',
      'size(args.ids) > 50',
      'now.getHours("Europe/Paris") >= 8 && now.getHours("Europe/Paris") < 18',
      'args.items.all(x, [1, 2].exists(y, x != "" && y > 0))',
    ]) {
      const compiled = compileCondition(when);
      expect(compiled.ok ? compiled.condition.cost : compiled.error).toBeLessThanOrEqual(
        CONDITION_LIMITS.maxCost,
      );
    }
  });
});

describe('regular expressions run on RE2', () => {
  it('refuses a backreference at load, naming the line and why', () => {
    expect(refused('args.s.matches("(a)\\\\1")')).toEqual([
      'policy.yml:6:11 rules[0].when: "(a)\\\\1" is not an RE2 pattern: invalid escape sequence: `\\1` (RE2 syntax: no backreferences, no lookaround)',
    ]);
  });

  it('refuses a lookahead at load, naming the line and why', () => {
    expect(refused('args.s.matches("^(?!admin)")')[0]).toMatch(
      /^policy\.yml:6:11 rules\[0\]\.when: "\^\(\?!admin\)" is not an RE2 pattern: invalid or unsupported Perl syntax: `\(\?!` \(RE2 syntax/,
    );
  });

  it('^(a+)+$ loads and answers at once on "a"×30 + "!" (backtracking took 24–40 s)', () => {
    const policy = loaded('args.s.matches("^(a+)+$")', 'deny');
    const hostile = evaluatePolicy(policy, call({ s: `${'a'.repeat(30)}!` }));
    expect(hostile.decision).toBe('ask');
    expect(hostile.rule.index).toBeNull();
    const matching = evaluatePolicy(policy, call({ s: 'a'.repeat(30) }));
    expect(matching).toMatchObject({ decision: 'deny', condition: { value: true } });
  });

  it('(a|aa)*c loads and answers at once on a long run of a (backtracking took 12 s)', () => {
    const policy = loaded('args.s.matches("^(a|aa)*c$")', 'deny');
    expect(evaluatePolicy(policy, call({ s: `${'a'.repeat(40)}!` })).decision).toBe('ask');
    expect(evaluatePolicy(policy, call({ s: `${'a'.repeat(40)}c` })).decision).toBe('deny');
  });

  it('a matches() inside a comprehension, a bind or a branch runs on RE2 as well', () => {
    const hostile = call({ s: `${'a'.repeat(30)}!`, t: 'x' });
    for (const when of [
      '[args.s, args.t].exists(x, x.matches("^(a+)+$"))',
      'cel.bind(v, args.s, v.matches("^(a+)+$"))',
      'args.t == "x" ? args.s.matches("^(a+)+$") : false',
    ]) {
      // Quoted: YAML would read `[` and `: ` as its own syntax.
      const verdict = evaluatePolicy(loaded(`'${when}'`, 'deny'), hostile);
      expect(verdict.decision).toBe('ask');
      expect(verdict.rule.index).toBeNull();
    }
  });

  it('a pattern from the call runs on RE2 too, and one too large for its bound is refused', () => {
    const policy = loaded('args.s.matches(args.p)', 'deny');
    expect(evaluatePolicy(policy, call({ s: 'abc-123', p: '^[a-z]+-\\d+$' })).decision).toBe(
      'deny',
    );
    const large = evaluatePolicy(policy, call({ s: 'abc', p: '(abc|def|ghi){999}' }));
    expect(large.decision).toBe('ask');
    expect(large.condition?.error).toBe(
      'a pattern from the call compiles to more than 50 RE2 instructions; one not written in the policy may have at most 50',
    );
    const backreference = evaluatePolicy(policy, call({ s: 'aa', p: '(a)\\1' }));
    expect(backreference.condition?.error).toContain('is not an RE2 pattern');
  });

  it('the RE2 function for written patterns cannot be called by hand on a pattern from the call', () => {
    const compiled = compileCondition('args.s.matches_re2(args.p)');
    expect(compiled).toEqual({
      ok: false,
      error: 'matches_re2() takes a pattern written in the condition',
    });
  });

  it('bounds a pattern from its text from above, so the check before compiling never refuses a small one', () => {
    for (const pattern of [
      '[ab]*a[ab]{12}$',
      '(abc|def|ghi){999}',
      '(a{10}){10}',
      '((a|b){3}c){4}',
      '(?i)(\\pL|\\pN){1,50}x',
      '\\p{Greek}+x{3,5}',
      '[]a]{4}',
      '[^]a]{4}b',
      'a{2,}',
      '(?s).{1,20}',
      '[a-z0-9._%+-]+@[a-z0-9.-]+\\.[a-z]{2,}',
    ]) {
      expect(sizeAtMost(pattern)).toBeGreaterThanOrEqual(RE2JS.compile(pattern).programSize());
    }
  });
});

describe('duration() is bounded too', () => {
  it('parses a duration from the call, and refuses a long one at once (the library backtracked 0.7 s on 1,000 digits)', () => {
    const policy = loaded('duration(args.wait) > duration("1h")', 'deny');
    expect(evaluatePolicy(policy, call({ wait: '2h30m' })).decision).toBe('deny');
    expect(evaluatePolicy(policy, call({ wait: '30m' })).decision).toBe('ask');
    const long = evaluatePolicy(policy, call({ wait: '1'.repeat(1_000) }));
    expect(long.decision).toBe('ask');
    expect(long.condition?.error).toBe('duration() takes at most 64 characters, got 1000');
  });

  it('names duration() as written in a type error', () => {
    expect(compileCondition('duration(1) > duration("1h")')).toMatchObject({
      ok: false,
      error: expect.stringContaining("found no matching overload for 'duration(int)'"),
    });
  });
});

describe('the size bounds, checked before each evaluation', () => {
  it('a list over the bound makes the condition "could not be evaluated": a person is asked, told why', () => {
    const policy = loaded('args.items.all(i, i > 0)');
    const verdict = evaluatePolicy(policy, call({ items: Array.from({ length: 5_000 }, () => 1) }));
    expect(verdict).toMatchObject({
      decision: 'ask',
      rule: { name: 'guarded' },
      condition: { error: 'args.items has 5,000 items; a condition reads at most 1,000' },
    });
    // What the card shows: the gate's policy carries the reason.
    expect(verdict.resolved.policy.condition?.error).toBe(
      'args.items has 5,000 items; a condition reads at most 1,000',
    );
    const within = evaluatePolicy(policy, call({ items: Array.from({ length: 1_000 }, () => 1) }));
    expect(within.decision).toBe('allow');
  });

  it('a string over the bound, nested in what the condition reads, is named by its path', () => {
    const policy = loaded('args.order.lines.exists(l, l.note == "gift")');
    const verdict = evaluatePolicy(
      policy,
      call({ order: { lines: [{ note: 'ok' }, { note: 'x'.repeat(5_000) }] } }),
    );
    expect(verdict.decision).toBe('ask');
    expect(verdict.condition?.error).toBe(
      'args.order.lines[1].note has 5,000 characters; a condition reads at most 1,000',
    );
  });

  it('only the values a condition reads are measured: a large argument it does not read is no obstacle', () => {
    const policy = loaded('args.amount < 100');
    const verdict = evaluatePolicy(policy, call({ amount: 5, attachment: 'x'.repeat(500_000) }));
    expect(verdict).toMatchObject({ decision: 'allow', condition: { value: true } });
  });

  it('a condition that reads args by a computed key measures all of it, and stops at 10,000 values on a 1 MB body', () => {
    const policy = loaded('args.exists(k, args[k] == "x")');
    const values = Array.from({ length: 100_000 }, (_, index) => [`k${index}`, `v${index}`]);
    const rows = Object.fromEntries(
      Array.from({ length: 100 }, (_, row) => [
        `r${row}`,
        Object.fromEntries(values.slice(row * 900, row * 900 + 900)),
      ]),
    );
    expect(JSON.stringify(rows).length).toBeGreaterThan(1_000_000);
    const verdict = evaluatePolicy(policy, call(rows));
    expect(verdict.decision).toBe('ask');
    expect(verdict.condition?.error).toBe(
      'args holds more than 10,000 values; a condition reads at most 10,000 in all',
    );
  });
});
