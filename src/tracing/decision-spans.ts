import type { ClosedGate, Metrics } from '../metrics.js';
import type { ApprovalTracing } from './approval-tracing.js';

/**
 * The workflow's metrics, with each closed gate also recorded as its `approval.decision` span:
 * every place that counts a decision, an expiry or a withdrawal traces it too.
 */
export function withDecisionSpans(metrics: Metrics, tracing: ApprovalTracing): Metrics {
  return {
    gatesOpened: (app, count) => metrics.gatesOpened(app, count),
    gateClosed: (gate: ClosedGate) => {
      metrics.gateClosed(gate);
      tracing.gateDecided(gate);
    },
    pauseToCard: (seconds) => metrics.pauseToCard(seconds),
    clickToAck: (seconds) => metrics.clickToAck(seconds),
    clickToResume: (seconds) => metrics.clickToResume(seconds),
    resumeRetried: () => metrics.resumeRetried(),
    resumeFailed: (reason) => metrics.resumeFailed(reason),
    webhookDelivery: (outcome) => metrics.webhookDelivery(outcome),
    externalCall: (service, method, seconds, error) =>
      metrics.externalCall(service, method, seconds, error),
    rateLimited: (method, seconds) => metrics.rateLimited(method, seconds),
  };
}
