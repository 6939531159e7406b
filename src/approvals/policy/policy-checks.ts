import type { GatePolicy } from '../records.js';
import { formatDuration } from './duration.js';
import type { PolicyRule } from './policy.js';
import { approverKey, type PolicySettings } from './policy-schema.js';

/**
 * Checks across fields, once rules carry their inherited defaults. Errors are what can never work
 * (a quorum larger than the fixed list of people who may vote); warnings are allowed but worth
 * saying at start-up (nobody may approve, self-approval on, a rule that can never apply).
 */

export interface CheckedEntry {
  /** The key path of the entry in the file: `['defaults']` or `['rules', 2]`. */
  path: readonly PropertyKey[];
  /** What the entry itself says, before inheriting. */
  own: PolicySettings;
  policy: GatePolicy;
  /** Rules only: for the reachability check. */
  match?: PolicyRule['match'];
  /** The rule has a `when:`: it does not catch every call its patterns match. */
  conditional?: boolean;
  /** `decision: allow | deny`: the policy decides, so its approvers are asked only when its condition cannot be evaluated. */
  decides?: boolean;
  /** The rule offers scoped grants (`grants:`). */
  grants?: boolean;
}

export interface Finding {
  severity: 'error' | 'warning';
  path: readonly PropertyKey[];
  /** Point at the key rather than its value (the key is what the finding is about). */
  at: 'value' | 'key';
  message: string;
}

export function checkEntries(entries: readonly CheckedEntry[]): Finding[] {
  const findings: Finding[] = [];
  let catchAll: CheckedEntry | undefined;
  for (const entry of entries) {
    findings.push(...checkEntry(entry));
    if (entry.match === undefined) continue;
    if (catchAll) {
      findings.push({
        severity: 'warning',
        path: entry.path,
        at: 'value',
        message: `never applies: ${positionText(catchAll.path)} (rule "${catchAll.policy.rule}") before it matches every tool call`,
      });
    } else if (matchesEverything(entry.match) && entry.conditional !== true) catchAll = entry;
  }
  return findings;
}

/** `rules[0]`: where the entry is in the file (its name may say nothing of its place). */
function positionText(path: readonly PropertyKey[]): string {
  return path.map((part, index) => (index === 0 ? String(part) : `[${String(part)}]`)).join('');
}

function checkEntry({ path, own, policy, decides, grants }: CheckedEntry): Finding[] {
  const findings: Finding[] = [];
  if (grants === true) findings.push(...checkGrants(path, policy, decides === true));
  const isDefaults = policy.rule === 'defaults';
  const { approvers, quorum } = policy;

  if (approvers.length === 0 && decides !== true) {
    findings.push({
      severity: 'warning',
      path: own.approvers === undefined ? path : [...path, 'approvers'],
      at: 'value',
      message: isDefaults
        ? 'no approvers: nobody may approve tool calls that no rule matches'
        : 'no approvers: nobody may approve the tool calls this rule matches',
    });
  }

  const ids = (own.approvers ?? []).map(approverKey);
  const repeated = [...new Set(ids.filter((id, index) => ids.indexOf(id) !== index))];
  if (repeated.length > 0) {
    findings.push({
      severity: 'warning',
      path: [...path, 'approvers'],
      at: 'value',
      message: `listed more than once (counted once): ${repeated.join(', ')}`,
    });
  }

  if (own.selfApproval === true) {
    findings.push({
      severity: 'warning',
      path: [...path, 'selfApproval'],
      at: 'value',
      message: 'selfApproval is on: whoever starts a run may approve its own tool calls',
    });
  }

  findings.push(...checkTimers(path, own, policy));

  // Only a list of users has a size known now; a group or a channel can grow.
  const onlyUsers = approvers.length > 0 && approvers.every((a) => a.kind === 'user');
  // When both came from `defaults`, the defaults' own finding already says it.
  const quorumPath =
    own.quorum !== undefined
      ? [...path, 'quorum']
      : own.approvers !== undefined
        ? [...path, 'approvers']
        : undefined;
  if (onlyUsers && quorumPath) {
    const people = approvers.length === 1 ? '1 user is' : `${approvers.length} users are`;
    if (quorum > approvers.length) {
      findings.push({
        severity: 'error',
        path: quorumPath,
        at: 'value',
        message: `quorum ${quorum} can never be met: only ${people} listed as approvers`,
      });
    } else if (quorum === approvers.length && !policy.selfApproval) {
      findings.push({
        severity: 'warning',
        path: quorumPath,
        at: 'value',
        message:
          quorum === 1
            ? 'a run started by the only approver can never be approved (selfApproval is off)'
            : `quorum ${quorum} needs every listed approver, so a run started by one of them can never be approved (selfApproval is off)`,
      });
    }
  }
  return findings;
}

