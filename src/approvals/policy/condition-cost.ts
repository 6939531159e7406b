import {
  bindOf,
  type CelNode,
  callOf,
  comprehensionOf,
  effective,
  isNode,
  nodeList,
} from './condition-ast.js';
import { DURATION_BOUNDED, MAX_DURATION_LENGTH } from './condition-duration.js';
import { CONDITION_LIMITS, count, outermost, type ReadPath } from './condition-limits.js';
import { compileLiteralPattern, MATCHES_DYNAMIC, MATCHES_LITERAL } from './condition-regex.js';
import {
  CALL_STRING,
  CALL_VALUE,
  listOf,
  literalSize,
  PER_CHARACTER,
  SCALAR,
  type Size,
  stringOf,
  union,
  unknownOf,
} from './condition-size.js';

/**
 * A condition's worst-case cost, from its parsed and checked expression, over values within
 * `CONDITION_LIMITS` (in the spirit of cel-go's cost estimator). The model, in steps:
 *
 * - every operator, literal, variable and field access: 1; every function call: 10 more (the
 *   library picks the overload by the values' types at run time);
 * - a comprehension (`all`, `exists`, `exists_one`, `map`, `filter`): its body, plus 1, once per
 *   entry of the list or map it iterates;
 * - a function that reads a string (`contains`, `size`, `split`, `lowerAscii`…): 0.1 per
 *   character read;
 * - `matches`: the pattern's RE2 program size × (the string's length + 1): RE2 is linear in both;
 * - a timestamp getter given a time zone (`now.getHours("Europe/Paris")`): 5,000;
 * - `==` and `!=`: a walk of the smaller value (each value counts 1, so comparing what a call sent
 *   is bounded by `maxValues`); `in`: one step an entry, and the walks of the entries compared;
 *   `+` of strings or lists: a copy of both.
 *
 * A string, list or map a condition builds has a size bound too (`a + b`: both; `split`: one
 * entry a character), so that what is computed from the call stays bounded like the call.
 * One step is at most about 40 ns here (`bench/conditions.bench.ts` measures it).
 *
 * Also found here: which values the condition reads (`args.items`, or all of `args` when it reads
 * it by a computed key or as a whole), for the check of their sizes before each evaluation.
 */

export interface CostEstimate {
  /** Worst case, in steps. */
  cost: number;
  /** What costs the most, in words: "4 nested all() over lists of up to 1,000 entries". */
  expensive: string;
  reads: ReadPath[];
}

export type EstimateResult = { ok: true; estimate: CostEstimate } | { ok: false; error: string };

const NODE = 1;
const CALL = 10;
/** A timestamp getter given a time zone (`now.getHours("Europe/Paris")`). */
const TIME_ZONE = 5_000;

const VARIABLES: Readonly<Record<string, Size>> = {
  args: CALL_VALUE,
  payload: CALL_VALUE,
  requester: CALL_VALUE,
  app: CALL_STRING,
  tool: CALL_STRING,
  kind: CALL_STRING,
  channel: CALL_STRING,
  source: CALL_STRING,
  now: SCALAR,
};

/** One loop of a chain of nested comprehensions. */
interface Loop {
  name: string;
  entries: number;
}

/** The costliest part of an expression: the loops around it and the work inside them. */
interface Why {
  loops: Loop[];
  work?: string | undefined;
}

interface Estimate {
  cost: number;
  size: Size;
  why: Why;
  /** The expression is a fixed path into a variable (`args.items[0]`): read when used. */
  path?: ReadPath | undefined;
}

class Unestimable extends Error {}

export function estimateCost(root: CelNode): EstimateResult {
  const reads: ReadPath[] = [];
  try {
    const result = new Estimator(reads).value(root, new Map());
    return {
      ok: true,
      estimate: { cost: result.cost, expensive: describe(result.why), reads: outermost(reads) },
    };
  } catch (error) {
    if (error instanceof Unestimable) return { ok: false, error: error.message };
    throw error;
  }
}

type Scope = ReadonlyMap<string, Size>;

interface Accumulator {
  pushed: Size | undefined;
}

class Estimator {
  private accumulator: Accumulator | undefined;

  constructor(private readonly reads: ReadPath[]) {}

  /** Estimates `node` as a value that is used: a path it is gets recorded as read. */
  value(node: CelNode, scope: Scope): Estimate {
    const result = this.estimate(node, scope);
    if (result.path !== undefined && result.path.root !== 'now') this.reads.push(result.path);
    return result;
  }

