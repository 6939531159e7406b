import { createHmac, randomUUID } from 'node:crypto';
import type { Clock } from '../approvals/clock.js';
import type { PauseView } from '../approvals/records.js';
import type { ApprovalStore } from '../approvals/store.js';
import { errorMessage } from '../error-message.js';
import type { Log } from '../log.js';
import type { Metrics } from '../metrics.js';
import type { PersonNames } from '../slack/transport/person-names.js';
import type { ApprovalTracing } from '../tracing/approval-tracing.js';
import type { ApprovalChecks } from './approval-checks.js';
import type { ApprovalCards } from './cards.js';
import { refuseIfReported } from './hand-overs.js';
import { deciderNames, decisionBody } from './pause-decision.js';

export interface WebhookKey {
  secret: string;
  /** Is this URL still under one of the key's allowed prefixes? Checked again at each attempt. */
  allows: (url: string) => boolean;
}

export interface WebhookDeliveryOptions {
  owner: string;
  /** Longest one POST may take. Default 10 s. */
  timeoutMs?: number;
  /** First retry delay; doubles per attempt up to `maxBackoffMs`. Default 1 s. */
  backoffMs?: number;
  /** Default 10 min. */
  maxBackoffMs?: number;
}

/** `X-Approvals-Signature: t=<unix>,v1=<hex HMAC-SHA256(secret, t + "." + body)>` */
export function webhookSignature(secret: string, unixSeconds: number, body: string): string {
  const mac = createHmac('sha256', secret).update(`${unixSeconds}.${body}`).digest('hex');
  return `t=${unixSeconds},v1=${mac}`;
}

/**
 * Delivers a decided pause to its webhook. A delivery is a resume: it is claimed with the
 * pause's resume lease, in Redis, so exactly one replica attempts it at a time. A failed attempt
 * is not marked: its lease simply lapses after the backoff, and the sweeper of any replica (or
 * of this one after a restart) hands it back as a due resume. Success marks the pause resumed.
 */
export class WebhookDeliveries {
  constructor(
    private readonly deps: {
      store: Pick<ApprovalStore, 'pauses' | 'reports' | 'notes' | 'leases'>;
      cards: ApprovalCards;
      clock: Clock;
      log: Log;
      metrics: Metrics;
      tracing: ApprovalTracing;
      /** The deciders' names in decisions; absent: their user ids stand in. */
      people?: PersonNames;
      keyOf: (keyName: string) => WebhookKey | undefined;
      options: WebhookDeliveryOptions;
      fetch?: typeof fetch;
      /** The re-check at the moment of use. Absent: approvals are not re-checked. */
      checks?: Pick<ApprovalChecks, 'recheck'>;
    },
  ) {}

  async deliver(pauseId: string): Promise<void> {
    const { store, cards, log, options } = this.deps;
    const timeoutMs = options.timeoutMs ?? 10_000;
    const before = await store.pauses.getPause(pauseId);
    const origin = before?.pause.external;
    if (before === undefined || origin?.resume.mode !== 'webhook') return;
    // The lease is the wait before the next attempt: the attempt itself plus the backoff.
    const backoff = Math.min(
      (options.backoffMs ?? 1_000) * 2 ** before.pause.resume.attempts,
      options.maxBackoffMs ?? 600_000,
    );
    const owner = `${options.owner}:${randomUUID().slice(0, 8)}`;
    const claim = await store.leases.claimResume({
      pauseId,
      owner,
      now: this.deps.clock(),
      leaseMs: timeoutMs + backoff,
    });
    if (claim.kind !== 'claimed') return;
    const { view, attempt } = claim;
    const key = this.deps.keyOf(origin.keyName);
    const url = origin.resume.url;
    if (key === undefined || !key.allows(url)) {
      // The key or its allowance was removed since the pause was posted: fail closed, visibly.
      await store.leases.markResumeFailed({
        pauseId,
        owner,
        now: this.deps.clock(),
        error: 'the webhook URL is no longer allowed for this API key',
      });
      this.deps.metrics.webhookDelivery('failed');
      await cards.refresh(pauseId);
      return;
    }
    const sentBack = await this.deps.checks?.recheck(view);
    if (sentBack !== undefined) {
      // An approval that no longer holds: nothing is delivered; the gate waits for a new decision.
      const reopened = await store.pauses.reopen({
        pauseId,
        owner,
        ...sentBack,
        now: this.deps.clock(),
      });
      log.warn('approval sent back before delivery; nothing delivered', {
        pauseId,
        outcome: reopened.kind,
      });
      await cards.refresh(pauseId);
      return;
    }
    const body = JSON.stringify({
      type: 'pause.decided',
      ...decisionBody(
        view,
        { keyName: origin.keyName, secret: key.secret },
        await deciderNames(view, this.deps.people),
      ),
    });
    await this.note(pauseId, owner, { state: 'delivering', attempts: attempt });
    const sentAt = this.deps.clock();
    const error = await this.post(url, view, body, key.secret, timeoutMs);
    this.deps.tracing.resumeSent(view, {
      how: 'webhook',
      startedAt: sentAt,
      attempt,
      ...(error === undefined ? {} : { error }),
    });
    if (error === undefined) {
      await store.leases.markResumed({ pauseId, owner, now: this.deps.clock() });
      // The receiver may have resumed its agent, and reported a refusal, before it answered.
      await refuseIfReported(store, view, this.deps.clock());
      await this.note(pauseId, owner, { state: 'delivered', attempts: attempt });
      log.info('decision delivered by webhook', { pauseId, attempt });
      this.deps.metrics.webhookDelivery('delivered');
    } else {
      await this.note(pauseId, owner, { state: 'retrying', attempts: attempt, lastError: error });
      this.deps.metrics.webhookDelivery('retried');
      log.warn('webhook delivery failed; retried when its lease lapses', {
        pauseId,
        attempt,
        error,
        retryInMs: timeoutMs + backoff,
      });
    }
    await cards.refresh(pauseId);
  }

  /** Undefined when the receiver answered 2xx; else why not (a status or a network error). */
  private async post(
    url: string,
    view: PauseView,
    body: string,
    secret: string,
    timeoutMs: number,
  ): Promise<string | undefined> {
    const send = this.deps.fetch ?? fetch;
    try {
      const response = await send(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-approvals-delivery': view.pause.id,
          // The receiver's work joins the pause's trace (W3C Trace Context).
          ...(view.pause.traceparent === undefined ? {} : { traceparent: view.pause.traceparent }),
          'x-approvals-signature': webhookSignature(
            secret,
            Math.floor(this.deps.clock() / 1000),
            body,
          ),
        },
        body,
        // A redirect could lead anywhere: only the allowed URL itself counts.
        redirect: 'manual',
        signal: AbortSignal.timeout(timeoutMs),
      });
      await response.body?.cancel();
      return response.ok ? undefined : `HTTP ${response.status}`;
    } catch (error) {
      return `network: ${errorMessage(error)}`;
    }
  }

  private async note(
    pauseId: string,
    owner: string,
    status: {
      state: 'delivering' | 'delivered' | 'retrying';
      attempts: number;
      lastError?: string;
    },
  ): Promise<void> {
    try {
      await this.deps.store.reports.recordDelivery({
        pauseId,
        delivery: { ...status, at: this.deps.clock() },
        actor: owner,
      });
    } catch (error) {
      this.deps.log.warn('could not record the delivery status', {
        pauseId,
        error: errorMessage(error),
      });
    }
  }
}
