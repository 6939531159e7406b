import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { describe, it } from 'vitest';
import { type ConditionInput, compileCondition } from '../src/approvals/policy/condition.js';
import { CONDITION_LIMITS, formatSteps } from '../src/approvals/policy/condition-limits.js';
import { ms, spread, table } from './support/figures.js';

/**
 * The worst evaluation time of a hostile corpus of conditions, each accepted by the load-time
 * cost bound and run on arguments at the size bounds (catastrophic regexes, nested comprehensions,
 * long strings, full lists), next to the bare evaluation of a trivial condition in the same run.
 * The first evaluation of each is shown apart: it is the first use of its code paths in the process
 * (the JIT compiling them), paid once per process, not per call.
 * Target: the worst ≤ 5 ms (no condition holds the event loop longer). Prints; asserts nothing.
 */

const { maxEntries, maxStringLength, maxValues } = CONDITION_LIMITS;
const RUNS = 30;

/** Deterministic "random" a/b text: no DFA shortcut for `[ab]*a[ab]{20}$`. */
function abText(length: number, seed: number): string {
  let state = seed;
  let text = '';
  for (let index = 0; index < length; index += 1) {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    text += state % 2 === 0 ? 'a' : 'b';
  }
  return text;
}

const longA = `${'a'.repeat(maxStringLength - 1)}!`;
const fullList = (make: (index: number) => unknown) =>
  Array.from({ length: maxEntries }, (_, index) => make(index));
const strings = fullList((index) =>
  `${abText(maxStringLength - 6, index)}${index}`.slice(0, 1_000),
);
const shortStrings = Array.from({ length: maxEntries }, (_, index) => `item-${index}`);

interface Case {
  name: string;
  when: string;
  args: Record<string, unknown>;
  payload?: unknown;
}

const CORPUS: Case[] = [
  { name: '(a+)+$ on "a"×999+"!"', when: 'args.s.matches("^(a+)+$")', args: { s: longA } },
  {
    name: '(a|aa)*c on "a"×1000',
    when: 'args.s.matches("(a|aa)*c")',
    args: { s: 'a'.repeat(1000) },
  },
  {
    name: 'no-DFA regex on random a/b',
    when: 'args.s.matches("[ab]*a[ab]{20}$")',
    args: { s: abText(maxStringLength, 7) },
  },
  {
    name: 'large regex (94 instructions)',
    when: 'args.s.matches("(a|b)*a(a|b){29}$")',
    args: { s: abText(maxStringLength, 11) },
  },
  {
    name: 'pattern from the call',
    when: 'args.s.matches(args.p)',
    args: { s: abText(maxStringLength, 13), p: '[ab]*a[ab]{12}$' },
  },
  {
    name: 'prefix and suffix over a full list',
    when: 'args.items.exists(x, x.startsWith("zzzz") || x.endsWith("zz"))',
    args: { items: strings },
  },
  {
    name: 'contains() and size() on a long string',
    when: 'args.s.contains("abba!") || args.s.size() < 10',
    args: { s: abText(maxStringLength, 23) },
  },
  {
    name: '3 nested comprehensions',
    when: 'args.items.all(x, [1, 2].exists(y, [3, 4].all(z, x != "" && y + z > 0)))',
    args: { items: shortStrings },
  },
  {
    name: 'equality of two full lists',
    when: 'args.a == args.b',
    args: { a: shortStrings, b: [...shortStrings] },
  },
  {
    name: 'in over a full list',
    when: 'args.k in args.items',
    args: { k: 'absent', items: strings },
  },
  {
    name: 'concatenation of long strings',
    when: '(args.s + args.s + args.s).contains("zz")',
    args: { s: abText(maxStringLength, 17) },
  },
  {
    name: 'keys of a full map',
    when: 'args.m.exists(k, k.endsWith("zz"))',
    args: { m: Object.fromEntries(shortStrings.map((key, index) => [key, index])) },
  },
  {
    name: 'split of a long string',
    when: 'args.s.split("a").exists(p, p == "bbbbbbbbbb")',
    args: { s: abText(maxStringLength, 19) },
  },
  {
    name: 'all of args, read whole',
    when: 'args.exists(k, args[k] == "zz")',
    args: Object.fromEntries(shortStrings.map((key) => [key, `${key}!`])),
  },
];

const TRIVIAL: Case = {
  name: 'args.amount > 1000',
  when: 'args.amount > 1000',
  args: { amount: 5 },
};

function inputOf(testCase: Case): ConditionInput {
  return {
    app: 'bench',
    tool: 'bench_tool',
    kind: 'confirmation',
    args: testCase.args,
    payload: testCase.payload ?? null,
    requester: { id: 'U0BENCH', groups: [] },
    channel: 'C0BENCH',
    source: 'api',
    now: new Date(),
  };
}

type Measured =
  | { refused: string }
  | {
      cost: number;
      first: number;
      firstCpu: number;
      samples: number[];
      cpu: number[];
      outcome: string;
    };

