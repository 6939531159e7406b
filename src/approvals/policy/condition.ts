import { Environment } from '@marcbachmann/cel-js';

/**
 * A rule's `when:`, in CEL (Common Expression Language, as in Google Cloud IAM Conditions and
 * Kubernetes admission policies). Compiled and type-checked once, when the policy file is read;
 * evaluated per call. The library is `@marcbachmann/cel-js`: no dependencies (≈ 0.3 MB, against
 * `@bufbuild/cel`'s protobuf runtime, spec tables and RE2 port), a type checker over declared
 * variables, and sub-microsecond evaluation of a compiled expression.
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
  source: 'slack' | 'api';
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
  /** `true` or `false`; `error` when it could not be evaluated (a missing field, a wrong type). */
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
  .registerVariable('now', 'google.protobuf.Timestamp');

/** Parses and type-checks `text`; the error is one line, saying where in the expression. */
export function compileCondition(text: string): CompileResult {
  if (text.trim() === '') return { ok: false, error: 'expected a CEL expression, got nothing' };
  let program: ReturnType<typeof environment.parse>;
  try {
    program = environment.parse(text);
  } catch (error) {
    return { ok: false, error: `not a valid CEL expression: ${firstLine(error)}` };
  }
  const checked = program.check();
  if (!checked.valid) {
    return { ok: false, error: `not a valid CEL expression: ${firstLine(checked.error)}` };
  }
  if (checked.type !== 'bool' && checked.type !== 'dyn') {
    return { ok: false, error: `expected a condition (true or false), got a ${checked.type}` };
  }
  return {
    ok: true,
    condition: {
      text,
      evaluate(input) {
        try {
          const value: unknown = program(input as unknown as Record<string, unknown>);
          return typeof value === 'boolean'
            ? { value }
            : { error: `the condition gave ${describe(value)}, not true or false` };
        } catch (error) {
          return { error: firstLine(error) };
        }
      },
    },
  };
}

function firstLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return (message.split('\n')[0] ?? '').trim() || 'unknown error';
}

function describe(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'bigint' || typeof value === 'number') return 'a number';
  if (typeof value === 'string') return 'a string';
  return 'a value';
}
