import { readdir, readFile } from 'node:fs/promises';
import { dirname, join, normalize, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));
const WALK_HEADING = '## From a click to the agent';

/** The files of the numbered walk in docs/architecture.md: each step's first `src/…` path. */
async function walk(): Promise<string[]> {
  const text = await readFile(join(REPO_ROOT, 'docs/architecture.md'), 'utf8');
  const start = text.indexOf(WALK_HEADING);
  if (start < 0) throw new Error(`docs/architecture.md has no "${WALK_HEADING}" section`);
  const rest = text.slice(start + WALK_HEADING.length);
  const end = rest.indexOf('\n## ');
  const section = end < 0 ? rest : rest.slice(0, end);
  return section
    .split('\n')
    .filter((line) => /^\d+\. /.test(line))
    .map((line) => {
      const path = /`(src\/[^`]+\.ts)`/.exec(line)?.[1];
      if (path === undefined) throw new Error(`a step names no src/ file: ${line}`);
      return path;
    });
}

/** The repository paths a module imports (type-only imports included), relative ones resolved. */
async function importsOf(path: string): Promise<Set<string>> {
  const text = await readFile(join(REPO_ROOT, path), 'utf8');
  const { importedFiles } = ts.preProcessFile(text, true, true);
  return new Set(
    importedFiles
      .map(({ fileName }) => fileName)
      .filter((name) => name.startsWith('.'))
      .map((name) => normalize(join(dirname(path), name.replace(/\.js$/, '.ts')))),
  );
}

async function lineCount(path: string): Promise<number> {
  return (await readFile(join(REPO_ROOT, path), 'utf8')).split('\n').length;
}

describe('the way from a click to the agent (docs/architecture.md)', () => {
  it('goes from a listener to the ADK client', async () => {
    const files = await walk();
    expect(files.length).toBeGreaterThanOrEqual(5);
    expect(files[0]).toMatch(/^src\/listeners\//);
    expect(files.at(-1)).toBe('src/adk/client.ts');
  });

  it('follows imports: each step is imported by the step before it', async () => {
    const files = await walk();
    const notImported: string[] = [];
    for (const [index, file] of files.entries()) {
      const next = files[index + 1];
      if (next !== undefined && !(await importsOf(file)).has(next)) {
        notImported.push(`${file} does not import ${next}`);
      }
    }
    expect(notImported).toEqual([]);
  });
});

/** Closures in the object arguments of `new …(…)` (spreads included, not inside other functions). */
function closuresHandedIn(path: string, text: string): string[] {
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const inArgument = (node: ts.Node): void => {
    if (ts.isArrowFunction(node) || ts.isFunctionExpression(node)) return;
    if (ts.isObjectLiteralExpression(node)) {
      for (const property of node.properties) {
        const handed =
          ts.isMethodDeclaration(property) ||
          (ts.isPropertyAssignment(property) &&
            (ts.isArrowFunction(property.initializer) ||
              ts.isFunctionExpression(property.initializer)));
        if (handed) found.push(`${path}: ${property.name?.getText(source)}`);
      }
    }
    ts.forEachChild(node, inArgument);
  };
  const visit = (node: ts.Node): void => {
    if (ts.isNewExpression(node)) for (const argument of node.arguments ?? []) inArgument(argument);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('the workflow façade', () => {
  it('is imported by no part of the workflow but the composition', async () => {
    const dir = 'src/workflow';
    const callers: string[] = [];
    for (const name of await readdir(join(REPO_ROOT, dir))) {
      const path = `${dir}/${name}`;
      if (!name.endsWith('.ts') || name === 'compose.ts') continue;
      if ((await importsOf(path)).has(`${dir}/approval-workflow.ts`)) callers.push(path);
    }
    expect(callers).toEqual([]);
  });

  it('and the composition hand no part a closure: what a part calls is a named port', async () => {
    const closures: string[] = [];
    for (const path of ['src/workflow/compose.ts', 'src/workflow/approval-workflow.ts']) {
      closures.push(...closuresHandedIn(path, await readFile(join(REPO_ROOT, path), 'utf8')));
    }
    expect(closures).toEqual([]);
  });

  it('stays small: approval-workflow.ts within 300 lines, every workflow file within 500', async () => {
    const dir = 'src/workflow';
    const long: string[] = [];
    for (const name of await readdir(join(REPO_ROOT, dir))) {
      const path = `${dir}/${name}`;
      const lines = await lineCount(path);
      if (lines > (name === 'approval-workflow.ts' ? 300 : 500)) long.push(`${path}: ${lines}`);
    }
    expect(long).toEqual([]);
  });
});

/** Every `.ts` file under `dir`, as repository paths. */
async function sourcesUnder(dir: string): Promise<string[]> {
  const found = await readdir(join(REPO_ROOT, dir), { recursive: true, withFileTypes: true });
  return found
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => relative(REPO_ROOT, join(entry.parentPath, entry.name)).split(sep).join('/'));
}

describe("the store's roles (docs/architecture.md)", () => {
  it('are taken one by one: only the wiring and the composition hold the whole ApprovalStore', async () => {
    const whole: string[] = [];
    for (const path of await sourcesUnder('src')) {
      if (path.startsWith('src/approvals/store')) continue;
      const text = await readFile(join(REPO_ROOT, path), 'utf8');
      // A type position naming the bundle itself, not a `Pick` of some of its roles.
      if (/:\s*(Promise<)?ApprovalStore\b/.test(text)) whole.push(path);
    }
    expect(whole.sort()).toEqual([
      'src/cli/commands.ts',
      'src/open-stores.ts',
      'src/workflow/compose.ts',
    ]);
  });

  it('leave every file of src/ within 500 lines', async () => {
    const long: string[] = [];
    for (const path of await sourcesUnder('src')) {
      const lines = await lineCount(path);
      if (lines > 500) long.push(`${path}: ${lines}`);
    }
    expect(long).toEqual([]);
  });
});
