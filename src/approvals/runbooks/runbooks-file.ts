import { createHash } from 'node:crypto';
import { z } from 'zod';
import { parseDuration } from '../policy/duration.js';
import { compileGlob, type Glob } from '../policy/glob.js';
import { parseYamlFile, readConfigText } from '../yaml-file.js';
import { type AlertFacts, compilePromptTemplate, type PromptTemplate } from './prompt-template.js';

/**
 * The runbooks file (`RUNBOOKS_FILE`, YAML or JSON): which alerts start which agent, with what
 * prompt, in which channel, and how long a resolved alert must stay quiet before its run is
 * stood down. Read like the policy file: every problem at once, as `file:line:col key.path: what
 * is wrong`.
 *
 * ```yaml
 * runbooks:
 *   - name: restart-stuck-consumer
 *     match: { alertname: ConsumerStuck, service: "payments-*" }
 *     app: ops
 *     channel: C0123INCIDENTS
 *     prompt: "restart {{labels.service}}: {{annotations.summary}}"
 *     standDownAfter: 5m
 * ```
 */

export interface Runbook {
  name: string;
  /** Label name → the value or glob it must have; an alert without the label does not match. */
  match: ReadonlyMap<string, Glob>;
  app: string;
  channel: string;
  prompt: PromptTemplate;
  standDownAfterMs: number;
}

export interface Runbooks {
  source: string;
  /** SHA-256 of the file's text: a reload that changed nothing is told apart. */
  version: string;
  runbooks: readonly Runbook[];
}

/** Alertmanager's default `group_interval`: a resolve quieter than that is not a flap. */
export const DEFAULT_STAND_DOWN_AFTER_MS = 5 * 60_000;

export class RunbooksError extends Error {
  override readonly name = 'RunbooksError';
  constructor(
    readonly source: string,
    readonly problems: readonly string[],
  ) {
    super(
      `Invalid runbooks file ${source} (${problems.length} ${problems.length === 1 ? 'problem' : 'problems'}):\n${problems.map((p) => `  ${p}`).join('\n')}`,
    );
  }
}

const runbookSchema = z.strictObject({
  name: z
    .string()
    .regex(/^[A-Za-z0-9_.-]{1,64}$/, 'expected 1–64 letters, digits, "_", "." or "-"'),
  match: z.record(
    z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'expected a label name'),
    z.string({ error: 'expected a label value or glob (a string)' }),
  ),
  app: z.string().regex(/^[A-Za-z0-9_.-]{1,128}$/, 'expected an agent app name'),
  channel: z.string().regex(/^[CG][A-Z0-9]{2,}$/, 'expected a Slack channel id'),
  prompt: z.string().min(1, 'expected the prompt the agent is given'),
  standDownAfter: z.string().optional(),
});

const fileSchema = z.strictObject({ runbooks: z.array(runbookSchema) });

/** An empty set: no file configured, every alert matches nothing. */
export function noRunbooks(): Runbooks {
  return { source: '(none)', version: 'none', runbooks: [] };
}

export async function loadRunbooksFile(path: string): Promise<Runbooks> {
  const read = await readConfigText(path, 'the runbooks file');
  if (!read.ok) throw new RunbooksError(path, [read.problem]);
  return parseRunbooks(read.text, path);
}

/** Throws a `RunbooksError` naming every problem with its line and column. */
export function parseRunbooks(text: string, source: string): Runbooks {
  const parsed = parseYamlFile(text, source, fileSchema);
  if (!parsed.ok) throw new RunbooksError(source, parsed.problems);
  const { at } = parsed;
  const problems: string[] = [];
  const names = new Set<string>();
  const runbooks = parsed.data.runbooks.flatMap((entry, index): Runbook[] => {
    const here = (key: PropertyKey, ...rest: PropertyKey[]) => ['runbooks', index, key, ...rest];
    if (names.has(entry.name)) problems.push(at(here('name'), 'a second runbook of this name'));
    names.add(entry.name);
    const match = new Map<string, Glob>();
    for (const [label, pattern] of Object.entries(entry.match)) {
      const glob = compileGlob(pattern);
      if (glob.ok) match.set(label, glob.glob);
      else problems.push(at(here('match', label), glob.error));
    }
    const prompt = compilePromptTemplate(entry.prompt);
    if (!prompt.ok) problems.push(at(here('prompt'), prompt.error));
    const standDown =
      entry.standDownAfter === undefined
        ? { ok: true as const, ms: DEFAULT_STAND_DOWN_AFTER_MS }
        : parseDuration(entry.standDownAfter);
    if (!standDown.ok) problems.push(at(here('standDownAfter'), standDown.error));
    if (!prompt.ok || !standDown.ok) return [];
    return [
      {
        name: entry.name,
        match,
        app: entry.app,
        channel: entry.channel,
        prompt: prompt.template,
        standDownAfterMs: standDown.ms,
      },
    ];
  });
  if (problems.length > 0) throw new RunbooksError(source, problems);
  return { source, version: createHash('sha256').update(text).digest('hex'), runbooks };
}

/** The first runbook whose every `match` entry the alert's labels meet. */
export function runbookFor(
  runbooks: Runbooks,
  alert: Pick<AlertFacts, 'labels'>,
): Runbook | undefined {
  return runbooks.runbooks.find((runbook) =>
    [...runbook.match].every(([label, glob]) => {
      const value = alert.labels[label];
      return value !== undefined && glob.test(value);
    }),
  );
}