function measure(testCase: Case, runs: number): Measured {
  const compiled = compileCondition(testCase.when);
  if (!compiled.ok) return { refused: compiled.error };
  const { condition } = compiled;
  const input = inputOf(testCase);
  const samples: number[] = [];
  const cpu: number[] = [];
  let outcome = '';
  for (let run = 0; run < runs; run += 1) {
    const cpuBefore = process.cpuUsage();
    const started = performance.now();
    const result = condition.evaluate(input);
    samples.push(performance.now() - started);
    const used = process.cpuUsage(cpuBefore);
    cpu.push((used.user + used.system) / 1_000);
    outcome = 'error' in result ? `error: ${result.error}` : String(result.value);
  }
  return {
    cost: condition.cost,
    first: samples[0] ?? NaN,
    firstCpu: cpu[0] ?? NaN,
    samples: samples.slice(1),
    cpu: cpu.slice(1),
    outcome,
  };
}

describe('condition evaluation under the bounds', () => {
  it('the worst of a hostile corpus, next to a trivial condition', () => {
    const trivial = measure(TRIVIAL, 2_000);
    const rows: string[][] = [];
    let worst = { name: '', ms: 0 };
    let worstCold = { name: '', ms: 0, cpu: 0 };
    let worstCpu = { name: '', ms: 0 };
    for (const testCase of CORPUS) {
      const measured = measure(testCase, RUNS);
      if ('refused' in measured) {
        rows.push([testCase.name, 'refused', '-', '-', '-', '-', '-', '-', measured.refused]);
        continue;
      }
      const s = spread(measured.samples);
      const cpu = Math.max(...measured.cpu);
      if (s.max > worst.ms) worst = { name: testCase.name, ms: s.max };
      if (cpu > worstCpu.ms) worstCpu = { name: testCase.name, ms: cpu };
      if (measured.first > worstCold.ms) {
        worstCold = { name: testCase.name, ms: measured.first, cpu: measured.firstCpu };
      }
      rows.push([
        testCase.name,
        formatSteps(measured.cost),
        ms(measured.first),
        ms(measured.firstCpu),
        ms(s.max),
        ms(cpu),
        ms(s.p50),
        ms((s.p50 * 1e6) / measured.cost),
        measured.outcome,
      ]);
    }

    const refusedAtLoad = [
      'args.a.all(w, args.b.all(x, args.c.all(y, args.d.all(z, w + x + y + z > 0.0))))',
      'args.items.exists(i, i.sku.matches("^X"))',
      'args.items.exists(x, x.contains("zzzz"))',
    ].map((when) => {
      const compiled = compileCondition(when);
      return `  ${when}\n    → ${compiled.ok ? 'ACCEPTED' : compiled.error}`;
    });

    // The check of what a condition reads, on a 1 MB body: it stops at the first bound passed.
    const body = { blob: Array.from({ length: 100_000 }, (_, index) => `v${index}`) };
    const wholeArgs = compileCondition('args.exists(k, k == "zz")');
    let bodyCheck = '-';
    if (wholeArgs.ok) {
      const input = { ...inputOf(TRIVIAL), args: body };
      const samples = Array.from({ length: 50 }, () => {
        const started = performance.now();
        wholeArgs.condition.evaluate(input);
        return performance.now() - started;
      });
      const s = spread(samples);
      bodyCheck = `p50 ${ms(s.p50 * 1_000)} µs, worst ${ms(s.max * 1_000)} µs (${JSON.stringify(body).length.toLocaleString('en-US')} bytes)`;
    }

    const bare = 'refused' in trivial ? spread([]) : spread(trivial.samples);
    const bareFirst = 'refused' in trivial ? NaN : trivial.first;
    console.log(
      [
        '',
        `Conditions at the bounds (${maxEntries} entries, ${maxStringLength} characters, ${maxValues} values, budget ${formatSteps(CONDITION_LIMITS.maxCost)} steps); ${RUNS} runs each, the first cold (not in "worst")`,
        ...table(
          [
            'condition',
            'est. steps',
            'first ms',
            'first CPU ms',
            'worst ms',
            'worst CPU ms',
            'p50 ms',
            'p50 ns/step',
            'result',
          ],
          rows,
        ),
        '',
        `worst evaluation over the corpus: ${ms(worst.ms)} ms wall (${worst.name}), ${ms(worstCpu.ms)} ms CPU (${worstCpu.name}); bare trivial condition: p50 ${ms(bare.p50 * 1_000)} µs, max ${ms(bare.max * 1_000)} µs wall; target worst ≤ 5 ms: ${worst.ms <= 5 ? 'met' : 'NOT met'} (wall), ${worstCpu.ms <= 5 ? 'met' : 'NOT met'} (CPU)`,
        `(load average ${(os.loadavg()[0] ?? 0).toFixed(1)} on ${os.availableParallelism()} cores: a wall time far above its CPU time is this process waiting for a core)`,
        `first (cold) evaluation, each the first use of its code paths in this process: worst ${ms(worstCold.ms)} ms wall, ${ms(worstCold.cpu)} ms CPU (${worstCold.name}); the trivial condition's first: ${ms(bareFirst)} ms`,
        `size check of what a condition reads, all of args on a 1 MB body: ${bodyCheck}`,
        'refused at load:',
        ...refusedAtLoad,
        '',
      ].join('\n'),
    );
  });
});
