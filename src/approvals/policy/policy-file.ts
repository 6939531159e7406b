import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import type { GatePolicy } from '../records.js';
import { parseYamlDocument } from '../yaml-file.js';
import type { Glob } from './glob.js';
import { DEFAULTS_LABEL, type Policy, type PolicyRule, type ResolvedGatePolicy } from './policy.js';
import { type CheckedEntry, checkEntries, type Finding } from './policy-checks.js';
import {
  approverKey,
  keysAllowedAt,
  type PolicyFileRule,
  type PolicySettings,
  policyFileSchema,
  ruleSchema,
  settingsSchema,
} from './policy-schema.js';
import { positionOf } from './yaml-position.js';

/**
 * Reading the policy file (YAML, or JSON, which the YAML parser reads too and so gives positions
 * for). Every problem is reported at once, each as `file:line:col key.path: what is wrong`.
 */

export type ParsePolicyResult =
  | { ok: true; policy: Policy; warnings: string[] }
  | { ok: false; errors: string[] };

/** A policy file that cannot be used; `problems` holds one line per problem. */
export class PolicyError extends Error {
  override readonly name = 'PolicyError';
  constructor(
    readonly source: string,
    readonly problems: readonly string[],
  ) {
    super(
      `Invalid policy file ${source} (${problems.length} ${problems.length === 1 ? 'problem' : 'problems'}):\n${problems.map((p) => `  ${p}`).join('\n')}`,
    );
  }
}

/** Reads and validates the file; throws a `PolicyError` listing every problem. */
export async function loadPolicyFile(path: string): Promise<Policy> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const code = z.object({ code: z.string() }).safeParse(error);
    const why = code.success ? code.data.code : 'unreadable';
    throw new PolicyError(path, [`${path}: cannot read the policy file (${why})`]);
  }
  const parsed = parsePolicy(text, path);
  if (!parsed.ok) throw new PolicyError(path, parsed.errors);
  return parsed.policy;
}

/** `source` names the file in every message. */
export function parsePolicy(text: string, source: string): ParsePolicyResult {
  const { doc, lineCounter } = parseYamlDocument(text);
  const located = (
    path: readonly PropertyKey[],
    message: string,
    at: 'value' | 'key' = 'value',
  ) => {
    const { line, col } = positionOf(doc, lineCounter, path, at);
    return { line, col, text: `${source}:${line}:${col} ${pathText(path)}${message}` };
  };

  // Warnings too: an unknown tag or similar oddity in a security setting is not worth guessing at.
  const syntax = [...doc.errors, ...doc.warnings];
  if (syntax.length > 0) {
    return {
      ok: false,
      errors: syntax.map((problem) => {
        const { line, col } = lineCounter.linePos(problem.pos[0]);
        return `${source}:${line}:${col} ${problem.message}`;
      }),
    };
  }
  if (doc.contents === null) {
    return {
      ok: false,
      errors: [`${source}:1:1 the file is empty: expected defaults and/or rules`],
    };
  }

  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: 100 });
  } catch (error) {
    const why = error instanceof Error ? error.message : 'unreadable';
    return { ok: false, errors: [`${source}:1:1 ${why}`] };
  }

  const parsed = policyFileSchema.safeParse(data);
  if (!parsed.success) {
    const problems = parsed.error.issues.flatMap((issue) =>
      issue.code === 'unrecognized_keys'
        ? issue.keys.map((key) =>
            located([...issue.path, key], unknownKeyMessage(key, keysAllowedAt(issue.path)), 'key'),
          )
        : [located(issue.path, issue.message)],
    );
    // The checks across fields still run on the parts that parse, so that one look at the file
    // names every problem it can, not only those of the first kind found.
    const parts = partsThatParse(data);
    const across =
      parts === undefined
        ? []
        : resolveRules(parts.defaults, parts.rules)
            .findings.filter((finding) => finding.severity === 'error')
            .map((finding) => located(finding.path, finding.message, finding.at));
    return { ok: false, errors: inFileOrder([...problems, ...across]) };
  }

  const file = parsed.data;
  const resolved = resolveRules(
    file.defaults ?? {},
    (file.rules ?? []).map((rule, index) => ({ index, rule })),
  );
  const { defaults, rules } = resolved;
  const findings = resolved.findings.map((finding) => ({
    severity: finding.severity,
    ...located(finding.path, finding.message, finding.at),
  }));
  const errors = inFileOrder(findings.filter((f) => f.severity === 'error'));
  if (errors.length > 0) return { ok: false, errors };
  const warnings = inFileOrder(findings.filter((f) => f.severity === 'warning'));
  const policy = {
    source,
    version: createHash('sha256').update(text).digest('hex'),
    defaults,
    rules,
    warnings,
    ...(file.approvalsChannel === undefined ? {} : { approvalsChannel: file.approvalsChannel }),
    ...(file.admins === undefined ? {} : { admins: file.admins }),
  };
  return { ok: true, policy, warnings };
}

