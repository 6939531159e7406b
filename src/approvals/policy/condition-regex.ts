import { RE2JS, RE2JSException } from 're2js';
import { allNodes, type CelNode, callOf } from './condition-ast.js';
import { CONDITION_LIMITS } from './condition-limits.js';
import { charge } from './condition-meter.js';

/**
 * `string.matches(pattern)` on RE2 (the `re2js` port of RE2/J): matching time is linear in the
 * text, whatever the pattern, where JavaScript's backtracking `RegExp` (what the CEL library uses)
 * takes seconds on `"a"×30 + "!"` against `^(a+)+$`. The price is RE2's syntax, which CEL's
 * specification names anyway: no backreferences, no lookaround.
 *
 * The library will not let an overload of `matches` be replaced, so each `matches` call is
 * renamed before the expression is type-checked, to one of two functions of ours: one for a
 * pattern written in the file (compiled at load, its cost known), one for a pattern the call
 * supplies (bounded in size, as the load-time estimate assumed).
 */
export const MATCHES_LITERAL = 'matches_re2';
export const MATCHES_DYNAMIC = 'matches_re2_from_call';

export type PatternResult = { ok: true; size: number } | { ok: false; error: string };

/** Patterns written in the policy file, compiled when it is loaded. */
const literalPatterns = new Map<string, RE2JS>();
/** Patterns a call supplied, most recently used last. */
const dynamicPatterns = new Map<string, RE2JS>();
const DYNAMIC_PATTERNS_KEPT = 256;

/** Points each `matches` call of a parsed (not yet checked) expression at RE2. */
export function useRe2ForMatches(root: CelNode): void {
  for (const node of allNodes(root)) {
    const call = callOf(node);
    if (call?.name !== 'matches' || call.receiver === undefined || !Array.isArray(node.args)) {
      continue;
    }
    const pattern = call.args[0];
    const literal = pattern?.op === 'value' && typeof pattern.args === 'string';
    node.args[0] = literal ? MATCHES_LITERAL : MATCHES_DYNAMIC;
  }
}

/** Error messages name the function as written. */
export function writtenName(message: string): string {
  return message.replaceAll(MATCHES_DYNAMIC, 'matches').replaceAll(MATCHES_LITERAL, 'matches');
}

/** Compiles a pattern written in the file; its RE2 program size is its cost per character. */
export function compileLiteralPattern(pattern: string): PatternResult {
  const known = literalPatterns.get(pattern);
  if (known !== undefined) return { ok: true, size: known.programSize() };
  try {
    const compiled = RE2JS.compile(pattern);
    // Patterns come from policy files: a handful, kept for the life of the process.
    if (literalPatterns.size < 10_000) literalPatterns.set(pattern, compiled);
    return { ok: true, size: compiled.programSize() };
  } catch (error) {
    return { ok: false, error: refusal(pattern, error) };
  }
}

function refusal(pattern: string, error: unknown): string {
  const why =
    error instanceof RE2JSException
      ? error.message.replace(/^error parsing regexp: /, '')
      : 'it cannot be compiled';
  const shown = pattern.length > 60 ? `${pattern.slice(0, 60)}…` : pattern;
  return `${JSON.stringify(shown)} is not an RE2 pattern: ${why} (RE2 syntax: no backreferences, no lookaround)`;
}

/** `matches` with a pattern written in the file: a search anywhere in `text`, as CEL specifies. */
export function matchesLiteral(text: string, pattern: string): boolean {
  let compiled = literalPatterns.get(pattern);
  if (compiled === undefined) {
    const result = compileLiteralPattern(pattern);
    if (!result.ok) throw new Error(result.error);
    compiled = literalPatterns.get(pattern) ?? RE2JS.compile(pattern);
  }
  return search(compiled, text);
}

/** `matches` with a pattern the call supplied. */
export function matchesDynamic(text: string, pattern: string): boolean {
  return search(dynamicPattern(pattern), text);
}

function search(compiled: RE2JS, text: string): boolean {
  charge(compiled.programSize() * (text.length + 1));
  return compiled.test(text);
}

