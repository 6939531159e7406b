import { z } from 'zod';

/** Any JSON value: what tool arguments, confirmation payloads and Slack payloads are made of. */
export type JsonValue =
  | null
  | boolean
  | number
  | string
  | JsonValue[]
  | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

/**
 * How deep a JSON value may nest: deeper is refused, as no tool's arguments or payload need it and
 * a walk of it could exhaust the stack.
 */
export const JSON_MAX_DEPTH = 512;

/**
 * Whether a value is JSON: null, a boolean, a finite number, a string, or arrays and plain objects
 * of them. One walk, nothing allocated: every record read from Redis and every ADK event carries
 * values of this kind, and a recursive zod union cost about 20 times as much.
 */
export function isJsonValue(value: unknown, depth = 0): value is JsonValue {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return true;
    case 'number':
      return Number.isFinite(value);
    case 'object':
      if (value === null) return true;
      if (depth >= JSON_MAX_DEPTH) return false;
      if (Array.isArray(value)) return isJsonItems(value, depth);
      return isJsonMembers(value, depth);
    default:
      return false;
  }
}

/** Every item, holes of a sparse array included (a hole is not JSON). */
function isJsonItems(items: readonly unknown[], depth: number): boolean {
  for (let i = 0; i < items.length; i++) if (!isJsonValue(items[i], depth + 1)) return false;
  return true;
}

function isPlainObject(value: unknown): value is object {
  if (typeof value !== 'object' || value === null) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

function isJsonMembers(value: object, depth: number): boolean {
  if (!isPlainObject(value)) return false;
  for (const member of Object.values(value)) if (!isJsonValue(member, depth + 1)) return false;
  return true;
}

/** Why a value that is not JSON is refused, without naming any of it. */
function jsonProblem(value: unknown, what: string): string {
  return isJsonValue(nestedAtMost(value)) ? `nested deeper than ${JSON_MAX_DEPTH} levels` : what;
}

/** The value with whatever lies deeper than the limit cut off (null), to tell depth from kind. */
function nestedAtMost(value: unknown, depth = 0): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (depth >= JSON_MAX_DEPTH) return null;
  if (Array.isArray(value)) return value.map((item) => nestedAtMost(item, depth + 1));
  if (!isPlainObject(value)) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, member]) => [key, nestedAtMost(member, depth + 1)]),
  );
}

export const jsonValueSchema = z.custom<JsonValue>((value) => isJsonValue(value), {
  error: (issue) => jsonProblem(issue.input, 'not a JSON value'),
});
export const jsonObjectSchema = z.custom<JsonObject>(
  (value) => isPlainObject(value) && isJsonValue(value),
  {
    error: (issue) =>
      isPlainObject(issue.input)
        ? jsonProblem(issue.input, 'not a JSON object')
        : 'not a JSON object',
  },
);

export type JsonText = { ok: true; value: unknown } | { ok: false };

/**
 * JSON text to a value that still has to be parsed with a schema. Not JSON is an outcome, not an
 * exception: every caller words it for its own edge.
 */
export function parseJsonText(text: string): JsonText {
  try {
    const value: unknown = JSON.parse(text);
    return { ok: true, value };
  } catch {
    return { ok: false };
  }
}
