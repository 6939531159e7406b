import { performance } from 'node:perf_hooks';
import { describe, it } from 'vitest';
import { compileGlob, type Glob } from '../src/approvals/policy/glob.js';
import { evaluatePolicy, type PolicyCall, parsePolicy } from '../src/approvals/policy.js';
import { ms, spread, table } from './support/figures.js';

/**
 * Policy evaluation with 200 rules, each with a CEL condition, next to a bare first-match glob
 * lookup over the same 200 patterns (no conditions, no snapshot copy): what conditions and
 * outcomes cost per call. Target: p99 ≤ 50 µs. Prints figures; asserts nothing.
 */

const RULES = 200;
const CALLS = 20_000;
const WARMUP = 2_000;

function policyText(): string {
  const lines = ['defaults:', '  approvers: [U0BOB]', 'rules:'];
  for (let index = 0; index < RULES; index += 1) {
    lines.push(
      `  - name: rule-${index}`,
      `    match: { app: app-${index % 20}, tool: "tool_${index}_*" }`,
      `    when: has(args.amount) && args.amount > ${index * 10} && args.env != "staging-${index}"`,
      `    decision: ${index % 3 === 0 ? 'allow' : index % 3 === 1 ? 'deny' : 'ask'}`,
      '    reason: "rule {{args.amount}}"',
    );
  }
  return `${lines.join('\n')}\n`;
}

function calls(): PolicyCall[] {
  const now = new Date();
  return Array.from({ length: 500 }, (_, index) => {
    // Spread over the file: late rules, and calls no rule matches (the worst case: every rule).
    const rule = (index * 7) % (RULES + 40);
    return {
      app: `app-${rule % 20}`,
      tool: `tool_${rule}_run`,
      args: { amount: (index * 37) % 3_000, env: index % 2 === 0 ? 'production' : 'staging' },
      source: 'slack',
      now,
    };
  });
}

function timeEach<T>(inputs: readonly T[], run: (input: T) => unknown): number[] {
  const samples: number[] = [];
  for (let index = 0; index < WARMUP; index += 1) run(inputs[index % inputs.length] as T);
  for (let index = 0; index < CALLS; index += 1) {
    const input = inputs[index % inputs.length] as T;
    const started = performance.now();
    run(input);
    samples.push((performance.now() - started) * 1_000);
  }
  return samples;
}

describe('policy evaluation', () => {
  it('200 rules with conditions, next to a bare first-match glob lookup', () => {
    const parsed = parsePolicy(policyText(), 'bench-policy.yml');
    if (!parsed.ok) throw new Error(parsed.errors.join('\n'));
    const policy = parsed.policy;
    const inputs = calls();

    const globs = policy.rules.map((rule) => ({
      app: rule.match.app as Glob,
      tool: rule.match.tool ?? (compileGlob('*') as { ok: true; glob: Glob }).glob,
    }));
    const bare = timeEach(inputs, (call) =>
      globs.find(({ app, tool }) => app.test(call.app) && tool.test(call.tool)),
    );
    const full = timeEach(inputs, (call) => evaluatePolicy(policy, call));

    const rows = [
      ['bare first-match glob lookup', bare],
      ['evaluatePolicy (globs + CEL + verdict)', full],
    ] as const;
    const lines = table(
      ['200 rules', 'calls', 'p50 µs', 'p99 µs', 'max µs'],
      rows.map(([name, samples]) => {
        const s = spread(samples);
        return [name, String(s.count), ms(s.p50), ms(s.p99), ms(s.max)];
      }),
    );
    const p99 = spread(full).p99;
    console.log(
      [
        '',
        'Policy evaluation (target: evaluatePolicy p99 ≤ 50 µs)',
        ...lines,
        `evaluatePolicy p99 ${ms(p99)} µs: ${p99 <= 50 ? 'met' : 'NOT met'}`,
        '',
      ].join('\n'),
    );
  });
});