/**
 * A pattern the call supplied (`args.s.matches(args.p)`): its cost was bounded at load by
 * `maxDynamicPatternSize`, so a larger one is refused, before compiling when its text already
 * says so (compiling `(abc|def){999}` alone takes tens of milliseconds).
 */
function dynamicPattern(pattern: string): RE2JS {
  const known = dynamicPatterns.get(pattern);
  if (known !== undefined) {
    dynamicPatterns.delete(pattern);
    dynamicPatterns.set(pattern, known);
    return known;
  }
  const limit = CONDITION_LIMITS.maxDynamicPatternSize;
  if (sizeAtMost(pattern) > 4 * limit) throw new Error(tooLarge(`more than ${limit}`));
  let compiled: RE2JS;
  try {
    compiled = RE2JS.compile(pattern);
  } catch (error) {
    throw new Error(refusal(pattern, error));
  }
  if (compiled.programSize() > limit) throw new Error(tooLarge(String(compiled.programSize())));
  dynamicPatterns.set(pattern, compiled);
  if (dynamicPatterns.size > DYNAMIC_PATTERNS_KEPT) {
    const oldest = dynamicPatterns.keys().next().value;
    if (oldest !== undefined) dynamicPatterns.delete(oldest);
  }
  return compiled;
}

function tooLarge(size: string): string {
  return `a pattern from the call compiles to ${size} RE2 instructions; one not written in the policy may have at most ${CONDITION_LIMITS.maxDynamicPatternSize}`;
}

/**
 * A generous estimate of a pattern's RE2 program size from its text alone, so that a pattern far
 * too large is refused without compiling it: each atom (a character, an escape, a class, a group)
 * counts 2, and a counted repetition `{n}` or `{n,m}` multiplies the atom before it, nested groups
 * included. What it lets through compiles in well under a millisecond; the compiled size is then
 * checked exactly.
 */
export function sizeAtMost(pattern: string): number {
  const frames = [{ total: 0, last: 0 }];
  let index = 0;
  const atom = (size: number) => {
    const frame = frames.at(-1) ?? { total: 0, last: 0 };
    frame.total += size;
    frame.last = size;
  };
  while (index < pattern.length) {
    const char = pattern[index];
    const repeat = char === '{' ? stickyAt(REPEAT, pattern, index) : null;
    if (char === '\\') {
      const braced = stickyAt(UNICODE_CLASS, pattern, index);
      index += braced ? braced[0].length : 2;
      atom(2);
    } else if (char === '[') {
      index = classEnd(pattern, index);
      atom(2);
    } else if (char === '(') {
      frames.push({ total: 0, last: 0 });
      index += 1;
    } else if (char === ')' && frames.length > 1) {
      const group = frames.pop();
      atom((group?.total ?? 0) + 2);
      index += 1;
    } else if (repeat !== null) {
      const low = Number(repeat[1]);
      const high = repeat[2] === undefined ? low : repeat[2] === '' ? low + 1 : Number(repeat[2]);
      const frame = frames.at(-1) ?? { total: 0, last: 0 };
      const times = Math.max(1, low, high);
      frame.total += frame.last * (times - 1) + times;
      frame.last *= times;
      index += repeat[0].length;
      if (frame.total > 1e9) return Number.POSITIVE_INFINITY;
    } else {
      atom(2);
      index += 1;
    }
  }
  return frames.reduce((sum, frame) => sum + frame.total, 0);
}

const REPEAT = /\{(\d+)(?:,(\d*))?\}/y;
const UNICODE_CLASS = /\\[pP]\{[^}]*\}/y;

function stickyAt(pattern: RegExp, text: string, index: number): RegExpExecArray | null {
  pattern.lastIndex = index;
  return pattern.exec(text);
}

/** The index after a character class `[...]` that starts at `start` (`[]a]` and `[^]a]` included). */
function classEnd(pattern: string, start: number): number {
  let index = start + 1;
  if (pattern[index] === '^') index += 1;
  if (pattern[index] === ']') index += 1;
  while (index < pattern.length && pattern[index] !== ']') {
    index += pattern[index] === '\\' ? 2 : 1;
  }
  return index + 1;
}
