/**
 * The primitives of the Block Kit checker: a report that collects Slack-style errors
 * (`<problem> [json-pointer:<where>]`) and field readers over untrusted JSON that report what is
 * wrong and hand back a typed value, or `undefined`, so the walk goes on and every error is found.
 */

export type JsonRecord = Record<string, unknown>;

export function isRecord(value: unknown): value is JsonRecord {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Appends a key or index to a JSON pointer (RFC 6901: `~` → `~0`, `/` → `~1`). */
export function at(pointer: string, key: string | number): string {
  return `${pointer}/${String(key).replace(/~/g, '~0').replace(/\//g, '~1')}`;
}

export class Report {
  readonly errors: string[] = [];
  /** Characters in every text object met so far: Slack caps the total for a message. */
  textChars = 0;
  /** Characters in `markdown` blocks: capped separately. */
  markdownChars = 0;

  add(problem: string, pointer: string): void {
    this.errors.push(`${problem} [json-pointer:${pointer}]`);
  }
}

interface Presence {
  required?: boolean;
}

/** Reads `obj[key]`; a missing required field is reported at the object that lacks it. */
function read(
  report: Report,
  obj: JsonRecord,
  key: string,
  pointer: string,
  { required = false }: Presence,
): unknown {
  const value = obj[key];
  if (value === undefined && required) report.add(`missing required field: ${key}`, pointer);
  return value;
}

export function readObject(
  report: Report,
  obj: JsonRecord,
  key: string,
  pointer: string,
  presence: Presence = {},
): JsonRecord | undefined {
  const value = read(report, obj, key, pointer, presence);
  if (value === undefined) return undefined;
  if (!isRecord(value)) {
    report.add('must provide an object', at(pointer, key));
    return undefined;
  }
  return value;
}

export interface StringRule extends Presence {
  min?: number;
  max?: number;
}

export function checkLength(
  report: Report,
  value: string,
  pointer: string,
  { min, max }: { min?: number | undefined; max?: number | undefined },
): void {
  if (min !== undefined && value.length < min) {
    report.add(`must be more than ${min - 1} characters`, pointer);
  }
  if (max !== undefined && value.length > max) {
    report.add(`must be less than ${max + 1} characters`, pointer);
  }
}

export function readString(
  report: Report,
  obj: JsonRecord,
  key: string,
  pointer: string,
  rule: StringRule = {},
): string | undefined {
  const value = read(report, obj, key, pointer, rule);
  if (value === undefined) return undefined;
  if (typeof value !== 'string') {
    report.add('must provide a string', at(pointer, key));
    return undefined;
  }
  checkLength(report, value, at(pointer, key), rule);
  return value;
}

export function readBoolean(
  report: Report,
  obj: JsonRecord,
  key: string,
  pointer: string,
  presence: Presence = {},
): boolean | undefined {
  const value = read(report, obj, key, pointer, presence);
  if (value === undefined) return undefined;
  if (typeof value !== 'boolean') {
    report.add('must provide a boolean', at(pointer, key));
    return undefined;
  }
  return value;
}

export function readInteger(
  report: Report,
  obj: JsonRecord,
  key: string,
  pointer: string,
  rule: Presence & { min?: number; max?: number } = {},
): number | undefined {
  const value = read(report, obj, key, pointer, rule);
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value)) {
    report.add('must provide an integer', at(pointer, key));
    return undefined;
  }
  if (rule.min !== undefined && value < rule.min) {
    report.add(`must be at least ${rule.min}`, at(pointer, key));
  }
  if (rule.max !== undefined && value > rule.max) {
    report.add(`must be at most ${rule.max}`, at(pointer, key));
  }
  return value;
}

export function readArray(
  report: Report,
  obj: JsonRecord,
  key: string,
  pointer: string,
  rule: Presence & { min?: number; max?: number } = {},
): unknown[] | undefined {
  const value = read(report, obj, key, pointer, rule);
  if (value === undefined) return undefined;
  if (!Array.isArray(value)) {
    report.add('must provide an array', at(pointer, key));
    return undefined;
  }
  if (rule.min !== undefined && value.length < rule.min) {
    report.add(`must provide at least ${rule.min} items`, at(pointer, key));
  }
  if (rule.max !== undefined && value.length > rule.max) {
    report.add(`no more than ${rule.max} items allowed`, at(pointer, key));
  }
  return value;
}

export function readEnum<T extends string>(
  report: Report,
  obj: JsonRecord,
  key: string,
  pointer: string,
  allowed: readonly T[],
  presence: Presence = {},
): T | undefined {
  const value = readString(report, obj, key, pointer, presence);
  if (value === undefined) return undefined;
  const match = allowed.find((candidate) => candidate === value);
  if (match === undefined) {
    report.add(`must be a valid enum value (${allowed.join(', ')})`, at(pointer, key));
  }
  return match;
}

/** Slack refuses properties a block or element does not define. */
export function checkKnownKeys(
  report: Report,
  obj: JsonRecord,
  pointer: string,
  known: readonly string[],
): void {
  for (const key of Object.keys(obj)) {
    if (!known.includes(key)) report.add('unsupported property', at(pointer, key));
  }
}

/** Records an id and reports it when it was already used in the same scope. */
export function checkUnique(
  report: Report,
  seen: Set<string>,
  id: string | undefined,
  pointer: string,
  scope: string,
): void {
  if (id === undefined) return;
  if (seen.has(id)) report.add(`must be unique within the ${scope}`, pointer);
  seen.add(id);
}
