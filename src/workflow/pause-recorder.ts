import { type Gate, gateKind } from '../adk/gate.js';
import type { Clock } from '../approvals/clock.js';
import { cardChannel, type Policy, resolveGatePolicy } from '../approvals/policy.js';
import { pauseIdFor } from '../approvals/records.js';
import type { ConfirmationStore, NewGate } from '../approvals/store.js';
import type { Log } from '../log.js';
import { type Metrics, secondsSince } from '../metrics.js';
import { askingOf } from '../slack/request-words.js';
import { renderCardElsewhere } from '../slack/thread.js';
import type { ApprovalCards } from './cards.js';
import { type RunStatusBoard, runThreadOf } from './run-status-board.js';
import type { RunContext } from './run-streamer.js';
import type { RunThreads } from './run-thread.js';

/**
 * Step 3 and 4 of the flow: records a pause with the policy that applies to each gate, then posts
 * its card. Recording the same pause twice (a retried stream, a second replica) posts no second
 * card.
 */
export class PauseRecorder {
  constructor(
    private readonly deps: {
      store: ConfirmationStore;
      cards: ApprovalCards;
      threads: RunThreads;
      policy: () => Policy;
      clock: Clock;
      log: Log;
      metrics: Metrics;
      /** Keeps the run's root message saying where the run stands. Absent: it is left alone. */
      runStatus?: RunStatusBoard;
    },
  ) {}

  async record(
    context: RunContext,
    gates: Gate[],
    invocationId: string | undefined,
  ): Promise<{ pauseId: string }> {
    const { store, cards, log, metrics } = this.deps;
    const started = performance.now();
    const policy = this.deps.policy();
    const resolved = gates.map((gate) => ({
      gate,
      ...resolveGatePolicy(policy, {
        app: context.appName,
        tool: gate.originalCall.name,
        kind: gateKind(gate),
      }),
    }));
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

    const result = await store.createPause({
      id: pauseIdFor(
        adk,
        gates.map((gate) => gate.confirmationCallId),
      ),
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
      now: this.deps.clock(),
    });
    const { view } = result;
    if (result.kind === 'existed' && view.pause.card.ts !== undefined) {
      log.info('pause already recorded; its card exists', { pauseId: view.pause.id });
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
}

function teamOf(context: RunContext): { teamId?: string } {
  return context.teamId === undefined ? {} : { teamId: context.teamId };
}