/** A rule of the file with its place in `rules`: the parts that parse keep their index. */
interface IndexedRule {
  index: number;
  rule: PolicyFileRule;
}

/**
 * The defaults and the rules resolved (each rule over the defaults), and what the checks across
 * fields find in them, each finding at its key path.
 */
function resolveRules(
  ownDefaults: PolicySettings,
  fileRules: readonly IndexedRule[],
): { defaults: ResolvedGatePolicy; rules: PolicyRule[]; findings: Finding[] } {
  const defaults = resolveEntry(DEFAULTS_LABEL, ownDefaults, {});
  const entries: CheckedEntry[] = [
    { path: ['defaults'], own: ownDefaults, policy: defaults.policy },
  ];
  const names = ruleNames(fileRules.map(({ rule }) => rule));
  const rules: PolicyRule[] = fileRules.map(({ rule, index }, position) => {
    const { match, payloadSchema, name, when, decision, reason, risk, redact, grants, ...own } =
      rule;
    const resolved = resolveEntry(names[position] ?? `rules[${index}]`, own, ownDefaults);
    if (payloadSchema !== undefined) resolved.policy.payloadSchema = payloadSchema;
    if (risk !== undefined) resolved.policy.risk = risk;
    if (redact !== undefined && redact.length > 0) resolved.policy.redact = redact;
    if (when !== undefined) resolved.policy.condition = { text: when.text };
    if (grants !== undefined) resolved.policy.grants = grants;
    entries.push({
      path: ['rules', index],
      own,
      policy: resolved.policy,
      match,
      conditional: when !== undefined,
      decides: decision === 'allow' || decision === 'deny',
      grants: grants !== undefined,
    });
    return {
      match,
      decision: decision ?? 'ask',
      resolved,
      ...(when === undefined ? {} : { when }),
      ...(reason === undefined ? {} : { reason }),
      ...(risk === undefined ? {} : { risk }),
    };
  });
  const findings: Finding[] = [
    ...checkEntries(entries),
    ...duplicateNames(fileRules),
    ...sharedMatchNames(fileRules),
    ...fileRules.flatMap(({ rule, index }) =>
      rule.decision === 'deny' && rule.reason === undefined
        ? [
            {
              severity: 'warning' as const,
              path: ['rules', index, 'decision'],
              message: 'a deny without a reason: the agent is told only that it was refused',
              at: 'value' as const,
            },
          ]
        : [],
    ),
  ];
  return { defaults, rules, findings };
}

/**
 * For a file that does not parse as a whole: its defaults and those of its rules that parse on
 * their own. Nothing when the defaults do not parse: every rule inherits from them.
 */
function partsThatParse(
  data: unknown,
): { defaults: PolicySettings; rules: IndexedRule[] } | undefined {
  const top = z
    .object({ defaults: z.unknown().optional(), rules: z.array(z.unknown()).optional() })
    .safeParse(data);
  if (!top.success) return undefined;
  const defaults = settingsSchema.safeParse(top.data.defaults ?? {});
  if (!defaults.success) return undefined;
  const rules = (top.data.rules ?? []).flatMap((raw, index) => {
    const rule = ruleSchema.safeParse(raw);
    return rule.success ? [{ index, rule: rule.data }] : [];
  });
  return { defaults: defaults.data, rules };
}

type RuleMatch = {
  app?: Glob | undefined;
  tool?: Glob | undefined;
  kind?: string | undefined;
  source?: string | undefined;
  labels?: ReadonlyMap<string, Glob> | undefined;
};
type NamedRule = { name?: string | undefined; match: RuleMatch };

/**
 * Each rule's name as cards, grants, the audit and the metrics know it: its `name:`, else what it
 * matches (`app=ops tool=restart_*`, `kind=input`, `any call`), which stays the same when rules
 * are added or moved around it (an index would renumber, and a grant would lose its rule). An
 * unnamed rule matching what an earlier unnamed rule matches gets ` #2`, ` #3`… (and a warning).
 */
function ruleNames(rules: readonly NamedRule[]): string[] {
  const seen = new Map<string, number>();
  return rules.map((rule) => {
    if (rule.name !== undefined) return rule.name;
    const base = matchName(rule.match);
    const count = (seen.get(base) ?? 0) + 1;
    seen.set(base, count);
    return count === 1 ? base : `${base} #${count}`;
  });
}

/** Names never written in a `name:` (those have no spaces or `=`), so the two cannot collide. */
function matchName({ app, tool, kind, source, labels }: RuleMatch): string {
  const parts = [
    app === undefined ? undefined : `app=${app.pattern}`,
    tool === undefined ? undefined : `tool=${tool.pattern}`,
    kind === undefined ? undefined : `kind=${kind}`,
    source === undefined ? undefined : `source=${source}`,
    ...[...(labels ?? new Map<string, Glob>())].map(([name, glob]) => `${name}=${glob.pattern}`),
  ].filter((part) => part !== undefined);
  return parts.length === 0 ? 'any call' : parts.join(' ');
}

