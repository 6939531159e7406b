import { canonicalJson, sha256Hex } from '@adk-slack-approvals/adk-approvals/attestation';
import type { JsonValue } from '../json.js';
import type { GatePolicy } from './records.js';

/**
 * What the audit trail records of a gate ("what" and "why"), as one JSON text written when the
 * gate is recorded and copied verbatim into each of its trail entries (the Lua scripts never
 * re-encode JSON): the app, the tool, a SHA-256 of the canonical arguments (the attestation's
 * `argsSha256`), the arguments unless the rule says `redact:`, and the rule, its risk, its
 * condition and the policy version it was decided under.
 */
export function gateAuditFacts(input: {
  app: string;
  tool: string;
  args: JsonValue;
  policy: GatePolicy;
}): string {
  const { app, tool, args, policy } = input;
  return JSON.stringify({
    app,
    tool,
    argsSha256: sha256Hex(canonicalJson(args)),
    args: redacted(args, policy.redact ?? []),
    ...(policy.redact === undefined ? {} : { redacted: policy.redact }),
    rule: policy.rule,
    ...(policy.risk === undefined ? {} : { risk: policy.risk }),
    ...(policy.condition === undefined ? {} : { condition: policy.condition.text }),
    ...(policy.policyVersion === undefined ? {} : { policyVersion: policy.policyVersion }),
  });
}

/** What the trail records of a pause as a whole: where the paused invocation lives. */
export function pauseAuditFacts(input: {
  app: string;
  userId: string;
  sessionId: string;
  source: 'agent' | 'api';
}): string {
  return JSON.stringify(input);
}

export const REDACTED = '[redacted]';

/** `args` with the value at each path (`card.number`) replaced by `[redacted]`, where present. */
export function redacted(args: JsonValue, paths: readonly string[]): JsonValue {
  let out = args;
  for (const path of paths) out = redactPath(out, path.split('.'));
  return out;
}

function redactPath(value: JsonValue, path: readonly string[]): JsonValue {
  const [head, ...rest] = path;
  if (head === undefined || typeof value !== 'object' || value === null || Array.isArray(value)) {
    return value;
  }
  if (!Object.hasOwn(value, head)) return value;
  const inner = value[head];
  if (inner === undefined) return value;
  return { ...value, [head]: rest.length === 0 ? REDACTED : redactPath(inner, rest) };
}