  private estimate(written: CelNode, scope: Scope): Estimate {
    const node = effective(written);
    if (node !== written) {
      const call = callOf(written);
      const comprehension = comprehensionOf(node);
      if (comprehension !== undefined)
        return this.comprehension(call?.name ?? 'comprehension', node, scope);
    }
    const bind = bindOf(node);
    if (bind !== undefined) {
      const bound = this.value(bind.value, scope);
      const body = this.value(bind.body, new Map(scope).set(bind.name, bound.size));
      return combine(NODE, body.size, [bound, body]);
    }
    const args = node.args;
    switch (node.op) {
      case 'value':
        return { cost: NODE, size: literalSize(args), why: { loops: [] } };
      case 'id':
        return this.identifier(String(args), scope);
      case '.':
      case '.?':
        return this.field(node, scope);
      case '[]':
      case '[?]':
        return this.index(node, scope);
      case 'call':
      case 'rcall':
        return this.call(node, scope);
      case 'list': {
        const items = this.values(args, scope);
        return combine(NODE + items.length, listOf(items.length, unionAll(items)), items);
      }
      case 'map': {
        if (!Array.isArray(args)) throw unsupported(node);
        const parts = this.values(args.flat(), scope);
        return combine(NODE + args.length, listOf(args.length, unionAll(parts)), parts);
      }
      case 'accuValue':
      case 'accuInc':
        return { cost: NODE, size: SCALAR, why: { loops: [] } };
      case 'accuPush': {
        if (!isNode(args) || this.accumulator === undefined) throw unsupported(node);
        const pushed = this.value(args, scope);
        this.accumulator.pushed = union(this.accumulator.pushed ?? pushed.size, pushed.size);
        return combine(NODE, SCALAR, [pushed]);
      }
      case '!_':
      case '-_':
        if (!isNode(args)) throw unsupported(node);
        return combine(NODE, SCALAR, [this.value(args, scope)]);
      case '?:': {
        const [condition, yes, no] = Array.isArray(args) ? args : [];
        if (!isNode(condition) || !isNode(yes) || !isNode(no)) throw unsupported(node);
        return this.ternary(
          this.value(condition, scope),
          this.value(yes, scope),
          this.value(no, scope),
        );
      }
      default:
        return this.binary(node, scope);
    }
  }

  /** Only one branch runs: the costlier one counts. */
  private ternary(condition: Estimate, yes: Estimate, no: Estimate): Estimate {
    const branch = yes.cost >= no.cost ? yes : no;
    return combine(NODE, union(yes.size, no.size), [condition, branch]);
  }

  private values(args: unknown, scope: Scope): Estimate[] {
    if (!nodeList(args)) throw new Unestimable('a part of the condition cannot be bounded');
    return args.map((arg) => this.value(arg, scope));
  }

  private identifier(name: string, scope: Scope): Estimate {
    const local = scope.get(name);
    if (local !== undefined) return { cost: NODE, size: local, why: { loops: [] } };
    const variable = VARIABLES[name];
    if (variable === undefined) return { cost: NODE, size: SCALAR, why: { loops: [] } };
    return { cost: NODE, size: variable, why: { loops: [] }, path: { root: name, path: [] } };
  }

  /** `a.b`: a path stays a path; the object is only looked into, not read whole. */
  private field(node: CelNode, scope: Scope): Estimate {
    const [object, name] = Array.isArray(node.args) ? node.args : [];
    if (!isNode(object) || typeof name !== 'string') throw unsupported(node);
    const left = this.estimate(object, scope);
    return {
      cost: left.cost + NODE,
      size: left.size.entry ?? SCALAR,
      why: left.why,
      path: left.path && { root: left.path.root, path: [...left.path.path, name] },
    };
  }

  /** `a[k]`: a path when `k` is written in the condition; otherwise all of `a` may be read. */
  private index(node: CelNode, scope: Scope): Estimate {
    const [object, key] = Array.isArray(node.args) ? node.args : [];
    if (!isNode(object) || !isNode(key)) throw unsupported(node);
    const fixed = key.op === 'value' ? fixedKey(key.args) : undefined;
    const left = fixed === undefined ? this.value(object, scope) : this.estimate(object, scope);
    const index = this.value(key, scope);
    const path =
      fixed !== undefined && left.path !== undefined
        ? { root: left.path.root, path: [...left.path.path, fixed] }
        : undefined;
    return { ...combine(NODE, left.size.entry ?? SCALAR, [left, index]), path };
  }

