import { type Gate, gateKind } from '../adk/gate.js';
import type { Clock } from '../approvals/clock.js';
import type { GrantStore } from '../approvals/grants.js';
import { cardChannel, evaluatePolicy, type Policy } from '../approvals/policy.js';
import { type PauseView, pauseIdFor } from '../approvals/records.js';
import type { RunThreadRecords } from '../approvals/run-threads.js';
import type { ApprovalStore } from '../approvals/store.js';
import type { NewGate } from '../approvals/store-roles/pauses.js';
import { errorMessage } from '../error-message.js';
import type { Log } from '../log.js';
import { type Metrics, secondsSince } from '../metrics.js';
import { askingOf } from '../slack/render/request-words.js';
import { renderCardElsewhere } from '../slack/render/thread.js';
import type { SlackPort } from '../slack/transport/port.js';
import type { ApprovalTracing } from '../tracing/approval-tracing.js';
import type { ApiRuns } from './api-run-control.js';
import type { ApprovalChecks } from './approval-checks.js';
import type { ApprovalCards } from './cards.js';
import type { PolicyVotes } from './decider.js';
import { coverByGrants, granterCheck } from './grant-cover.js';
import {
  applyPolicyVerdicts,
  isAutomatic,
  isPending,
  type PolicyDecidedGate,
  policyDecisionsMessage,
} from './policy-decisions.js';
import type { RunOrigins } from './run-origins.js';
import { type RunStatusBoard, runThreadOf } from './run-status-board.js';
import type { RunContext, RunPauses } from './run-streamer.js';
import type { RunThreads } from './run-thread.js';

/**
 * Step 3 and 4 of the flow: records a pause with the policy that applies to each gate, then posts
 * its card. Recording the same pause twice (a retried stream, a second replica) posts no second
 * card. Gates the policy or a grant decides are voted on at once (`Decider.decideByPolicy`).
 */
export class PauseRecorder implements RunPauses {
  constructor(
    private readonly deps: {
      store: Pick<ApprovalStore, 'pauses'>;
      cards: ApprovalCards;
      threads: RunThreads;
      policy: () => Policy;
      clock: Clock;
      log: Log;
      metrics: Metrics;
      /** Keeps the run's root message saying where the run stands. Absent: it is left alone. */
      runStatus?: RunStatusBoard;
      /** Posts the thread line of gates the policy decided (its ts stands in for a card). */
      slack: SlackPort;
      /** Applies a policy's decision to a gate. */
      votes: PolicyVotes;
      tracing: ApprovalTracing;
      /** People's scoped grants, which may decide a call a person would be asked about. */
      grants?: GrantStore;
      /** May a grant's granter still approve this call? Absent: not asked before the resume. */
      checks?: Pick<ApprovalChecks, 'granterMayApprove'>;
      /** Each run thread's record, which learns the pauses of its session. */
      runThreads: Pick<RunThreadRecords, 'notePause'>;
      /**
       * Runs started over the API or by an alert: the source and labels their pauses carry into
       * the policy, and the pauses each run met. Absent: every pause is from Slack.
       */
      origins?: Pick<RunOrigins, 'originOf'>;
      /** Told of each pause recorded, so that a started run knows its pauses. */
      startedRuns?: Pick<ApiRuns, 'pauseRecorded'>;
    },
  ) {}

  /**
   * A pause a run's stream met: recorded, its card posted, and noted on its run thread's record.
   * Each `/agent` pause starts a trace of its own (the run has no trace to join).
   */
  async record(
    context: RunContext,
    gates: Gate[],
    invocationId: string | undefined,
  ): Promise<{ pauseId: string }> {
    const recorded = await this.recordInTrace(context, gates, invocationId);
    const { channelId, threadTs } = context.thread;
    if (threadTs !== undefined) {
      await this.deps.runThreads.notePause(channelId, threadTs, recorded.pauseId);
    }
    await this.deps.startedRuns?.pauseRecorded(context.thread, recorded.pauseId);
    return recorded;
  }

