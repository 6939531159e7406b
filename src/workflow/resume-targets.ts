import type { AdkClient } from '../adk/client.js';
import type { PauseView } from '../approvals/records.js';
import type { ApprovalStore } from '../approvals/store.js';
import type { Log } from '../log.js';
import type { PersonNames } from '../slack/transport/person-names.js';
import type { ApprovalCards } from './cards.js';
import { PollResumes } from './poll-resumes.js';
import type { ResumeTiming } from './resume-sender.js';
import { type ClaimedResume, Resumer, type ResumerDeps } from './resumer.js';
import { type RunPauses, RunStreamer } from './run-streamer.js';
import {
  WebhookDeliveries,
  type WebhookDeliveryOptions,
  type WebhookKey,
} from './webhook-deliveries.js';

/** An ADK server a pause can be resumed on. */
export type ResumableAdk = Pick<AdkClient, 'getSession' | 'runSse'>;

export interface ResumeTargetsDeps {
  /** What every `Resumer` shares; each target brings its ADK server, stream and log. */
  resumers: Omit<ResumerDeps, 'adk' | 'streamer' | 'log'>;
  /** The ADK server of `/agent` runs, and the stream its runs and thread replies share. */
  adk: ResumableAdk;
  streamer: RunStreamer;
  log: Log;
  /** Pauses posted through the approvals API; absent without it. */
  external?: {
    /** ADK servers by name (`default` is ADK_BASE_URL): a pause in `adk` mode names one. */
    adkTargets: ReadonlyMap<string, ResumableAdk>;
    /** Where the pauses met by the targets' streams are recorded. */
    pauses: RunPauses;
    cards: ApprovalCards;
    /** The deciders' names in webhook bodies; absent: their user ids stand in. */
    people?: PersonNames;
    webhookKeyOf: (keyName: string) => WebhookKey | undefined;
    webhook: WebhookDeliveryOptions;
  };
}

/**
 * Where a decided pause's answer goes, and the one place its resumers are built, per target:
 * pauses of `/agent` runs resume on the default ADK server; pauses posted through the approvals
 * API by their mode: on the ADK server they name (`adk`), by a signed POST (`webhook`), or not at
 * all (`poll`: the agent reads the decision and resumes itself).
 */
export class ResumeTargets {
  private readonly runs: Resumer;
  /** A resumer for each configured ADK target, with a stream of its own. */
  private readonly adkTargets = new Map<string, Resumer>();
  private readonly webhooks: WebhookDeliveries | undefined;
  private readonly polls: PollResumes | undefined;
  private readonly store: Pick<ApprovalStore, 'pauses'>;
  private readonly log: Log;

  constructor(deps: ResumeTargetsDeps) {
    const { resumers, log, external } = deps;
    this.store = resumers.store;
    this.log = log;
    this.runs = new Resumer({
      ...resumers,
      adk: deps.adk,
      streamer: deps.streamer,
      log: log.child('resume'),
    });
    if (external === undefined) return;
    for (const [name, adk] of external.adkTargets) {
      const streamer = new RunStreamer({
        adk,
        threads: resumers.threads,
        pauses: external.pauses,
        log: log.child(`stream:${name}`),
      });
      this.adkTargets.set(
        name,
        new Resumer({ ...resumers, adk, streamer, log: log.child(`resume:${name}`) }),
      );
    }
    this.webhooks = new WebhookDeliveries({
      store: resumers.store,
      cards: external.cards,
      clock: resumers.clock,
      log: log.child('webhooks'),
      metrics: resumers.metrics,
      tracing: resumers.tracing,
      ...(external.people === undefined ? {} : { people: external.people }),
      keyOf: external.webhookKeyOf,
      options: external.webhook,
      ...(resumers.checks === undefined ? {} : { checks: resumers.checks }),
    });
    this.polls = new PollResumes({
      store: resumers.store,
      cards: external.cards,
      clock: resumers.clock,
    });
  }

  /**
   * A lease for the vote that decides the pause to claim its resume with, when this replica's
   * resumer of its target resumes it (`/agent` runs, `adk` mode); undefined for a webhook or a
   * long-poll, which claim when they deliver.
   */
  leaseAhead(view: PauseView): { owner: string; leaseMs: number } | undefined {
    const resume = view.pause.external?.resume;
    if (resume === undefined) return this.runs.leaseAhead();
    if (resume.mode !== 'adk' || this.webhooks === undefined) return undefined;
    return this.adkTargets.get(resume.target)?.leaseAhead();
  }

  /**
   * `retry`: a person pressed Retry, so a failed resume may be claimed again. `claimed`: the vote
   * that decided the pause claimed its resume with a lease from `leaseAhead`.
   */
  async resume(
    pauseId: string,
    options: { retry?: boolean; claimed?: ClaimedResume } & ResumeTiming,
  ): Promise<void> {
    if (this.webhooks === undefined || this.polls === undefined) {
      return this.runs.resume(pauseId, options);
    }
    const view = options.claimed?.view ?? (await this.store.pauses.getPause(pauseId));
    const resume = view?.pause.external?.resume;
    if (resume === undefined) return this.runs.resume(pauseId, options);
    switch (resume.mode) {
      case 'adk': {
        const resumer = this.adkTargets.get(resume.target);
        if (resumer !== undefined) return resumer.resume(pauseId, options);
        this.log.error('no such ADK target; the pause cannot be resumed', { pauseId });
        return;
      }
      case 'webhook':
        // Off the critical path as it starts: a slow receiver holds no redraw up.
        options.sending?.();
        return this.webhooks.deliver(pauseId);
      case 'poll':
        return this.polls.finish(pauseId);
    }
  }
}
