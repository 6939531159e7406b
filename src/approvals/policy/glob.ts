/**
 * App and tool name patterns: `*` (any run of characters, none included), `?` (one character),
 * `{a,b}` (either alternative, may nest), `\` before a character to take it literally. A pattern
 * matches the whole name, case-sensitively: `restart_*` does not match `force_restart_api`.
 */
export interface Glob {
  readonly pattern: string;
  /** True when the pattern matches every name (`*`), so later rules could never be reached. */
  readonly matchesEverything: boolean;
  test(name: string): boolean;
}

export type GlobResult = { ok: true; glob: Glob } | { ok: false; error: string };

export function compileGlob(pattern: string): GlobResult {
  if (pattern === '')
    return { ok: false, error: 'an empty pattern matches nothing; use "*" for any' };
  let source = '';
  let depth = 0;
  const chars = Array.from(pattern);
  for (let i = 0; i < chars.length; i++) {
    const char = chars[i] ?? '';
    if (char === '\\') {
      const next = chars[i + 1];
      if (next === undefined) return { ok: false, error: `pattern "${pattern}" ends with "\\"` };
      source += escapeForRegExp(next);
      i++;
    } else if (char === '*') source += '.*';
    else if (char === '?') source += '.';
    else if (char === '{') {
      depth++;
      source += '(?:';
    } else if (char === '}') {
      if (depth === 0) return { ok: false, error: `pattern "${pattern}" has a "}" without "{"` };
      depth--;
      source += ')';
    } else if (char === ',' && depth > 0) source += '|';
    else source += escapeForRegExp(char);
  }
  if (depth > 0) return { ok: false, error: `pattern "${pattern}" has a "{" without "}"` };
  const regExp = new RegExp(`^${source}$`, 'u');
  return {
    ok: true,
    glob: {
      pattern,
      matchesEverything: /^\*+$/.test(pattern),
      test: (name) => regExp.test(name),
    },
  };
}

function escapeForRegExp(char: string): string {
  // Only syntax characters may be escaped in a `u` regular expression (`\-` is an error there).
  return /[\\^$.*+?()[\]{}|/]/.test(char) ? `\\${char}` : char;
}
