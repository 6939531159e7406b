import { z } from 'zod';
import { formatIssues } from '../adk/wire/tolerant-schema.js';
import type { AuditQuery } from '../approvals/audit-export.js';

/** Entries per export call when `limit` is not given, and at most. */
export const AUDIT_DEFAULT_LIMIT = 10_000;
export const AUDIT_MAX_LIMIT = 100_000;

/** An instant as ISO 8601 (`2026-11-25T00:00:00Z`) or Unix milliseconds. */
const instant = z.string().transform((text, ctx) => {
  const ms = /^\d+$/.test(text) ? Number(text) : Date.parse(text);
  if (Number.isFinite(ms)) return ms;
  ctx.addIssue({ code: 'custom', message: 'expected an ISO 8601 time or Unix milliseconds' });
  return z.NEVER;
});

const querySchema = z.strictObject({
  since: instant.optional(),
  until: instant.optional(),
  app: z.string().min(1).max(200).optional(),
  tool: z.string().min(1).max(200).optional(),
  decider: z.string().min(1).max(200).optional(),
  cursor: z
    .string()
    .regex(/^\d+-\d+(\.\d+)?$/, 'expected the nextCursor of an earlier export')
    .optional(),
  limit: z
    .string()
    .regex(/^\d+$/, 'expected a whole number')
    .transform(Number)
    .pipe(z.number().min(1).max(AUDIT_MAX_LIMIT))
    .optional(),
});

export type ParsedAuditQuery = { ok: true; query: AuditQuery } | { ok: false; problems: string[] };

/** `GET /v1/audit`'s query string, parsed at the edge; problems name the parameter. */
export function parseAuditQuery(search: URLSearchParams): ParsedAuditQuery {
  const parsed = querySchema.safeParse(Object.fromEntries(search));
  if (!parsed.success) return { ok: false, problems: formatIssues(parsed.error.issues) };
  const { limit, ...rest } = parsed.data;
  const query: AuditQuery = { limit: limit ?? AUDIT_DEFAULT_LIMIT };
  for (const [name, value] of Object.entries(rest)) {
    if (value !== undefined) Object.assign(query, { [name]: value });
  }
  return { ok: true, query };
}
