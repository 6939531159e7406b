/**
 * The bounds that keep a condition cheap whatever the call's arguments. A condition is refused at
 * load when its worst case over values within these sizes costs more than `maxCost` steps
 * (`condition-cost.ts`); at evaluation, the values it reads are measured first, and a value over
 * a bound makes it "could not be evaluated" (a person is asked) before any of it runs. Together:
 * no accepted condition can run for more than a few milliseconds (`bench/conditions.bench.ts`
 * measures the worst of a hostile corpus at these bounds).
 */
export const CONDITION_LIMITS = {
  /** Entries in any one list or map a condition reads. */
  maxEntries: 1_000,
  /** Characters in any one string a condition reads (map keys included). */
  maxStringLength: 1_000,
  /** Values in all that one condition reads: each string, number, list, map and entry counts. */
  maxValues: 10_000,
  /** A condition's worst case, in steps of the cost model (at most about 40 ns each). */
  maxCost: 100_000,
  /**
   * RE2 program size of a pattern not written in the policy file (one a call supplies): its cost
   * must be bounded before the call is seen.
   */
  maxDynamicPatternSize: 50,
} as const;

/** A value a condition reads: a variable and a fixed path into it (`args.items`, `payload`). */
export interface ReadPath {
  root: string;
  path: readonly (string | number)[];
}

export function readPathText({ root, path }: ReadPath): string {
  return root + pathText(path);
}

/**
 * Why the values a condition reads are too large for it to be evaluated, or nothing. Stops at the
 * first value over a bound and visits at most `maxValues` values, so that it costs microseconds
 * even on a 1 MB body.
 */
export function oversizeReason(
  reads: readonly ReadPath[],
  input: Readonly<Record<string, unknown>>,
): string | undefined {
  const counter = { values: 0 };
  for (const read of reads) {
    const value = valueAt(input[read.root], read.path);
    if (value === undefined) continue;
    const reason = measure(value, read, counter);
    if (reason !== undefined) return reason;
  }
  return undefined;
}

function valueAt(start: unknown, path: readonly (string | number)[]): unknown {
  let value = start;
  for (const key of path) {
    if (Array.isArray(value) && typeof key === 'number') value = value[key];
    else if (isPlainObject(value) && typeof key === 'string' && Object.hasOwn(value, key)) {
      value = value[key];
    } else return undefined;
  }
  return value;
}

/**
 * Depth first with an explicit stack (a deep body must not overflow ours); `path` holds the keys
 * down to the value being visited, read only to name the value that is over a bound.
 */
function measure(root: unknown, read: ReadPath, counter: { values: number }): string | undefined {
  const { maxEntries, maxStringLength, maxValues } = CONDITION_LIMITS;
  const stack: { value: unknown; depth: number; key: string | number }[] = [
    { value: root, depth: 0, key: '' },
  ];
  const path: (string | number)[] = [];
  // Values counted for earlier reads: a bound passed here is then the sum's.
  const counted = counter.values;
  const where = () => readPathText({ root: read.root, path: [...read.path, ...path] });
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const { value, depth, key } = next;
    path.length = Math.max(0, depth - 1);
    if (depth > 0) path[depth - 1] = key;
    counter.values += 1;
    if (counter.values > maxValues) {
      const what =
        counted === 0 ? readPathText(read) : `${readPathText(read)} with the rest it reads`;
      return `${what} holds more than ${count(maxValues)} values; a condition reads at most ${count(maxValues)} in all`;
    }
    if (typeof value === 'string') {
      if (value.length > maxStringLength) {
        return `${where()} has ${count(value.length)} characters; a condition reads at most ${count(maxStringLength)}`;
      }
    } else if (Array.isArray(value)) {
      if (value.length > maxEntries) {
        return `${where()} has ${count(value.length)} items; a condition reads at most ${count(maxEntries)}`;
      }
      for (let index = value.length - 1; index >= 0; index -= 1) {
        stack.push({ value: value[index], depth: depth + 1, key: index });
      }
    } else if (isPlainObject(value)) {
      const keys = Object.keys(value);
      if (keys.length > maxEntries) {
        return `${where()} has ${count(keys.length)} keys; a condition reads at most ${count(maxEntries)}`;
      }
      for (let index = keys.length - 1; index >= 0; index -= 1) {
        const entry = keys[index] as string;
        if (entry.length > maxStringLength) {
          return `a key in ${where()} has ${count(entry.length)} characters; a condition reads at most ${count(maxStringLength)}`;
        }
        stack.push({ value: value[entry], depth: depth + 1, key: entry });
      }
    }
  }
  return undefined;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object') return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

function pathText(path: readonly (string | number)[]): string {
  let text = '';
  for (const key of path) {
    if (typeof key === 'number') text += `[${key}]`;
    else {
      // A key comes from the call: shown in part, so that a reason stays one short line.
      const shown = key.length > 40 ? `${key.slice(0, 40)}…` : key;
      text += IDENTIFIER.test(shown) ? `.${shown}` : `[${JSON.stringify(shown)}]`;
    }
  }
  return text;
}

/** 5000 → "5,000": the figures people read on a card. */
export function count(value: number): string {
  return value.toLocaleString('en-US');
}

/** Reading `args` reads `args.items` too: keep only the outermost of nested paths. */
export function outermost(reads: readonly ReadPath[]): ReadPath[] {
  const kept: ReadPath[] = [];
  const sorted = [...reads].sort((a, b) => a.path.length - b.path.length);
  for (const read of sorted) {
    const covered = kept.some(
      (outer) =>
        outer.root === read.root && outer.path.every((key, index) => read.path[index] === key),
    );
    if (!covered) kept.push(read);
  }
  return kept;
}

/** 123456 → "1.2×10^5", 100000 → "10^5": orders of magnitude people compare at a glance. */
export function formatSteps(steps: number): string {
  if (!Number.isFinite(steps)) return 'unbounded';
  if (steps < 10_000) return count(Math.ceil(steps));
  const exponent = Math.floor(Math.log10(steps));
  const mantissa = steps / 10 ** exponent;
  const shown = mantissa.toFixed(1);
  return shown === '1.0' ? `10^${exponent}` : `${shown}×10^${exponent}`;
}
