import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { ClosedGate, Metrics, WebhookDeliveryOutcome } from './metrics.js';

/** Seconds: a click's ack and Web API calls live in milliseconds, Slack's ack deadline is 3 s. */
const FAST = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** Seconds: people take minutes to days to decide. */
/**
 * How long a pending-gates count is reused: counting reads every live pause in the store, and
 * several Prometheus servers (or a dashboard's refresh) may scrape each replica.
 */
const PENDING_COUNT_REUSE_MS = 5_000;
const HUMAN = [10, 30, 60, 300, 900, 1_800, 3_600, 4 * 3_600, 12 * 3_600, 86_400, 7 * 86_400];

/**
 * The metrics port backed by prom-client, with its own registry (so two apps in one process, as
 * in tests, do not collide). Every name starts with `approvals_`; Node's default process metrics
 * come along. `docs/metrics.md` lists them, `docs/grafana-dashboard.json` charts them.
 */
export class PrometheusMetrics implements Metrics {
  readonly registry = new Registry();

  private readonly opened = new Counter({
    name: 'approvals_gates_opened_total',
    help: 'Gates recorded by this replica (pending until closed); approvals_pending_gates is the exact count.',
    labelNames: ['app'],
    registers: [this.registry],
  });
  private readonly closed = new Counter({
    name: 'approvals_decisions_total',
    help: 'Gates decided here, by outcome: approved, rejected, expired, cancelled.',
    labelNames: ['app', 'outcome'],
    registers: [this.registry],
  });
  private readonly decisionLatency = new Histogram({
    name: 'approvals_human_decision_seconds',
    help: 'From a gate recorded to the vote or expiry that decided it.',
    labelNames: ['outcome'],
    buckets: HUMAN,
    registers: [this.registry],
  });
  private readonly pauseCard = new Histogram({
    name: 'approvals_pause_to_card_seconds',
    help: "From a pause read off the agent's stream to its card posted in Slack.",
    buckets: FAST,
    registers: [this.registry],
  });
  private readonly ack = new Histogram({
    name: 'approvals_click_to_ack_seconds',
    help: 'From a click reaching the app to its ack (Slack allows 3 s).',
    buckets: FAST,
    registers: [this.registry],
  });
  private readonly clickResume = new Histogram({
    name: 'approvals_click_to_resume_seconds',
    help: 'From the click that decided a pause to its resume sent to the ADK server.',
    buckets: FAST,
    registers: [this.registry],
  });
  private readonly retries = new Counter({
    name: 'approvals_resume_retries_total',
    help: 'Resume attempts repeated after a failure that cannot have reached the agent.',
    registers: [this.registry],
  });
  private readonly failures = new Counter({
    name: 'approvals_resume_failures_total',
    help: 'Resumes that failed after their retries and wait on the card for a Retry, by ADK error reason; `refused`: the agent received the decisions and refused them.',
    labelNames: ['reason'],
    registers: [this.registry],
  });
  private readonly webhooks = new Counter({
    name: 'approvals_webhook_deliveries_total',
    help: 'Decision webhook deliveries (approvals API, webhook mode), by outcome: delivered, retried, failed.',
    labelNames: ['outcome'],
    registers: [this.registry],
  });
  private readonly calls = new Histogram({
    name: 'approvals_external_call_seconds',
    help: 'Slack Web API and ADK HTTP calls, by service and method (runs: until the stream starts).',
    labelNames: ['service', 'method'],
    buckets: FAST,
    registers: [this.registry],
  });
  private readonly callErrors = new Counter({
    name: 'approvals_external_call_errors_total',
    help: 'Slack Web API and ADK HTTP calls that failed, by service, method and error code.',
    labelNames: ['service', 'method', 'error'],
    registers: [this.registry],
  });
  private readonly decidedBy = new Counter({
    name: 'approvals_decided_total',
    help: 'Gates decided, by who decided them: person, policy, grant or expiry (the share of each).',
    labelNames: ['decided_by'],
    registers: [this.registry],
  });
  private readonly timeToDecision = new Histogram({
    name: 'approvals_time_to_decision_seconds',
    help: 'From a gate recorded to its decision, by policy rule, card channel and who decided.',
    labelNames: ['rule', 'channel', 'decided_by'],
    buckets: HUMAN,
    registers: [this.registry],
  });
  private countByApprover: (() => Promise<Map<string, number>>) | undefined;
  private readonly pendingApprovers = new Set<string>();
  private readonly pendingByApprover = new Gauge({
    name: 'approvals_pending_by_approver',
    help: "Gates pending now that each of the policy's named approvers (user ids) may decide, counted in the store at scrape time.",
    labelNames: ['approver'],
    registers: [this.registry],
    collect: () => this.collectByApprover(),
  });
  private countPending: (() => Promise<Map<string, number>>) | undefined;
  private pendingCounted: { atMs: number; counts: Map<string, number> } | undefined;
  private counting: Promise<void> | undefined;
  private readonly pendingApps = new Set<string>();
  private readonly pending = new Gauge({
    name: 'approvals_pending_gates',
    help: 'Gates pending now, by app, counted in the store (the latest count, started at most 5 s before the scrape unless a count takes longer); every replica reports the same count, so aggregate with max by (app).',
    labelNames: ['app'],
    registers: [this.registry],
    collect: () => this.collectPending(),
  });
  private readonly rateLimits = new Counter({
    name: 'approvals_slack_rate_limited_total',
    help: 'Slack 429 answers, by Web API method.',
    labelNames: ['method'],
    registers: [this.registry],
  });
  private readonly rateLimitWait = new Counter({
    name: 'approvals_slack_rate_limit_wait_seconds_total',
    help: 'Seconds the Web API client was told to wait by Retry-After, by method.',
    labelNames: ['method'],
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry });
    // Zero series, so that rates and sums exist before the first event.
    for (const outcome of ['delivered', 'retried', 'failed'] satisfies WebhookDeliveryOutcome[]) {
      this.webhooks.inc({ outcome }, 0);
    }
  }

  gatesOpened(app: string, count: number): void {
    this.opened.inc({ app }, count);
  }
  gateClosed(gate: ClosedGate): void {
    const { app, outcome, seconds, rule, channel, decidedBy } = gate;
    this.closed.inc({ app, outcome });
    this.decidedBy.inc({ decided_by: decidedBy });
    if (seconds === undefined) return;
    this.decisionLatency.observe({ outcome }, seconds);
    this.timeToDecision.observe({ rule, channel, decided_by: decidedBy }, seconds);
  }
  pauseToCard(seconds: number): void {
    this.pauseCard.observe(seconds);
  }
  clickToAck(seconds: number): void {
    this.ack.observe(seconds);
  }
  clickToResume(seconds: number): void {
    this.clickResume.observe(seconds);
  }
  resumeRetried(): void {
    this.retries.inc();
  }
  resumeFailed(reason: string): void {
    this.failures.inc({ reason });
  }
  webhookDelivery(outcome: WebhookDeliveryOutcome): void {
    this.webhooks.inc({ outcome });
  }
  externalCall(
    service: 'slack' | 'adk',
    method: string,
    seconds: number,
    error: string | undefined,
  ): void {
    this.calls.observe({ service, method }, seconds);
    if (error !== undefined) this.callErrors.inc({ service, method, error });
  }
  rateLimited(method: string, seconds: number): void {
    this.rateLimits.inc({ method });
    this.rateLimitWait.inc({ method }, seconds);
  }

  /** Where `approvals_pending_by_approver` is counted: the policy's named approvers, in the store. */
  countPendingByApproverWith(count: () => Promise<Map<string, number>>): void {
    this.countByApprover = count;
  }

  private async collectByApprover(): Promise<void> {
    const count = this.countByApprover;
    if (count === undefined) return;
    // One short read per named approver; on a store failure the series are dropped, not kept stale.
    const counts = await count().catch(() => undefined);
    if (counts === undefined) {
      this.pendingByApprover.reset();
      this.pendingApprovers.clear();
      return;
    }
    for (const approver of counts.keys()) this.pendingApprovers.add(approver);
    for (const approver of this.pendingApprovers) {
      this.pendingByApprover.set({ approver }, counts.get(approver) ?? 0);
    }
  }

  /** Where `approvals_pending_gates` is counted: the store, shared by every replica. */
  countPendingGatesWith(count: () => Promise<Map<string, number>>): void {
    this.countPending = count;
  }

  /**
   * Counting reads every live pause (seconds at 100,000 pending gates on a loaded machine, see
   * bench/pending-scale.bench.ts), longer than a scrape should take: only the first scrape waits
   * for a count; later ones show the latest finished count and start the next one in the
   * background once it is `PENDING_COUNT_REUSE_MS` old.
   */
  private async collectPending(): Promise<void> {
    const count = this.countPending;
    if (count === undefined) return;
    const stale =
      this.pendingCounted === undefined ||
      Date.now() - this.pendingCounted.atMs >= PENDING_COUNT_REUSE_MS;
    if (stale && this.counting === undefined) {
      const atMs = Date.now();
      this.counting = count()
        .then(
          (counts) => {
            this.pendingCounted = { atMs, counts };
          },
          () => {
            // No count is better than a stale one presented as exact; the store's outage shows
            // on /readyz and in the logs of the calls that failed.
            this.pendingCounted = undefined;
          },
        )
        .finally(() => {
          this.counting = undefined;
        });
    }
    if (this.pendingCounted === undefined) await this.counting;
    const counted = this.pendingCounted;
    if (counted === undefined) {
      this.pending.reset();
      this.pendingApps.clear();
      return;
    }
    for (const app of counted.counts.keys()) this.pendingApps.add(app);
    // An app whose last gate was decided shows 0, not a vanished series.
    for (const app of this.pendingApps) this.pending.set({ app }, counted.counts.get(app) ?? 0);
  }

  /** The text GET /metrics answers, and its content type. */
  async exposition(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}
