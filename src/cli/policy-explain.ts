import type { GrantOffer } from '../approvals/grants.js';
import { formatDuration, type PolicyVerdict } from '../approvals/policy.js';
import type { Approver, GatePolicy } from '../approvals/records.js';

/**
 * `policy explain`'s answer: the rule that decides, the outcome and why, and for `ask` every
 * setting that applies, each under its key in the policy file, with the default filled in where
 * neither the rule nor `defaults` says.
 */

/** The longest key, `reasonRequired:`, and a space. */
const LABEL_WIDTH = 16;

export function explainLines(verdict: PolicyVerdict): string[] {
  const { policy, channel } = verdict.resolved;
  const lines: Array<[string, string]> = [
    ['rule', `${verdict.rule.name}${verdict.rule.index === null ? ' (no rule matched)' : ''}`],
    ['decision', verdict.decision],
  ];
  if (verdict.condition !== undefined) {
    const { text, value, error } = verdict.condition;
    lines.push([
      'condition',
      `${text} → ${error === undefined ? String(value) : `error: ${error}`}`,
    ]);
  }
  if (verdict.reason !== undefined) lines.push(['reason', verdict.reason]);
  if (verdict.risk !== undefined) lines.push(['risk', verdict.risk]);
  if (verdict.decision === 'ask') lines.push(...askSettings(policy, channel));
  if (policy.redact !== undefined) lines.push(['redact', policy.redact.join(', ')]);
  lines.push(['version', verdict.policyVersion.slice(0, 12)]);
  return lines.map(([label, value]) => `${`${label}:`.padEnd(LABEL_WIDTH)}${value}`);
}

/** What a person asked by this rule works under: who, how many, where, until when, and how. */
function askSettings(policy: GatePolicy, channel: string | undefined): Array<[string, string]> {
  const duration = (ms: number | undefined, none: string) =>
    ms === undefined ? none : formatDuration(ms);
  return [
    ['approvers', approversText(policy.approvers)],
    ['quorum', String(policy.quorum)],
    ['selfApproval', String(policy.selfApproval)],
    ['channel', channel ?? '(the channel the run was started from)'],
    ['expiresIn', duration(policy.expiresInMs, 'never')],
    ['onExpiry', policy.onExpiry],
    ['remindAfter', duration(policy.remindAfterMs, '(no reminder)')],
    ['escalateAfter', duration(policy.escalateAfterMs, '(no escalation)')],
    ...(policy.escalateTo === undefined
      ? []
      : [['escalateTo', approversText(policy.escalateTo)] as [string, string]]),
    ['reasonRequired', String(policy.reasonRequired)],
    ['confirm', String(policy.confirm ?? false)],
    ['undoWindow', duration(policy.undoWindowMs, '(none)')],
    ['batch', String(policy.batch ?? true)],
    ['grants', policy.grants?.map(offerText).join(', ') ?? '(none)'],
    ['payloadSchema', payloadText(policy)],
  ];
}

function approversText(approvers: readonly Approver[]): string {
  return (
    approvers
      .map((approver) => (approver.kind === 'channel' ? 'channel' : approver.id))
      .join(', ') || '(nobody)'
  );
}

function offerText(offer: GrantOffer): string {
  return typeof offer === 'number' ? formatDuration(offer) : offer;
}

/** The payload's fields (the required ones marked), or its type. */
function payloadText(policy: GatePolicy): string {
  const schema = policy.payloadSchema;
  if (schema === undefined) return '(none)';
  if (schema.properties === undefined) return `a ${schema.type ?? 'value'}`;
  const required = new Set(schema.required ?? []);
  return `fields ${Object.keys(schema.properties)
    .map((field) => (required.has(field) ? `${field} (required)` : field))
    .join(', ')}`;
}
