import type { GateKind } from '../../adk/gate.js';
import type { ConditionInput } from './condition.js';
import type { Glob } from './glob.js';
import {
  DEFAULTS_LABEL,
  type GateSubject,
  type Policy,
  type PolicyRule,
  type ResolvedGatePolicy,
} from './policy.js';
import type { PolicySource, RiskLevel, RuleDecision } from './policy-schema.js';

/**
 * Whether a person is needed for a call, and which rule says so: the first rule whose patterns
 * match and whose `when:` is true decides (none: the defaults, which always ask). Pure and
 * synchronous: the same call under the same policy always gets the same verdict.
 */

export interface PolicyCall {
  app: string;
  tool: string;
  /** Absent: a confirmation. */
  kind?: GateKind;
  args: Record<string, unknown>;
  payload?: unknown;
  /** Who the agent acts for, where known (a Slack user id, or `api:<key>`); groups where looked up. */
  requester?: { id: string; groups?: string[] };
  channel?: string;
  /** `slack`: `/agent` runs; `api`: API pauses and runs started over the API; `alert`: runs started by alerts. */
  source: PolicySource;
  /** The labels of the run the call was met in (an alert's labels); none: `{}`. */
  labels?: Readonly<Record<string, string>>;
  now: Date;
}

export interface PolicyVerdict {
  /** `index` null: the defaults. `name`: the rule's name, or what it matches (`app=ops`). */
  rule: { index: number | null; name: string };
  decision: RuleDecision;
  /** The rule's reason with `{{args.x}}` filled in: plain text, to be escaped where it is shown. */
  reason?: string;
  risk?: RiskLevel;
  /**
   * The deciding rule's condition: `value` as evaluated, or `error` when it could not be (the
   * verdict is then `ask`, whatever the rule says: a broken condition never allows nor denies).
   */
  condition?: { text: string; value?: boolean; error?: string };
  /** What applies if a person is asked (approvers, quorum, expiry…), a copy the caller may keep. */
  resolved: ResolvedGatePolicy;
  policyVersion: string;
}

export function evaluatePolicy(policy: Policy, call: PolicyCall): PolicyVerdict {
  const kind = call.kind ?? 'confirmation';
  let input: ConditionInput | undefined;
  const { rules } = policy;
  // A plain index loop: `entries()` allocates a pair per rule, and this runs per call.
  for (let index = 0; index < rules.length; index += 1) {
    const rule = rules[index] as PolicyRule;
    const { match } = rule;
    if (match.app !== undefined && !match.app.test(call.app)) continue;
    if (match.tool !== undefined && !match.tool.test(call.tool)) continue;
    if (match.kind !== undefined && match.kind !== kind) continue;
    if (match.source !== undefined && match.source !== call.source) continue;
    if (match.labels !== undefined && !labelsMatch(match.labels, call.labels)) continue;
    if (rule.when === undefined) return verdictOf(policy, rule, index, call);
    input ??= conditionInput(call, kind);
    const outcome = rule.when.evaluate(input);
    if ('error' in outcome) {
      const verdict = verdictOf(policy, rule, index, call);
      const condition = { text: rule.when.text, error: outcome.error };
      verdict.resolved.policy.condition = condition;
      return { ...verdict, decision: 'ask', condition };
    }
    if (outcome.value) {
      return {
        ...verdictOf(policy, rule, index, call),
        condition: { text: rule.when.text, value: true },
      };
    }
  }
  return {
    rule: { index: null, name: DEFAULTS_LABEL },
    decision: 'ask',
    resolved: snapshot(policy.defaults, policy.version),
    policyVersion: policy.version,
  };
}

/**
 * What applies to a gate if a person decides it (who, how many, until when). Without the call's
 * arguments, a rule with a condition on them cannot be evaluated and so asks.
 */
export function resolveGatePolicy(
  policy: Policy,
  subject: GateSubject & Partial<PolicyCall>,
): ResolvedGatePolicy {
  return evaluatePolicy(policy, { args: {}, source: 'slack', now: new Date(), ...subject })
    .resolved;
}

