import type { Gate } from '../adk/gate.js';
import { grantActor } from '../approvals/grant-actors.js';
import type { Grant } from '../approvals/grants.js';
import type { PolicyVerdict } from '../approvals/policy.js';
import { type PauseView, policyActor } from '../approvals/records.js';
import type { SlackMessage } from '../slack/codecs/block-kit.js';
import {
  type GrantDecisionLine,
  type PolicyDecisionLine,
  renderPolicyDecisions,
} from '../slack/render/policy-lines.js';
import type { PolicyVotes } from './decider.js';

/**
 * Gates the policy decides (`decision: allow` or `deny`), or a person's scoped grant covers, on
 * the /agent path and the API path alike: the line that says so, and the decisions themselves,
 * applied through the same atomic vote as a click with `policy:<rule>` or `grant:<id>` as the
 * voter.
 */

export interface PolicyDecidedGate {
  gate: Gate;
  /** Undefined: a person decides this gate (or a grant, when `grant` is set). */
  verdict?: PolicyVerdict | undefined;
  /** A person's scoped grant covers the call: it is approved in their name, by the grant. */
  grant?: Grant | undefined;
}

/** The policy or a grant decides it: no person is asked. */
export function isAutomatic(entry: PolicyDecidedGate): boolean {
  return (
    entry.grant !== undefined || (entry.verdict !== undefined && entry.verdict.decision !== 'ask')
  );
}

export function policyDecisionsMessage(entries: readonly PolicyDecidedGate[]): SlackMessage {
  const lines: (PolicyDecisionLine | GrantDecisionLine)[] = [];
  for (const { gate, verdict, grant } of entries) {
    const tool = gate.originalCall.name;
    if (grant !== undefined) lines.push({ tool, grant });
    else if (verdict !== undefined && verdict.decision !== 'ask') {
      lines.push({
        tool,
        rule: verdict.rule.name,
        decision: verdict.decision,
        ...(verdict.reason === undefined ? {} : { reason: verdict.reason }),
      });
    }
  }
  return renderPolicyDecisions(lines);
}

/** Gates already decided (a retried stream, another replica) are left as they are. */
export async function applyPolicyVerdicts(
  votes: PolicyVotes,
  view: PauseView,
  entries: readonly PolicyDecidedGate[],
): Promise<void> {
  for (const { gate, verdict, grant } of entries) {
    if (!isPending(view, gate)) continue;
    if (grant !== undefined) {
      await votes.decideByPolicy({
        pauseId: view.pause.id,
        callId: gate.confirmationCallId,
        voter: grantActor(grant.id),
        choice: 'approve',
      });
      continue;
    }
    if (verdict === undefined || verdict.decision === 'ask') continue;
    await votes.decideByPolicy({
      pauseId: view.pause.id,
      callId: gate.confirmationCallId,
      voter: policyActor(verdict.rule.name),
      choice: verdict.decision === 'allow' ? 'approve' : 'reject',
      ...(verdict.reason === undefined ? {} : { reason: verdict.reason }),
    });
  }
}

export function isPending(view: PauseView, gate: Gate): boolean {
  return view.gates.some(
    (record) => record.confirmationCallId === gate.confirmationCallId && record.state === 'pending',
  );
}
