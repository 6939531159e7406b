import type { GateRecord, GateState, PauseView } from '../approvals/records.js';
import { initiatorOf } from '../approvals/store/audit-chain.js';
import type { ClosedGate, DecidedBy, DecisionOutcome } from '../metrics.js';

/**
 * A gate that just left `pending`, for the metrics and the trace: its app, rule and card channel,
 * how long it waited, and who decided it (read from its decision's `by`: a person, `policy:<rule>`, a grant;
 * an expiry is the sweeper's).
 */
export function closedGate(
  view: PauseView,
  gate: GateRecord | undefined,
  outcome: Exclude<GateState, 'pending'>,
  now: number,
  expired = false,
): ClosedGate {
  return {
    app: view.pause.adk.appName,
    pauseId: view.pause.id,
    callId: gate?.confirmationCallId ?? 'unknown',
    tool: gate?.originalCall.name ?? 'unknown',
    outcome: outcome satisfies DecisionOutcome,
    decider: expired ? undefined : gate?.decision?.by,
    openedAt: gate?.createdAt,
    closedAt: now,
    traceparent: view.pause.traceparent,
    seconds: gate === undefined ? undefined : Math.max(0, now - gate.createdAt) / 1_000,
    rule: gate?.policy.rule ?? 'unknown',
    channel: view.pause.card.channelId,
    decidedBy: expired ? 'expiry' : decidedByOf(gate?.decision?.by),
  };
}

function decidedByOf(by: string | undefined): DecidedBy {
  if (by === undefined) return 'person';
  const initiator = initiatorOf(by);
  return initiator === 'system' ? 'expiry' : initiator;
}