/**
 * A reminder or an escalation after the gate has expired would never happen, and an escalation
 * needs someone to escalate to (and the reverse): errors, pointed at the key that says so (or at
 * the entry when both values were inherited).
 */
function checkTimers(
  path: readonly PropertyKey[],
  own: PolicySettings,
  policy: GatePolicy,
): Finding[] {
  const findings: Finding[] = [];
  const at = (key: keyof PolicySettings, also?: keyof PolicySettings) =>
    own[key] !== undefined
      ? [...path, key]
      : also !== undefined && own[also] !== undefined
        ? [...path, also]
        : path;
  const expires = policy.expiresInMs;
  const timers = [
    ['remindAfter', policy.remindAfterMs],
    ['escalateAfter', policy.escalateAfterMs],
  ] as const;
  for (const [key, ms] of timers) {
    if (ms === undefined || expires === undefined || ms < expires) continue;
    if (own[key] === undefined && own.expiresIn === undefined) continue;
    findings.push({
      severity: 'error',
      path: at(key, 'expiresIn'),
      at: 'value',
      message: `${key} ${formatDuration(ms)} is not shorter than expiresIn ${formatDuration(expires)}: the gate expires first`,
    });
  }
  // When both came from `defaults`, the defaults' own finding already says it.
  const ownEscalation = own.escalateAfter !== undefined || own.escalateTo !== undefined;
  if (ownEscalation && policy.escalateAfterMs !== undefined && policy.escalateTo === undefined) {
    findings.push({
      severity: 'error',
      path: at('escalateAfter'),
      at: 'key',
      message: 'escalateAfter needs escalateTo: the approvers who may decide after escalation',
    });
  }
  if (ownEscalation && policy.escalateTo !== undefined && policy.escalateAfterMs === undefined) {
    findings.push({
      severity: 'error',
      path: at('escalateTo'),
      at: 'key',
      message: 'escalateTo needs escalateAfter: how long to wait before escalating',
    });
  }
  if (policy.escalateTo?.length === 0 && own.escalateTo !== undefined) {
    findings.push({
      severity: 'error',
      path: [...path, 'escalateTo'],
      at: 'value',
      message: 'escalateTo is empty: name at least one approver to escalate to',
    });
  }
  return findings;
}

function matchesEverything(match: PolicyRule['match']): boolean {
  return (
    match.kind === undefined &&
    (match.app?.matchesEverything ?? true) &&
    (match.tool?.matchesEverything ?? true)
  );
}

/**
 * A grant stands for one person's click on later calls: never where the rule wants several
 * people (a quorum), marks the call critical, or lets the policy decide without anyone.
 */
function checkGrants(
  path: readonly PropertyKey[],
  policy: GatePolicy,
  decides: boolean,
): Finding[] {
  const why =
    policy.quorum > 1
      ? `quorum ${policy.quorum}: a grant is one person's approval`
      : policy.risk === 'critical'
        ? 'risk: critical: each such call needs a person'
        : decides
          ? 'the policy decides these calls (decision allow or deny): nobody approves them'
          : undefined;
  if (why === undefined) return [];
  return [
    {
      severity: 'error',
      path: [...path, 'grants'],
      at: 'value',
      message: `grants are not offered on this rule (${why})`,
    },
  ];
}
