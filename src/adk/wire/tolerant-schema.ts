import { z } from 'zod';

/**
 * Schema pieces that accept every ADK flavour's spelling of the same thing, and zod issues as
 * `path: problem` lines (paths only: values never appear in messages).
 */

/** Copies snake_case keys to their camelCase names (camelCase wins when both are present). */
export function withAliases<T extends z.ZodType>(aliases: Record<string, string>, schema: T) {
  return z.preprocess((input) => {
    if (typeof input !== 'object' || input === null || Array.isArray(input)) return input;
    let renamed: Record<string, unknown> | undefined;
    for (const [snake, camel] of Object.entries(aliases)) {
      if (Object.hasOwn(input, snake) && !Object.hasOwn(input, camel)) {
        renamed ??= { ...input };
        renamed[camel] = Reflect.get(input, snake);
      }
    }
    return renamed ?? input;
  }, schema);
}

/** Absent and `null` mean the same (Python omits `None`, other servers may send `null`). */
export function absentable<T extends z.ZodType>(schema: T) {
  return schema.nullish().transform((value) => value ?? undefined);
}

/** Epoch milliseconds (JS) or float seconds (Python), always returned as epoch milliseconds. */
export const epochMsSchema = z
  .number()
  .transform((value) => (value < 100_000_000_000 ? Math.round(value * 1000) : value));

/** `content.parts[0].functionCall.id: Invalid input: expected string, received number` */
export function formatIssues(issues: readonly z.core.$ZodIssue[], base = ''): string[] {
  return issues.map((issue) => {
    const path = formatPath(issue.path);
    const at = base === '' ? path || '(root)' : path === '' ? base : `${base}.${path}`;
    return `${at}: ${issue.message}`;
  });
}

function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out === '' ? String(key) : `.${String(key)}`;
  }
  return out;
}