function verdictOf(
  policy: Policy,
  rule: PolicyRule,
  index: number,
  call: PolicyCall,
): PolicyVerdict {
  const reason = rule.reason === undefined ? undefined : fillPlaceholders(rule.reason, call);
  const resolved = snapshot(rule.resolved, policy.version);
  if (reason !== undefined) resolved.policy.reason = reason;
  return {
    rule: { index, name: rule.resolved.policy.rule },
    decision: rule.decision,
    ...(reason === undefined ? {} : { reason }),
    ...(rule.risk === undefined ? {} : { risk: rule.risk }),
    resolved,
    policyVersion: policy.version,
  };
}

function conditionInput(call: PolicyCall, kind: string): ConditionInput {
  return {
    app: call.app,
    tool: call.tool,
    kind,
    args: call.args,
    payload: call.payload ?? null,
    requester: { id: call.requester?.id ?? '', groups: call.requester?.groups ?? [] },
    channel: call.channel ?? '',
    source: call.source,
    now: call.now,
  };
}

/** Every label a rule names is on the run, with a value its pattern matches. */
function labelsMatch(
  patterns: ReadonlyMap<string, Glob>,
  labels: Readonly<Record<string, string>> | undefined,
): boolean {
  for (const [name, pattern] of patterns) {
    const value = labels === undefined || !Object.hasOwn(labels, name) ? undefined : labels[name];
    if (value === undefined || !pattern.test(value)) return false;
  }
  return true;
}

/** `{{args.amount}}` → the argument's value; a path that leads nowhere reads `?`. */
export function fillPlaceholders(text: string, call: Pick<PolicyCall, 'args'>): string {
  let filled = '';
  for (const part of templateOf(text)) {
    filled += typeof part === 'string' ? part : shown(valueAt(call.args, part));
  }
  return filled;
}

/** A reason split once into text and argument paths: it is filled on every matching call. */
type TemplatePart = string | readonly string[];
const templates = new Map<string, readonly TemplatePart[]>();
const PLACEHOLDER = /\{\{\s*args((?:\.[A-Za-z0-9_-]+)+)\s*\}\}/g;

function templateOf(text: string): readonly TemplatePart[] {
  const known = templates.get(text);
  if (known !== undefined) return known;
  const parts: TemplatePart[] = [];
  let last = 0;
  for (const match of text.matchAll(PLACEHOLDER)) {
    parts.push(text.slice(last, match.index), (match[1] ?? '').slice(1).split('.'));
    last = match.index + match[0].length;
  }
  parts.push(text.slice(last));
  // Reasons come from the policy file: a handful, kept for the life of the process.
  if (templates.size < 10_000) templates.set(text, parts);
  return parts;
}

function valueAt(args: Record<string, unknown>, path: readonly string[]): unknown {
  let value: unknown = args;
  for (const key of path) {
    value =
      value !== null && typeof value === 'object' && !Array.isArray(value)
        ? (value as Record<string, unknown>)[key]
        : undefined;
  }
  return value;
}

function shown(value: unknown): string {
  if (value === undefined) return '?';
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text.length > 100 ? `${text.slice(0, 100)}…` : text;
}

/** Callers store and may change what they get; the policy itself stays as loaded. */
function snapshot(resolved: ResolvedGatePolicy, version: string): ResolvedGatePolicy {
  const policy = {
    ...resolved.policy,
    approvers: resolved.policy.approvers.map((a) => ({ ...a })),
    policyVersion: version,
    ...(resolved.policy.payloadSchema === undefined
      ? {}
      : { payloadSchema: structuredClone(resolved.policy.payloadSchema) }),
    ...(resolved.policy.condition === undefined
      ? {}
      : { condition: { ...resolved.policy.condition } }),
  };
  return resolved.channel === undefined ? { policy } : { policy, channel: resolved.channel };
}