  private binary(node: CelNode, scope: Scope): Estimate {
    const [first, second] = Array.isArray(node.args) ? node.args : [];
    if (!isNode(first) || !isNode(second)) throw unsupported(node);
    const left = this.value(first, scope);
    const right = this.value(second, scope);
    const a = left.size;
    const b = right.size;
    switch (node.op) {
      case '&&':
      case '||':
      case '-':
      case '*':
      case '/':
      case '%':
        return combine(NODE, SCALAR, [left, right]);
      case '<':
      case '<=':
      case '>':
      case '>=':
        return combine(NODE + PER_CHARACTER * Math.min(a.chars, b.chars), SCALAR, [left, right]);
      case '==':
      case '!=':
        return combine(NODE + Math.min(a.deep, b.deep), SCALAR, [left, right]);
      case 'in': {
        // Each entry is compared with the value; all the comparisons together walk at most the
        // whole list (a call's values count against `maxValues` together).
        const compare = Math.min(b.deep, b.entries * Math.min(a.deep, b.entry?.deep ?? 1));
        return combine(NODE + b.entries + compare, SCALAR, [left, right], {
          loops: [],
          work: `in over ${entries(b.entries)}`,
        });
      }
      case '+': {
        const sum: Size = {
          chars: a.chars + b.chars,
          entries: a.entries + b.entries,
          entry: a.entry && b.entry ? union(a.entry, b.entry) : (a.entry ?? b.entry),
          deep: a.deep + b.deep,
        };
        const copy = PER_CHARACTER * sum.chars + sum.entries;
        return combine(NODE + copy, sum, [left, right]);
      }
      default:
        throw unsupported(node);
    }
  }

  private comprehension(name: string, node: CelNode, scope: Scope): Estimate {
    const loop = comprehensionOf(node);
    if (loop === undefined) throw unsupported(node);
    const iterable = this.value(loop.iterable, scope);
    const init = this.value(loop.init, scope);
    const outer = this.accumulator;
    const accumulator: Accumulator = { pushed: undefined };
    this.accumulator = accumulator;
    const element = iterable.size.entry ?? SCALAR;
    const step = this.value(loop.step, new Map(scope).set(loop.iterVarName, element));
    this.accumulator = outer;
    const iterations = iterable.size.entries;
    const loops = iterations * (step.cost + NODE);
    const size =
      name === 'map' || name === 'filter'
        ? listOf(iterations, accumulator.pushed ?? element)
        : SCALAR;
    const own = { loops: [{ name, entries: iterations }, ...step.why.loops], work: step.why.work };
    const cost = NODE + iterable.cost + init.cost + loops;
    const why = loops >= Math.max(iterable.cost, init.cost) ? own : heaviest([iterable, init]).why;
    return { cost, size, why };
  }

  private call(node: CelNode, scope: Scope): Estimate {
    const call = callOf(node);
    if (call === undefined) throw unsupported(node);
    if (call.name === 'has' && node.meta.macro !== undefined) {
      // `has(args.a.b)` looks the path up, one step a key, whatever its value's size.
      return { cost: CALL + NODE * pathLength(call.args[0]), size: SCALAR, why: { loops: [] } };
    }
    const receiver = call.receiver === undefined ? undefined : this.value(call.receiver, scope);
    const args = call.args.map((arg) => this.value(arg, scope));
    const all = receiver === undefined ? args : [receiver, ...args];
    const subject = all[0]?.size ?? SCALAR;
    const other = all[1]?.size ?? SCALAR;
    const scan = (size: Size) => PER_CHARACTER * size.chars;
    const reading = (chars: number, name: string, size: Size, extra = 0): Estimate =>
      combine(CALL + extra + PER_CHARACTER * chars, size, all, {
        loops: [],
        work: `${name}() on a string of up to ${count(chars)} characters`,
      });
    switch (call.name) {
      case MATCHES_LITERAL:
      case MATCHES_DYNAMIC:
        return this.matches(call, subject, other, all);
      case 'contains':
      case 'indexOf':
      case 'lastIndexOf':
        return reading(subject.chars + other.chars, call.name, SCALAR);
      case 'startsWith':
      case 'endsWith':
        return combine(CALL + scan(other), SCALAR, all);
      case 'lowerAscii':
      case 'upperAscii':
      case 'trim':
      case 'substring':
        return reading(subject.chars, call.name, stringOf(subject.chars));
      case 'split':
        return reading(
          subject.chars,
          call.name,
          listOf(subject.chars + 1, stringOf(subject.chars)),
          subject.chars,
        );
      case 'join': {
        const each = (subject.entry?.chars ?? 0) + other.chars;
        const length = subject.entries * each;
        return reading(length, call.name, stringOf(length), subject.entries);
      }
      case 'size':
        return combine(CALL + scan(subject) + subject.entries, SCALAR, all);
      case 'string':
      case 'bytes':
      case 'hex':
      case 'base64':
        return reading(subject.chars, call.name, stringOf(Math.max(32, 4 * subject.chars)));
      case 'json': {
        const parsed = unknownOf(subject.chars);
        return reading(subject.chars, call.name, parsed, subject.chars);
      }
      case 'dyn':
        return combine(CALL, subject, all);
      case DURATION_BOUNDED:
        return combine(CALL + PER_CHARACTER * MAX_DURATION_LENGTH, SCALAR, all);
      case 'bool':
      case 'int':
      case 'uint':
      case 'double':
      case 'timestamp':
        return combine(CALL + scan(subject), SCALAR, all);
      case 'getDate':
      case 'getDayOfMonth':
      case 'getDayOfWeek':
      case 'getDayOfYear':
      case 'getFullYear':
      case 'getHours':
      case 'getMilliseconds':
      case 'getMinutes':
      case 'getMonth':
      case 'getSeconds':
        // With a time zone, the library converts through `toLocaleString`: 0.1-0.2 ms a call.
        if (args.length === 0) return combine(CALL, SCALAR, all);
        return combine(CALL + TIME_ZONE, SCALAR, all, {
          loops: [],
          work: `${call.name}() with a time zone`,
        });
      case 'type':
      case 'at':
        return combine(CALL, SCALAR, all);
      default:
        throw new Unestimable(
          `the cost of ${call.name}() is not known, so the condition cannot be bounded`,
        );
    }
  }