  private async recordInTrace(
    context: RunContext,
    gates: Gate[],
    invocationId: string | undefined,
  ): Promise<{ pauseId: string }> {
    const span = this.deps.tracing.startPause(undefined, {
      app: context.appName,
      tools: gates.map((gate) => gate.originalCall.name),
      source: 'slack',
    });
    try {
      const recorded = await this.recordTraced(context, gates, invocationId, span.traceparent);
      span.end(recorded);
      return recorded;
    } catch (error) {
      span.end({ error: errorMessage(error) });
      throw error;
    }
  }

  private async recordTraced(
    context: RunContext,
    gates: Gate[],
    invocationId: string | undefined,
    traceparent: string | undefined,
  ): Promise<{ pauseId: string }> {
    const { store, cards, log, metrics } = this.deps;
    const started = performance.now();
    const policy = this.deps.policy();
    const now = new Date(this.deps.clock());
    const origin = await this.deps.origins?.originOf(context.thread);
    const resolved = gates.map((gate) => {
      const verdict = evaluatePolicy(policy, {
        app: context.appName,
        tool: gate.originalCall.name,
        kind: gateKind(gate),
        args: gate.originalCall.args,
        ...(gate.payloadTemplate === undefined ? {} : { payload: gate.payloadTemplate }),
        requester: { id: context.requester },
        channel: context.thread.channelId,
        source: origin?.source ?? 'slack',
        ...(origin === undefined ? {} : { labels: origin.labels }),
        now,
      });
      // A question needs its answer from a person: allow and deny apply to tool calls only.
      const byPolicy = verdict.decision !== 'ask' && gateKind(gate) === 'confirmation';
      if (byPolicy) verdict.resolved.policy.quorum = 1;
      return { gate, ...verdict.resolved, verdict: byPolicy ? verdict : undefined };
    });
    // One card per pause: it goes where the first gate's rule sends it, else into the run's
    // thread (or, for a run in a direct message, the policy's approvals channel).
    const runChannel = context.thread.channelId;
    const channel =
      resolved
        .map((entry) => cardChannel(policy, entry, runChannel))
        .find((c) => c !== runChannel) ?? runChannel;
    const elsewhere = channel !== runChannel;
    const runPermalink =
      elsewhere && context.thread.threadTs !== undefined
        ? await this.deps.threads.permalink(runChannel, context.thread.threadTs)
        : undefined;
    const adk = {
      appName: context.appName,
      userId: context.userId,
      sessionId: context.sessionId,
      ...(invocationId === undefined ? {} : { invocationId }),
    };
    const newGates: NewGate[] = resolved.map((entry) => ({ ...entry.gate, policy: entry.policy }));

    const result = await store.pauses.createPause({
      id: pauseIdFor('slack', adk, gates),
      adk,
      requester: context.requester,
      card: elsewhere
        ? { channelId: channel, ...teamOf(context) }
        : {
            channelId: context.thread.channelId,
            threadTs: context.thread.threadTs,
            ...teamOf(context),
          },
      ...(elsewhere && context.thread.threadTs !== undefined
        ? { runThread: { channelId: context.thread.channelId, threadTs: context.thread.threadTs } }
        : {}),
      ...(elsewhere
        ? {
            origin: {
              ...(context.prompt === undefined ? {} : { prompt: context.prompt }),
              ...(runPermalink === undefined ? {} : { permalink: runPermalink }),
            },
          }
        : {}),
      gates: newGates,
      ...(traceparent === undefined ? {} : { traceparent }),
      now: this.deps.clock(),
    });
    const { view } = result;
    // Grants are looked up once, by the request that recorded the pause (their uses count).
    const entries =
      result.kind === 'created'
        ? await coverByGrants(this.deps.grants, resolved, {
            origin: 'slack',
            app: context.appName,
            requester: context.requester,
            adk,
            now: this.deps.clock(),
            log,
            ...granterCheck(this.deps.checks, view),
          })
        : resolved;
    const byPolicy = entries.filter(isAutomatic);
    if (byPolicy.length > 0 && byPolicy.length === gates.length) {
      if (result.kind === 'created') metrics.gatesOpened(context.appName, gates.length);
      await this.decideAllByPolicy(context, view, byPolicy);
      return { pauseId: view.pause.id };
    }
    if (result.kind === 'existed' && view.pause.card.ts !== undefined) {
      log.info('pause already recorded; its card exists', { pauseId: view.pause.id });
      // A replica that died between the card and the policy's decisions left them to apply.
      await applyPolicyVerdicts(this.deps.votes, view, byPolicy);
      return { pauseId: view.pause.id };
    }
    log.info('pause recorded', {
      pauseId: view.pause.id,
      app: context.appName,
      gates: gates.length,
      tools: gates.map((gate) => gate.originalCall.name).join(','),
    });
    if (result.kind === 'created') metrics.gatesOpened(context.appName, gates.length);
    const posted = await cards.post(view);
    metrics.pauseToCard(secondsSince(started));
    const cardTs = posted.pause.card.ts;
    const runThread = runThreadOf(context.thread);
    if (runThread !== undefined) {
      const card =
        cardTs === undefined
          ? {}
          : { card: { channelId: posted.pause.card.channelId, ts: cardTs } };
      this.deps.runStatus?.set(runThread, { kind: 'waiting', ...card });
    }
    if (byPolicy.length > 0) {
      await this.deps.threads.post(context.thread, policyDecisionsMessage(byPolicy));
      await applyPolicyVerdicts(this.deps.votes, view, byPolicy);
    }
    if (elsewhere && cardTs !== undefined) {
      const permalink = await this.deps.threads.permalink(posted.pause.card.channelId, cardTs);
      await this.deps.threads.post(
        context.thread,
        renderCardElsewhere({
          channelId: posted.pause.card.channelId,
          asking: askingOf(gates),
          ...(permalink === undefined ? {} : { permalink }),
        }),
      );
    }
    return { pauseId: view.pause.id };
  }

