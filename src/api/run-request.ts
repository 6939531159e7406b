import { z } from 'zod';
import { formatIssues } from '../adk/wire/tolerant-schema.js';
import { startedBySchema } from '../approvals/started-runs.js';

/**
 * The body of `POST /v1/runs`, parsed at the edge: the agent app, what it is asked (a prompt, or
 * a template and its variables), the channel its thread starts in, who or what started it.
 * Problems name a field, never a value.
 */

const stringMap = z
  .record(z.string().min(1).max(100), z.string().max(10_000))
  .refine((map) => Object.keys(map).length <= 100, 'expected at most 100 entries');

export const runRequestSchema = z
  .strictObject({
    app: z.string().min(1).max(200),
    prompt: z.string().min(1).max(20_000).optional(),
    template: z.string().min(1).max(20_000).optional(),
    variables: stringMap.optional(),
    channel: z.string().regex(/^[CG][A-Z0-9]{2,}$/, 'expected a Slack channel id'),
    startedBy: startedBySchema,
    dedupeKey: z.string().min(1).max(500).optional(),
    source: z.enum(['api', 'alert']).optional(),
    labels: stringMap.optional(),
  })
  .superRefine((body, ctx) => {
    if ((body.prompt === undefined) === (body.template === undefined)) {
      ctx.addIssue({ code: 'custom', path: ['prompt'], message: 'expected prompt or template' });
    }
    if (body.variables !== undefined && body.template === undefined) {
      ctx.addIssue({ code: 'custom', path: ['variables'], message: 'only with template' });
    }
  });

export type RunRequest = z.infer<typeof runRequestSchema> & { prompt: string };

/** `{{name}}` placeholders; names as in `variables`. */
const PLACEHOLDER = /\{\{\s*([A-Za-z0-9_.-]+)\s*\}\}/g;

export function parseRunRequest(
  value: unknown,
): { kind: 'valid'; request: RunRequest } | { kind: 'invalid'; problems: string[] } {
  const parsed = runRequestSchema.safeParse(value);
  if (!parsed.success) return { kind: 'invalid', problems: formatIssues(parsed.error.issues) };
  const body = parsed.data;
  if (body.template === undefined) {
    return { kind: 'valid', request: { ...body, prompt: body.prompt ?? '' } };
  }
  const filled = fillTemplate(body.template, body.variables ?? {});
  if (filled.kind === 'missing') {
    return {
      kind: 'invalid',
      problems: filled.names.map((name) => `variables.${name}: missing (used in template)`),
    };
  }
  return { kind: 'valid', request: { ...body, prompt: filled.text } };
}

/** Fills every `{{name}}`; a name with no variable is reported, never left or emptied. */
export function fillTemplate(
  template: string,
  variables: Readonly<Record<string, string>>,
): { kind: 'filled'; text: string } | { kind: 'missing'; names: string[] } {
  const missing = new Set<string>();
  const text = template.replace(PLACEHOLDER, (_all, name: string) => {
    if (Object.hasOwn(variables, name)) return variables[name] ?? '';
    missing.add(name);
    return '';
  });
  return missing.size === 0 ? { kind: 'filled', text } : { kind: 'missing', names: [...missing] };
}
