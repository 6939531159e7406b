import { z } from 'zod';
import { GATE_KINDS } from '../../adk/gate.js';
import { GRANT_MAX_MS, type GrantOffer, scopeOfOffer } from '../grants.js';
import type { Approver } from '../records.js';
import { type Condition, compileCondition } from './condition.js';
import { DURATION_EXAMPLES, parseDuration } from './duration.js';
import { compileGlob, type Glob } from './glob.js';
import { payloadSchemaSchema } from './payload-schema.js';

/**
 * The policy file's shape. Every object is strict: a misspelt key (`approver:`) is an error, not
 * a setting silently left at its default. Each message says what was expected and what was found;
 * the file loader adds the file, line, column and key path.
 */

/** A zod error callback: "expected …, got <what the file says>". */
export function expected(what: string) {
  return (issue: { input?: unknown }) => `expected ${what}, got ${describeInput(issue.input)}`;
}

export function describeInput(input: unknown): string {
  if (input === undefined) return 'nothing';
  if (input === null) return 'nothing (null)';
  if (typeof input === 'string') {
    return JSON.stringify(input.length > 40 ? `${input.slice(0, 40)}…` : input);
  }
  if (Array.isArray(input)) return 'a list';
  if (typeof input === 'object') return 'a mapping';
  return String(input);
}

const USER_ID = /^[UW][A-Z0-9]{2,}$/;
const USERGROUP_ID = /^S[A-Z0-9]{2,}$/;
const CHANNEL_ID = /^[CG][A-Z0-9]{2,}$/;
const CHANNEL_APPROVERS = 'channel';

const APPROVER_WORDS = `a user id (U… or W…), a user group id (S…) or "${CHANNEL_APPROVERS}"`;

export function parseApprover(text: string): Approver | undefined {
  if (text === CHANNEL_APPROVERS) return { kind: 'channel' };
  if (USER_ID.test(text)) return { kind: 'user', id: text };
  if (USERGROUP_ID.test(text)) return { kind: 'usergroup', id: text };
  return undefined;
}

/** Ids of users, groups and channels never collide (their first letters differ). */
export function approverKey(approver: Approver): string {
  return approver.kind === 'channel' ? CHANNEL_APPROVERS : approver.id;
}

/** Mentions and names are what people paste; ids are what Slack sends with a click. */
function approverHint(text: string): string {
  const mention = /^<[@!](?:subteam\^)?([A-Z0-9]+)(?:\|[^>]*)?>$/.exec(text);
  if (mention) return ` (write the bare id ${mention[1]})`;
  if (text.startsWith('@'))
    return ' (names change and are not unique: use the id from the profile)';
  if (text.toLowerCase() === CHANNEL_APPROVERS)
    return ` (write "${CHANNEL_APPROVERS}" in lower case)`;
  return '';
}

const approverList = z
  .union([z.string(), z.array(z.unknown())], {
    error: expected(`a list of approvers, each ${APPROVER_WORDS}`),
  })
  .transform((value, ctx) => {
    const single = typeof value === 'string';
    const items: unknown[] = single ? [value] : value;
    const approvers: Approver[] = [];
    items.forEach((item, index) => {
      const approver = typeof item === 'string' ? parseApprover(item) : undefined;
      if (approver) approvers.push(approver);
      else
        ctx.addIssue({
          code: 'custom',
          input: item,
          path: single ? [] : [index],
          message: `${expected(APPROVER_WORDS)({ input: item })}${typeof item === 'string' ? approverHint(item) : ''}`,
        });
    });
    return approvers;
  });

const ADMIN_WORDS = 'a user id (U… or W…)';

/**
 * Policy admins: user ids only, so that who may withdraw anyone's request never depends on a
 * Slack lookup that could fail open.
 */
const adminList = z
  .array(z.unknown(), { error: expected(`a list of admins, each ${ADMIN_WORDS}`) })
  .transform((items, ctx) => {
    const ids: string[] = [];
    items.forEach((item, index) => {
      if (typeof item === 'string' && USER_ID.test(item)) ids.push(item);
      else
        ctx.addIssue({
          code: 'custom',
          input: item,
          path: [index],
          message: `${expected(ADMIN_WORDS)({ input: item })}${typeof item === 'string' ? approverHint(item) : ''}`,
        });
    });
    return ids;
  });

const channelId = z
  .string({ error: expected('a channel id such as C0123456789') })
  .refine((text) => CHANNEL_ID.test(text), {
    error: (issue) =>
      `${expected('a channel id such as C0123456789')(issue)}${
        typeof issue.input === 'string' && issue.input.startsWith('#')
          ? ' (names change: use the id, from the channel details)'
          : ''
      }`,
  });

const quorum = z
  .number({ error: expected('an integer ≥ 1') })
  .int({ error: expected('an integer ≥ 1') })
  .min(1, { error: expected('an integer ≥ 1') });

const flag = z.boolean({ error: expected('true or false') });