  private matches(
    call: NonNullable<ReturnType<typeof callOf>>,
    text: Size,
    pattern: Size,
    all: Estimate[],
  ): Estimate {
    let program: number = CONDITION_LIMITS.maxDynamicPatternSize;
    let shown = `a pattern from the call (up to ${program} RE2 instructions)`;
    const written = call.args[0];
    if (call.name === MATCHES_LITERAL) {
      // Only `matches` with a string written in the condition is renamed to this function; the
      // name written by hand over another argument would escape the bound on a call's pattern.
      if (written?.op !== 'value' || typeof written.args !== 'string') {
        throw new Unestimable(`${MATCHES_LITERAL}() takes a pattern written in the condition`);
      }
      const compiled = compileLiteralPattern(written.args);
      if (!compiled.ok) throw new Unestimable(compiled.error);
      program = compiled.size;
      shown = `a pattern of ${program} RE2 instructions`;
    }
    // Compiling a pattern the call supplied: about a step a character (it is cached after).
    const compiling = call.name === MATCHES_DYNAMIC ? pattern.chars : 0;
    return combine(CALL + compiling + program * (text.chars + 1), SCALAR, all, {
      loops: [],
      work: `matches() with ${shown} on a string of up to ${count(text.chars)} characters`,
    });
  }
}

/**
 * A node's estimate from its own work and its parts': the costliest of them names why, unless the
 * node's own work (`work` given) costs more.
 */
function combine(own: number, size: Size, parts: readonly Estimate[], work?: Why): Estimate {
  let cost = own;
  for (const part of parts) cost += part.cost;
  const heaviestPart = parts.length > 0 ? heaviest(parts) : undefined;
  const why =
    work !== undefined && (heaviestPart === undefined || own >= heaviestPart.cost)
      ? work
      : (heaviestPart?.why ?? { loops: [] });
  return { cost, size, why };
}

function heaviest(parts: readonly Estimate[]): Estimate {
  return parts.reduce((a, b) => (b.cost > a.cost ? b : a));
}

function pathLength(node: CelNode | undefined): number {
  let length = 1;
  for (let part = node; part?.op === '.' && Array.isArray(part.args); length += 1) {
    const object: unknown = part.args[0];
    part = isNode(object) ? object : undefined;
  }
  return length;
}

function unionAll(parts: readonly Estimate[]): Size {
  return (
    parts.reduce<Size | undefined>((a, b) => (a ? union(a, b.size) : b.size), undefined) ?? SCALAR
  );
}

function fixedKey(value: unknown): string | number | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'bigint' || typeof value === 'number') return Number(value);
  return undefined;
}

function describe(why: Why): string {
  const work = why.work ?? 'the expression itself';
  if (why.loops.length === 0) return work;
  const names = [...new Set(why.loops.map((loop) => `${loop.name}()`))].join('/');
  const most = Math.max(...why.loops.map((loop) => loop.entries));
  const loops =
    why.loops.length === 1
      ? `${names} over ${entries(most)}`
      : `${why.loops.length} nested ${names} over ${entries(most)} each`;
  return why.work === undefined ? loops : `${work}, inside ${loops}`;
}

function entries(n: number): string {
  return n === 1 ? 'a list of 1 entry' : `lists of up to ${count(n)} entries`;
}

function unsupported(node: CelNode): Unestimable {
  return new Unestimable(`the cost of an expression of kind ${node.op} cannot be bounded`);
}
