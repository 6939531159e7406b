import type { JsonValue } from '../../../json.js';

/**
 * Whether an edited JSON value keeps the shape of the payload template the tool sent: the same
 * type at every path, objects with the same keys. A `null` in the template says nothing about
 * the type the tool wants there, so anything goes in its place. Array items must match the
 * template's items (any of them, when the template mixes types); an empty template array takes
 * any items.
 */

export type JsonType = 'null' | 'boolean' | 'number' | 'string' | 'array' | 'object';

export function jsonTypeOf(value: JsonValue): JsonType {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  switch (typeof value) {
    case 'boolean':
      return 'boolean';
    case 'number':
      return 'number';
    case 'string':
      return 'string';
    default:
      return 'object';
  }
}

function article(type: JsonType): string {
  return type === 'array' || type === 'object' ? `an ${type}` : `a ${type}`;
}

/** A key as it appears in messages: quoted, and cut when long (keys can be any string). */
function quoteKey(key: string): string {
  const quoted = JSON.stringify(key);
  return quoted.length > 42 ? `${quoted.slice(0, 40)}…"` : quoted;
}

/** `.items[2].name`, and `["odd key"]` for keys that are not identifiers. */
export function pathStep(path: string, key: string | number): string {
  if (typeof key === 'number') return `${path}[${key}]`;
  return /^[A-Za-z_$][\w$]{0,40}$/.test(key) ? `${path}.${key}` : `${path}[${quoteKey(key)}]`;
}

function isObject(value: JsonValue): value is { [key: string]: JsonValue } {
  return jsonTypeOf(value) === 'object';
}

/** The first difference in shape, as "at <path>: expected …", or `undefined` when it matches. */
export function shapeMismatch(
  template: JsonValue,
  value: JsonValue,
  path = '',
): string | undefined {
  const where = path === '' ? 'the top level' : path;
  const want = jsonTypeOf(template);
  const got = jsonTypeOf(value);
  if (want === 'null') return undefined;
  if (want !== got) return `At ${where}: expected ${article(want)}, got ${article(got)}`;
  if (Array.isArray(template) && Array.isArray(value)) {
    if (template.length === 0) return undefined;
    for (const [index, item] of value.entries()) {
      const problems = template.map((example) =>
        shapeMismatch(example, item, pathStep(path, index)),
      );
      if (problems.every((problem) => problem !== undefined)) return problems[0];
    }
    return undefined;
  }
  if (isObject(template) && isObject(value)) {
    for (const key of Object.keys(template)) {
      if (!Object.hasOwn(value, key)) return `At ${where}: missing key ${quoteKey(key)}`;
    }
    for (const key of Object.keys(value)) {
      if (!Object.hasOwn(template, key)) return `At ${where}: unexpected key ${quoteKey(key)}`;
    }
    for (const [key, example] of Object.entries(template)) {
      const item = value[key];
      if (item === undefined) continue;
      const problem = shapeMismatch(example, item, pathStep(path, key));
      if (problem !== undefined) return problem;
    }
  }
  return undefined;
}