/** `never` lets a rule undo an expiry set in `defaults`; it becomes `null` here. */
const expiry = z
  .string({ error: expected(`a duration such as ${DURATION_EXAMPLES}, or never`) })
  .transform((text, ctx): number | null => {
    if (text === 'never') return null;
    const duration = parseDuration(text);
    if (duration.ok) return duration.ms;
    ctx.addIssue({
      code: 'custom',
      input: text,
      message: `${duration.error}, or never, got ${describeInput(text)}`,
    });
    return z.NEVER;
  });

/**
 * `reject`: the agent is told no, as if an approver had rejected; `timeout`: no as well, but with a
 * payload that says the request timed out (docs/api.md); `cancel`: the pause is abandoned.
 */
const onExpiry = z.enum(['reject', 'timeout', 'cancel'], {
  error: expected('reject, timeout or cancel'),
});

/** Reminder and escalation delays: a duration, never `never` (leave the key out instead). */
/** An undo window holds the agent's resume: minutes at most. */
const MAX_UNDO_WINDOW_MS = 10 * 60 * 1000;

const delay = z
  .string({ error: expected(`a duration such as ${DURATION_EXAMPLES}`) })
  .transform((text, ctx): number => {
    const duration = parseDuration(text);
    if (duration.ok) return duration.ms;
    ctx.addIssue({
      code: 'custom',
      input: text,
      message: `${duration.error}, got ${describeInput(text)}`,
    });
    return z.NEVER;
  });

const pattern = z
  .string({ error: expected('a name pattern such as "restart_*"') })
  .transform((text, ctx): Glob => {
    const compiled = compileGlob(text);
    if (compiled.ok) return compiled.glob;
    ctx.addIssue({ code: 'custom', input: text, message: compiled.error });
    return z.NEVER;
  });

const settingsShape = {
  channel: channelId.optional(),
  approvers: approverList.optional(),
  quorum: quorum.optional(),
  selfApproval: flag.optional(),
  expiresIn: expiry.optional(),
  onExpiry: onExpiry.optional(),
  remindAfter: delay.optional(),
  escalateAfter: delay.optional(),
  escalateTo: approverList.optional(),
  reasonRequired: flag.optional(),
  confirm: flag.optional(),
  batch: flag.optional(),
  delegation: flag.optional(),
  undoWindow: delay
    .refine((ms) => ms <= MAX_UNDO_WINDOW_MS, {
      message: 'expected at most 10m: the agent waits for it',
    })
    .optional(),
};

export const settingsSchema = z.strictObject(settingsShape, {
  error: expected('a mapping of settings'),
});

/** `confirmation` (a gated tool call) or `input` (an agent's `adk_request_input`). */
const kind = z.enum(GATE_KINDS, { error: expected('confirmation or input') });

/**
 * Where a call was met: `slack` (an `/agent` run), `api` (an API pause, or a run started with
 * `POST /v1/runs`), `alert` (a run an alert started).
 */
export const POLICY_SOURCES = ['slack', 'api', 'alert'] as const;
export type PolicySource = (typeof POLICY_SOURCES)[number];

const source = z.enum(POLICY_SOURCES, { error: expected('slack, api or alert') });

/** `labels: {severity: warning, service: "pay*"}`: the run's labels, each value a pattern. */
const labels = z
  .record(
    z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,99}$/, 'expected a label name such as "severity"'),
    pattern,
    { error: expected('a mapping of label names to value patterns') },
  )
  .transform((entries): ReadonlyMap<string, Glob> => new Map(Object.entries(entries)));

export const matchSchema = z.strictObject(
  {
    app: pattern.optional(),
    tool: pattern.optional(),
    kind: kind.optional(),
    source: source.optional(),
    labels: labels.optional(),
  },
  { error: expected('a mapping with app and/or tool patterns (use {} to match every tool)') },
);

/** Rules only: a schema is about one tool's payload, so `defaults` has none to pass on. */
const payloadSchema = z.unknown().transform((value, ctx) => {
  const parsed = payloadSchemaSchema.safeParse(value);
  if (parsed.success) return parsed.data;
  for (const issue of parsed.error.issues) {
    ctx.addIssue({
      code: 'custom',
      path: issue.path,
      message:
        issue.code === 'unrecognized_keys'
          ? `unsupported keyword ${issue.keys.join(', ')} (supported: ${PAYLOAD_SCHEMA_KEYWORDS})`
          : issue.message,
    });
  }
  return z.NEVER;
});

const PAYLOAD_SCHEMA_KEYWORDS =
  'type, title, description, enum, minimum, maximum, minLength, maxLength, pattern, format, items, minItems, maxItems, properties, required';

/** Shown on cards and thread lines, named in decisions: letters, digits and `_.:-`. */
const ruleName = z
  .string({ error: expected('a rule name such as small-refunds') })
  .regex(/^[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}$/, {
    error: (issue) =>
      `${expected('a rule name of up to 64 letters, digits and _ . : - (such as small-refunds)')(issue)}`,
  })
  .refine((name) => name !== 'defaults', {
    error: 'expected a rule name other than defaults (that word names the defaults)',
  });

