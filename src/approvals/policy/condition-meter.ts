import { allNodes, type CelNode, comprehensionOf } from './condition-ast.js';

/**
 * A step meter, in defence of the load-time bound: every comprehension iteration and every regex
 * scan is counted while a condition runs, and past the budget the evaluation stops with an error.
 * With an accurate cost model it never trips (the estimate counts at least as many steps); it is
 * there so that a mistake in the model costs a person's click, never the event loop.
 * Evaluation is synchronous, so one meter at a time is enough.
 */

export class ConditionBudgetExceeded extends Error {
  override readonly name = 'ConditionBudgetExceeded';
}

let active: { steps: number; limit: number } | undefined;

/** Adds `steps` to the running evaluation's meter; throws once past its limit. */
export function charge(steps: number): void {
  if (active === undefined) return;
  active.steps += steps;
  if (active.steps > active.limit) {
    throw new ConditionBudgetExceeded(`ran past its budget of ${active.limit} steps`);
  }
}

/**
 * Runs `evaluate` under a meter. `exceeded` is checked after too: CEL's `||` and `&&` may absorb
 * an error from one side (`x || true` is true), and a stopped evaluation must not count as an
 * answer.
 */
export function metered<T>(limit: number, evaluate: () => T): { value: T; exceeded: boolean } {
  const meter = { steps: 0, limit };
  active = meter;
  try {
    const value = evaluate();
    return { value, exceeded: meter.steps > limit };
  } finally {
    active = undefined;
  }
}

/**
 * Makes every comprehension of a parsed expression count its iterations. The library asks a
 * comprehension's `condition` (when it has one) before each step; a counting one is put in its
 * place, keeping the original's answer.
 */
export function meterComprehensions(root: CelNode): void {
  for (const node of allNodes(root)) {
    if (comprehensionOf(node) === undefined) continue;
    const args: unknown = node.args;
    if (args === null || typeof args !== 'object' || instrumented.has(args)) continue;
    instrumented.add(args);
    const original = 'condition' in args ? args.condition : undefined;
    const counting =
      typeof original === 'function'
        ? (accumulator: unknown) => {
            charge(1);
            return Boolean(Reflect.apply(original, undefined, [accumulator]));
          }
        : () => {
            charge(1);
            return true;
          };
    Reflect.set(args, 'condition', counting);
  }
}

const instrumented = new WeakSet<object>();
