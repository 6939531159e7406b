import { Environment } from '@marcbachmann/cel-js';
import { describe, expect, it } from 'vitest';
import { isNode } from '../../../src/approvals/policy/condition-ast.js';
import {
  ConditionBudgetExceeded,
  meterComprehensions,
  metered,
} from '../../../src/approvals/policy/condition-meter.js';
import {
  compileLiteralPattern,
  matchesLiteral,
} from '../../../src/approvals/policy/condition-regex.js';

/**
 * The step meter behind the load-time bound: should the cost model ever be wrong, an evaluation
 * stops at the budget instead of holding the event loop.
 */

const environment = new Environment().registerVariable('l', 'list');

function meteredProgram(text: string) {
  const program = environment.parse(text);
  const ast: unknown = program.ast;
  if (!isNode(ast)) throw new Error('no AST');
  meterComprehensions(ast);
  const checked = program.check();
  if (!checked.valid) throw checked.error;
  return program;
}

const twenty = Array.from({ length: 20 }, (_, index) => index + 1);

describe('the step meter', () => {
  it('counts comprehension iterations and stops an evaluation past its limit', () => {
    const program = meteredProgram('l.all(x, l.all(y, x + y > 0.0))');
    expect(metered(1_000, () => program({ l: twenty }))).toEqual({ value: true, exceeded: false });
    expect(() => metered(100, () => program({ l: twenty }))).toThrow(ConditionBudgetExceeded);
  });

  it('counts map() and filter() iterations too', () => {
    const program = meteredProgram('l.map(x, x * 2.0).filter(y, y > 10.0).size() > 0');
    expect(() => metered(30, () => program({ l: twenty }))).toThrow(ConditionBudgetExceeded);
    expect(metered(40, () => program({ l: twenty })).value).toBe(true);
  });

  it('an answer reached after the limit does not count, even when || absorbed the error', () => {
    const program = meteredProgram('l.all(x, x > 0.0) || true');
    expect(metered(5, () => program({ l: twenty }))).toEqual({ value: true, exceeded: true });
  });

  it('charges a regex scan by the pattern size times the text length', () => {
    const compiled = compileLiteralPattern('^(a+)+$');
    expect(compiled).toEqual({ ok: true, size: 9 });
    expect(metered(9 * 31, () => matchesLiteral('a'.repeat(30), '^(a+)+$')).value).toBe(true);
    expect(() => metered(9 * 30, () => matchesLiteral('a'.repeat(30), '^(a+)+$'))).toThrow(
      ConditionBudgetExceeded,
    );
  });
});
