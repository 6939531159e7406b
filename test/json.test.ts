import { describe, expect, it } from 'vitest';
import { isJsonValue, JSON_MAX_DEPTH, jsonObjectSchema, jsonValueSchema } from '../src/json.js';

/** `depth` arrays, one inside the other, around a 1. */
function nested(depth: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = [value];
  return value;
}

describe('JSON values', () => {
  it('accepts what JSON.parse can give', () => {
    const value = JSON.parse(
      '{"a":null,"b":true,"c":-1.5e3,"d":"x","e":[1,"y",{"f":[]}],"g":{},"__proto__":{"h":1}}',
    );
    expect(isJsonValue(value)).toBe(true);
    expect(jsonValueSchema.parse(value)).toBe(value);
    expect(jsonObjectSchema.parse(value)).toBe(value);
    expect(isJsonValue(Object.create(null))).toBe(true);
  });

  it('refuses what JSON cannot hold, naming the problem', () => {
    const refused: unknown[] = [
      Number.NaN,
      Number.POSITIVE_INFINITY,
      undefined,
      () => 1,
      Symbol('s'),
      10n,
      new Date(0),
      new Map(),
      { a: undefined },
      [1, { b: Number.NaN }],
      // biome-ignore lint/suspicious/noSparseArray: a hole is what is refused here
      [1, , 2],
    ];
    for (const value of refused) expect(isJsonValue(value), String(value)).toBe(false);
    const parsed = jsonValueSchema.safeParse({ when: new Date(0) });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.message).toBe('not a JSON value');
  });

  it('takes only objects as JSON objects', () => {
    for (const value of [[], 'text', 1, null]) {
      const parsed = jsonObjectSchema.safeParse(value);
      expect(parsed.success).toBe(false);
      expect(parsed.error?.issues[0]?.message).toBe('not a JSON object');
    }
  });

  it('refuses values nested deeper than the limit, and a cycle, without exhausting the stack', () => {
    expect(isJsonValue(nested(JSON_MAX_DEPTH))).toBe(true);
    expect(isJsonValue(nested(JSON_MAX_DEPTH + 1))).toBe(false);
    const deep = jsonValueSchema.safeParse(nested(100_000));
    expect(deep.error?.issues[0]?.message).toBe(`nested deeper than ${JSON_MAX_DEPTH} levels`);
    const deepObject = jsonObjectSchema.safeParse({ v: nested(100_000) });
    expect(deepObject.error?.issues[0]?.message).toBe(
      `nested deeper than ${JSON_MAX_DEPTH} levels`,
    );
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(isJsonValue(cycle)).toBe(false);
  });
});