  /**
   * Every gate decided by the policy: no card. One line in the run's thread says what and which
   * rule; its ts is saved as the pause's card, so that nothing posts a "missing" card later.
   * The line goes first, then the decisions (the last one starts the resume).
   */
  private async decideAllByPolicy(
    context: RunContext,
    view: PauseView,
    entries: readonly PolicyDecidedGate[],
  ): Promise<void> {
    const pending = entries.filter(({ gate }) => isPending(view, gate));
    if (pending.length === 0) return;
    const line = policyDecisionsMessage(pending);
    // Slack being down delays no decision: the line is for people, the decision is the policy's.
    const posted = await this.deps.slack
      .postMessage({
        channel: context.thread.channelId,
        ...(context.thread.threadTs === undefined ? {} : { threadTs: context.thread.threadTs }),
        ...line,
      })
      .catch((error: unknown) => {
        this.deps.log.warn('could not post the policy decision line', {
          pauseId: view.pause.id,
          error: errorMessage(error),
        });
        return undefined;
      });
    await applyPolicyVerdicts(this.deps.votes, view, pending);
    if (posted !== undefined && view.pause.card.ts === undefined) {
      await this.deps.store.pauses.setCardTs(view.pause.id, posted.ts, this.deps.clock());
    }
    this.deps.log.info('pause decided by the policy', {
      pauseId: view.pause.id,
      rules: pending.map(({ verdict, grant }) => grant?.id ?? verdict?.rule.name).join(','),
    });
  }
}

function teamOf(context: RunContext): { teamId?: string } {
  return context.teamId === undefined ? {} : { teamId: context.teamId };
}
