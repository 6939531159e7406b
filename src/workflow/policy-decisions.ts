import type { Gate } from '../adk/gate.js';
import type { PolicyVerdict } from '../approvals/policy.js';
import { type PauseView, policyActor } from '../approvals/records.js';
import type { SlackMessage } from '../slack/block-kit.js';
import { renderPolicyDecisions } from '../slack/policy-lines.js';
import type { VoteRequest } from './decider.js';

/**
 * Gates the policy decides (`decision: allow` or `deny`), on the /agent path and the API path
 * alike: the line that says so, and the decisions themselves, applied through the same atomic
 * vote as a click with `policy:<rule>` as the voter.
 */

export interface PolicyDecidedGate {
  gate: Gate;
  /** Undefined: a person decides this gate. */
  verdict?: PolicyVerdict | undefined;
}

export function policyDecisionsMessage(entries: readonly PolicyDecidedGate[]): SlackMessage {
  return renderPolicyDecisions(
    entries.flatMap(({ gate, verdict }) =>
      verdict === undefined || verdict.decision === 'ask'
        ? []
        : [
            {
              tool: gate.originalCall.name,
              rule: verdict.rule.name,
              decision: verdict.decision,
              ...(verdict.reason === undefined ? {} : { reason: verdict.reason }),
            },
          ],
    ),
  );
}

/** Gates already decided (a retried stream, another replica) are left as they are. */
export async function applyPolicyVerdicts(
  decide: (request: VoteRequest) => Promise<unknown>,
  view: PauseView,
  entries: readonly PolicyDecidedGate[],
): Promise<void> {
  for (const { gate, verdict } of entries) {
    if (verdict === undefined || verdict.decision === 'ask' || !isPending(view, gate)) continue;
    await decide({
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