/** Unnamed rules of one match are told apart by their order alone: a name keeps them apart. */
function sharedMatchNames(rules: readonly IndexedRule[]): Finding[] {
  const first = new Map<string, number>();
  return rules.flatMap(({ rule, index }) => {
    if (rule.name !== undefined) return [];
    const base = matchName(rule.match);
    const earlier = first.get(base);
    if (earlier === undefined) {
      first.set(base, index);
      return [];
    }
    return [
      {
        severity: 'warning' as const,
        path: ['rules', index, 'match'],
        message: `another unnamed rule matches the same calls (rules[${earlier}]), so this one is named "${base} #…" by its order: give both a name`,
        at: 'key' as const,
      },
    ];
  });
}

/** Two rules of one name would make every decision that names it ambiguous. */
function duplicateNames(rules: readonly IndexedRule[]): Finding[] {
  const first = new Map<string, number>();
  return rules.flatMap(({ rule, index }) => {
    if (rule.name === undefined) return [];
    const earlier = first.get(rule.name);
    if (earlier === undefined) {
      first.set(rule.name, index);
      return [];
    }
    return [
      {
        severity: 'error' as const,
        path: ['rules', index, 'name'],
        message: `the name ${JSON.stringify(rule.name)} is taken by rules[${earlier}]: names must be unique`,
        at: 'value' as const,
      },
    ];
  });
}

/** A rule's settings over the defaults' settings over the documented defaults. */
function resolveEntry(
  rule: string,
  own: PolicySettings,
  inherited: PolicySettings,
): ResolvedGatePolicy {
  const expiresIn = own.expiresIn !== undefined ? own.expiresIn : inherited.expiresIn;
  const approvers = own.approvers ?? inherited.approvers ?? [];
  const policy: GatePolicy = {
    rule,
    approvers: approvers.filter(
      (approver, index) =>
        approvers.findIndex((other) => approverKey(other) === approverKey(approver)) === index,
    ),
    quorum: own.quorum ?? inherited.quorum ?? 1,
    selfApproval: own.selfApproval ?? inherited.selfApproval ?? false,
    onExpiry: own.onExpiry ?? inherited.onExpiry ?? 'reject',
    reasonRequired: own.reasonRequired ?? inherited.reasonRequired ?? false,
  };
  const confirm = own.confirm ?? inherited.confirm;
  if (confirm) policy.confirm = true;
  const batch = own.batch ?? inherited.batch;
  if (batch === false) policy.batch = false;
  const delegation = own.delegation ?? inherited.delegation;
  if (delegation === false) policy.delegation = false;
  const undoWindow = own.undoWindow ?? inherited.undoWindow;
  if (undoWindow !== undefined) policy.undoWindowMs = undoWindow;
  const remindAfter = own.remindAfter ?? inherited.remindAfter;
  if (remindAfter !== undefined) policy.remindAfterMs = remindAfter;
  const escalateAfter = own.escalateAfter ?? inherited.escalateAfter;
  if (escalateAfter !== undefined) policy.escalateAfterMs = escalateAfter;
  const escalateTo = own.escalateTo ?? inherited.escalateTo;
  if (escalateTo !== undefined) policy.escalateTo = escalateTo;
  // `null` is `expiresIn: never`: no expiry, whatever the defaults say.
  if (expiresIn != null) policy.expiresInMs = expiresIn;
  const channel = own.channel ?? inherited.channel;
  return channel === undefined ? { policy } : { policy, channel };
}

function pathText(path: readonly PropertyKey[]): string {
  if (path.length === 0) return '';
  let text = '';
  for (const segment of path) {
    text += typeof segment === 'number' ? `[${segment}]` : `${text ? '.' : ''}${String(segment)}`;
  }
  return `${text}: `;
}

function unknownKeyMessage(key: string, allowed: readonly string[]): string {
  const suggestion = allowed.find((candidate) => looksLike(key, candidate));
  const hint = suggestion ? `did you mean ${suggestion}?` : `expected one of ${allowed.join(', ')}`;
  return `unknown key (${hint})`;
}

/** `approver` for `approvers`, `self_approval` for `selfApproval`, `qourum` for `quorum`. */
function looksLike(typed: string, known: string): boolean {
  const normal = (text: string) => text.toLowerCase().replace(/[-_\s]/g, '');
  return editDistance(normal(typed), normal(known)) <= Math.min(2, Math.floor(known.length / 3));
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

function inFileOrder(problems: { line: number; col: number; text: string }[]): string[] {
  return [...problems].sort((a, b) => a.line - b.line || a.col - b.col).map((p) => p.text);
}