/** `when:` a CEL expression over the call, checked here so that a typo fails at load. */
const condition = z
  .string({ error: expected('a CEL expression such as args.amount > 1000') })
  .transform((text, ctx): Condition => {
    const compiled = compileCondition(text);
    if (compiled.ok) return compiled.condition;
    ctx.addIssue({ code: 'custom', input: text, message: compiled.error });
    return z.NEVER;
  });

/** `ask` (a person decides: the default), `allow` or `deny` (the policy decides, no card). */
export const RULE_DECISIONS = ['ask', 'allow', 'deny'] as const;
export type RuleDecision = (typeof RULE_DECISIONS)[number];
const decision = z.enum(RULE_DECISIONS, { error: expected('ask, allow or deny') });

export const RISK_LEVELS = ['low', 'medium', 'high', 'critical'] as const;
export type RiskLevel = (typeof RISK_LEVELS)[number];
const risk = z.enum(RISK_LEVELS, { error: expected('low, medium, high or critical') });

/** Argument paths the audit trail must not record: `password`, `card.number`. */
const redactPaths = z.array(
  z
    .string({ error: expected('an argument path such as card.number') })
    .regex(/^[A-Za-z_$][\w$-]*(\.[A-Za-z_$][\w$-]*)*$/, {
      error: expected('an argument path such as card.number'),
    }),
  { error: expected('a list of argument paths') },
);

/** Scoped grants a rule's card offers (see grants.ts): `session`, one duration, `exactArgs`. */
const GRANT_WORDS = 'session, a duration of at most 8h (such as 1h) or exactArgs';
const grantOffers = z
  .array(z.unknown(), { error: expected(`a list of grant scopes, each ${GRANT_WORDS}`) })
  .min(1, { error: 'expected at least one grant scope (leave grants out to offer none)' })
  .transform((items, ctx): GrantOffer[] => {
    const offers: GrantOffer[] = [];
    items.forEach((item, index) => {
      const read = grantOfferOf(item);
      const repeated =
        read.ok && offers.some((known) => scopeOfOffer(known) === scopeOfOffer(read.offer));
      if (read.ok && !repeated) offers.push(read.offer);
      else
        ctx.addIssue({
          code: 'custom',
          input: item,
          path: [index],
          message: read.ok ? 'expected each scope once (one duration at most)' : read.error,
        });
    });
    return offers;
  });

function grantOfferOf(
  item: unknown,
): { ok: true; offer: GrantOffer } | { ok: false; error: string } {
  if (item === 'session' || item === 'exactArgs') return { ok: true, offer: item };
  const duration = typeof item === 'string' ? parseDuration(item) : undefined;
  if (!duration?.ok) return { ok: false, error: expected(GRANT_WORDS)({ input: item }) };
  if (duration.ms > GRANT_MAX_MS) {
    return {
      ok: false,
      error: `expected at most 8h (no grant outlives a working day), got ${describeInput(item)}`,
    };
  }
  return { ok: true, offer: duration.ms };
}

const ruleReason = z
  .string({ error: expected('a reason, in words') })
  .min(1, { error: expected('a reason, in words') })
  .max(500, { error: 'expected a reason of at most 500 characters' });

export const ruleSchema = z.strictObject(
  {
    name: ruleName.optional(),
    match: matchSchema,
    when: condition.optional(),
    decision: decision.optional(),
    reason: ruleReason.optional(),
    risk: risk.optional(),
    redact: redactPaths.optional(),
    payloadSchema: payloadSchema.optional(),
    grants: grantOffers.optional(),
    ...settingsShape,
  },
  { error: expected('a rule: a mapping with match and settings') },
);

export const policyFileSchema = z.strictObject(
  {
    approvalsChannel: channelId.optional(),
    /** Who may withdraw anyone's pending request (besides its requester). */
    admins: adminList.optional(),
    defaults: settingsSchema.optional(),
    rules: z.array(ruleSchema, { error: expected('a list of rules') }).optional(),
  },
  { error: expected('a mapping with defaults and/or rules') },
);

export type PolicySettings = z.infer<typeof settingsSchema>;
export type PolicyFileRule = z.infer<typeof ruleSchema>;
export type PolicyFile = z.infer<typeof policyFileSchema>;

/** The keys allowed where a key path ends, to name them when a key is unknown. */
export function keysAllowedAt(path: readonly PropertyKey[]): readonly string[] {
  if (path.length === 0) return Object.keys(policyFileSchema.shape);
  if (path.length === 1 && path[0] === 'defaults') return Object.keys(settingsSchema.shape);
  if (path.length === 2 && path[0] === 'rules') return Object.keys(ruleSchema.shape);
  if (path.length === 3 && path[0] === 'rules' && path[2] === 'match') {
    return Object.keys(matchSchema.shape);
  }
  return [];
}
