import { readFile } from 'node:fs/promises';
import { type Document, LineCounter, parseDocument } from 'yaml';
import { z } from 'zod';
import { positionOf } from './policy/yaml-position.js';

/**
 * Reading a configuration file as the policy reads its own (YAML, or JSON, which the YAML parser
 * reads too and so gives positions for): its text, checked by a zod schema, every problem at
 * once as `file:line:col key.path: what is wrong`, never a value. The API keys and runbooks files
 * are read so.
 */

export type YamlFileResult<T> =
  | {
      ok: true;
      data: T;
      /** `file:line:col key.path: message`, for problems found after the schema. */
      at(path: readonly PropertyKey[], message: string): string;
    }
  | { ok: false; problems: string[] };

/** The file's text, or the one problem of a file that cannot be read (`what`: "the runbooks file"). */
export async function readConfigText(
  path: string,
  what: string,
): Promise<{ ok: true; text: string } | { ok: false; problem: string }> {
  try {
    return { ok: true, text: await readFile(path, 'utf8') };
  } catch (error) {
    const code = z.object({ code: z.string() }).safeParse(error);
    return {
      ok: false,
      problem: `${path}: cannot read ${what} (${code.success ? code.data.code : 'unreadable'})`,
    };
  }
}

/** The document and its line counter, parsed strictly: keys given twice are errors. */
export function parseYamlDocument(text: string): { doc: Document; lineCounter: LineCounter } {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, {
    lineCounter,
    prettyErrors: false,
    uniqueKeys: true,
    // Plain data only: a tag such as !!binary would turn a value into a Buffer or a Date.
    resolveKnownTags: false,
  });
  return { doc, lineCounter };
}

export function parseYamlFile<T>(
  text: string,
  source: string,
  schema: z.ZodType<T>,
): YamlFileResult<T> {
  const { doc, lineCounter } = parseYamlDocument(text);
  const at = (path: readonly PropertyKey[], message: string) => {
    const { line, col } = positionOf(doc, lineCounter, path);
    const key = path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('');
    return `${source}:${line}:${col} ${key.replace(/^\./, '')}${key === '' ? '' : ': '}${message}`;
  };
  const syntax = [...doc.errors, ...doc.warnings];
  if (syntax.length > 0) {
    return {
      ok: false,
      problems: syntax.map((problem) => {
        const { line, col } = lineCounter.linePos(problem.pos[0]);
        return `${source}:${line}:${col} ${problem.message}`;
      }),
    };
  }
  const parsed = schema.safeParse(doc.toJS({ maxAliasCount: 100 }));
  if (!parsed.success) {
    return {
      ok: false,
      problems: parsed.error.issues.map((issue) =>
        issue.code === 'unrecognized_keys'
          ? at(issue.path, `unknown key(s) ${issue.keys.join(', ')}`)
          : at(issue.path, issue.message),
      ),
    };
  }
  return { ok: true, data: parsed.data, at };
}
