/**
 * What the app measures, as a port: the workflow, the ADK client and the Slack port report to it
 * and know nothing of Prometheus. `src/prometheus-metrics.ts` is the real one (GET /metrics);
 * `noMetrics` is for code that runs without (tests of single parts, the sandbox).
 *
 * Durations are in seconds, as Prometheus names them. Labels are bounded: app names come from
 * the ADK server, rule names from the policy file, outcomes and methods from fixed lists; never an
 * argument. The people-side series name a card's channel and a policy's named approvers: both are
 * configured, so bounded by the configuration.
 */
export type DecisionOutcome = 'approved' | 'rejected' | 'expired' | 'cancelled' | 'withdrawn';

export type WebhookDeliveryOutcome = 'delivered' | 'retried' | 'failed';

/**
 * Who decided a gate, for the share of decisions: a person, the policy, a grant, the agent's own
 * cancel, or its expiry.
 */
export type DecidedBy = 'person' | 'policy' | 'grant' | 'agent' | 'expiry';

/** A gate that left `pending`, as the people-side metrics see it. */
export interface ClosedGate {
  app: string;
  pauseId: string;
  callId: string;
  tool: string;
  outcome: DecisionOutcome;
  /** Who decided: a Slack user id, `policy:<rule>`, a grant; absent for an expiry. */
  decider: string | undefined;
  /** When the gate was recorded and when it closed (ms since the epoch). */
  openedAt: number | undefined;
  closedAt: number;
  /** The pause's trace context (`ApprovalTracing`). */
  traceparent: string | undefined;
  /** From the gate recorded to its decision; absent when not known. */
  seconds: number | undefined;
  /** The policy rule the gate was recorded under. */
  rule: string;
  /** The card's channel. */
  channel: string;
  decidedBy: DecidedBy;
}

export interface Metrics {
  /** Gates recorded (and carded) by this replica: the pending count goes up. */
  gatesOpened(app: string, count: number): void;
  /** Gates decided, expired or cancelled here: the pending count goes down. */
  gateClosed(gate: ClosedGate): void;
  /** From the pause event read off the agent's stream to its card posted in Slack. */
  pauseToCard(seconds: number): void;
  /** From the click reaching the app to its ack. */
  clickToAck(seconds: number): void;
  /** From the click that decided a pause to its resume sent to ADK. */
  clickToResume(seconds: number): void;
  resumeRetried(): void;
  /** `reason`: the ADK error's reason (network, timeout, http, protocol, stream_error …). */
  resumeFailed(reason: string): void;
  /** Webhook decision deliveries (the `webhook` mode of the approvals API). */
  webhookDelivery(outcome: WebhookDeliveryOutcome): void;
  /** One Web API or ADK HTTP call; `error` is the error code or reason when it failed. */
  externalCall(
    service: 'slack' | 'adk',
    method: string,
    seconds: number,
    error: string | undefined,
  ): void;
  /** Slack answered 429: the client waits `seconds` before retrying. */
  rateLimited(method: string, seconds: number): void;
}

const nothing = () => {};

export const noMetrics: Metrics = {
  gatesOpened: nothing,
  gateClosed: nothing,
  pauseToCard: nothing,
  clickToAck: nothing,
  clickToResume: nothing,
  resumeRetried: nothing,
  resumeFailed: nothing,
  webhookDelivery: nothing,
  externalCall: nothing,
  rateLimited: nothing,
};

/** A monotonic clock in seconds, for durations (wall-clock time can jump). */
export function secondsSince(startMs: number): number {
  return (performance.now() - startMs) / 1_000;
}
