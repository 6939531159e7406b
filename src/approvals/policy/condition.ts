import { Environment } from '@marcbachmann/cel-js';
import { isNode } from './condition-ast.js';
import { estimateCost } from './condition-cost.js';
import { DURATION_BOUNDED, durationBounded, useBoundedDuration } from './condition-duration.js';
import {
  CONDITION_LIMITS,
  formatSteps,
  oversizeReason,
  type ReadPath,
} from './condition-limits.js';
import { ConditionBudgetExceeded, meterComprehensions, metered } from './condition-meter.js';
import {
  MATCHES_DYNAMIC,
  MATCHES_LITERAL,
  matchesDynamic,
  matchesLiteral,
  useRe2ForMatches,
  writtenName,
} from './condition-regex.js';

/**
 * A rule's `when:`, in CEL (Common Expression Language, as in Google Cloud IAM Conditions and
 * Kubernetes admission policies). Compiled and type-checked once, when the policy file is read;
 * evaluated per call. The library is `@marcbachmann/cel-js`: no dependencies (≈ 0.3 MB, against
 * `@bufbuild/cel`'s protobuf runtime, spec tables and RE2 port), a type checker over declared
 * variables, and sub-microsecond evaluation of a compiled expression.
 *
 * Bounded by construction: `matches` runs on RE2 (linear time); an expression whose worst case
 * over values within `CONDITION_LIMITS` costs more than the budget is refused at load; and before
 * each evaluation the values it reads are measured, one over a bound making it "could not be
 * evaluated" (a person is asked) without running it. A step meter stands behind both.
 */

/** What a condition can read about a call. `now` is a CEL timestamp, for business hours. */
export interface ConditionInput {
  app: string;
  tool: string;
  kind: string;
  args: Record<string, unknown>;
  payload: unknown;
  requester: { id: string; groups: string[] };
  channel: string;
  source: 'slack' | 'api' | 'alert';
  now: Date;
}

export const CONDITION_VARIABLES = [
  'app',
  'tool',
  'kind',
  'args',
  'payload',
  'requester',
  'channel',
  'source',
  'now',
] as const;

export interface Condition {
  /** As written in the policy file, for cards, decisions and `policy explain`. */
  readonly text: string;
  /** Its worst case, in steps, over values within `CONDITION_LIMITS` (at most `maxCost`). */
  readonly cost: number;
  /** What it reads of a call (`args.items`, or `args` when it reads it whole). */
  readonly reads: readonly ReadPath[];
  /**
   * `true` or `false`; `error` when it could not be evaluated (a missing field, a wrong type, a
   * value larger than a condition may read).
   */
  evaluate(input: ConditionInput): { value: boolean } | { error: string };
}

export type CompileResult = { ok: true; condition: Condition } | { ok: false; error: string };

const environment = new Environment({ limits: { maxAstNodes: 2_000, maxDepth: 50 } })
  .registerVariable('app', 'string')
  .registerVariable('tool', 'string')
  .registerVariable('kind', 'string')
  .registerVariable('args', 'map')
  .registerVariable('payload', 'dyn')
  .registerVariable('requester', 'map')
  .registerVariable('channel', 'string')
  .registerVariable('source', 'string')
  .registerVariable('now', 'google.protobuf.Timestamp')
  .registerFunction(`string.${MATCHES_LITERAL}(string): bool`, matchesLiteral)
  .registerFunction(`string.${MATCHES_DYNAMIC}(string): bool`, matchesDynamic)
  .registerFunction(`${DURATION_BOUNDED}(string): google.protobuf.Duration`, durationBounded);

/** Parses and type-checks `text`; the error is one line, saying where in the expression. */
export function compileCondition(text: string): CompileResult {
  if (text.trim() === '') return { ok: false, error: 'expected a CEL expression, got nothing' };
  let program: ReturnType<typeof environment.parse>;
  try {
    program = environment.parse(text);
  } catch (error) {
    return { ok: false, error: `not a valid CEL expression: ${firstLine(error)}` };
  }
  const ast: unknown = program.ast;
  if (!isNode(ast)) return { ok: false, error: 'the expression could not be read' };
  useRe2ForMatches(ast);
  useBoundedDuration(ast);
  const checked = program.check();
  if (!checked.valid) {
    return { ok: false, error: `not a valid CEL expression: ${firstLine(checked.error)}` };
  }
  if (checked.type !== 'bool' && checked.type !== 'dyn') {
    return { ok: false, error: `expected a condition (true or false), got a ${checked.type}` };
  }
  const estimated = estimateCost(ast);
  if (!estimated.ok) return { ok: false, error: estimated.error };
  const { cost, reads, expensive } = estimated.estimate;
  if (cost > CONDITION_LIMITS.maxCost) {
    return {
      ok: false,
      error: `too costly: up to ${formatSteps(cost)} steps, budget ${formatSteps(CONDITION_LIMITS.maxCost)} (${expensive})`,
    };
  }
  meterComprehensions(ast);
  return {
    ok: true,
    condition: {
      text,
      cost,
      reads,
      evaluate(input) {
        const values: Record<string, unknown> = { ...input };
        const oversize = oversizeReason(reads, values);
        if (oversize !== undefined) return { error: oversize };
        try {
          const run = metered(CONDITION_LIMITS.maxCost, () => program(values));
          if (run.exceeded) return { error: overBudget() };
          const value: unknown = run.value;
          return typeof value === 'boolean'
            ? { value }
            : { error: `the condition gave ${describe(value)}, not true or false` };
        } catch (error) {
          return {
            error: error instanceof ConditionBudgetExceeded ? overBudget() : firstLine(error),
          };
        }
      },
    },
  };
}

function overBudget(): string {
  return `the condition ran past its budget of ${formatSteps(CONDITION_LIMITS.maxCost)} steps`;
}

function firstLine(error: unknown): string {
  const message = writtenName(error instanceof Error ? error.message : String(error)).replaceAll(
    DURATION_BOUNDED,
    'duration',
  );
  return (message.split('\n')[0] ?? '').trim() || 'unknown error';
}

function describe(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'bigint' || typeof value === 'number') return 'a number';
  if (typeof value === 'string') return 'a string';
  return 'a value';
}
