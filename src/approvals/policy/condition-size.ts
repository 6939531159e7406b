import { CONDITION_LIMITS } from './condition-limits.js';

/**
 * Bounds of the values a condition works on, for its cost estimate (`condition-cost.ts`): what
 * the call may send (`CONDITION_LIMITS`), and what an expression builds from it (`a + b` holds
 * both, `split` up to one entry a character).
 */

/** Steps a character read costs (cel-go's figure; measured here at 2.5 to 4 ns a character). */
export const PER_CHARACTER = 0.1;

/** Bounds of a value: a string's characters, a list's or map's entries and each entry's bounds. */
export interface Size {
  chars: number;
  entries: number;
  entry?: Size | undefined;
  /** Steps to walk all of it (equality, `in`). */
  deep: number;
}

export const SCALAR: Size = { chars: 0, entries: 0, deep: 1 };
/** Anything in `args`, `payload` or `requester`: a string, a number, a list or map of the same. */
export const CALL_VALUE: Size = {
  chars: CONDITION_LIMITS.maxStringLength,
  entries: CONDITION_LIMITS.maxEntries,
  deep: CONDITION_LIMITS.maxValues,
};
CALL_VALUE.entry = CALL_VALUE;
export const CALL_STRING: Size = stringOf(CONDITION_LIMITS.maxStringLength);

export function literalSize(value: unknown): Size {
  if (typeof value === 'string') return stringOf(value.length);
  if (value instanceof Uint8Array) return stringOf(value.length);
  return SCALAR;
}

export function stringOf(chars: number): Size {
  return { chars, entries: 0, deep: 1 + PER_CHARACTER * chars };
}

export function listOf(length: number, entry: Size): Size {
  return { chars: 0, entries: length, entry, deep: 1 + length * entry.deep };
}

/** A value of unknown shape within one bound (what `bytes.json()` parses). */
export function unknownOf(bound: number): Size {
  const size: Size = { chars: bound, entries: bound, deep: bound };
  size.entry = size;
  return size;
}

/** The bounds of a value that is one or the other; a value may hold itself (a call's values). */
export function union(a: Size, b: Size, depth = 0): Size {
  if (a === b) return a;
  const chars = Math.max(a.chars, b.chars);
  const entries = Math.max(a.entries, b.entries);
  const deep = Math.max(a.deep, b.deep);
  if (depth > 8) return unknownOf(Math.max(chars, entries, deep));
  const entry =
    a.entry && b.entry ? union(a.entry, b.entry, depth + 1) : (a.entry ?? b.entry ?? undefined);
  return { chars, entries, entry, deep };
}
