import { randomUUID } from 'node:crypto';
import type { AdkClient } from '../adk/client.js';
import type { Clock } from '../approvals/clock.js';
import { apiActor, standDownActor } from '../approvals/deciders.js';
import { canRouteCards, type Policy } from '../approvals/policy.js';
import type { RunRoot, RunStatus, RunStatusStore } from '../approvals/run-status.js';
import {
  runEnded,
  type StartedRunRecord,
  type StartedRunStatus,
  type StartedRuns,
} from '../approvals/started-runs.js';
import type { PauseStore } from '../approvals/store-roles/pauses.js';
import { errorMessage } from '../error-message.js';
import type { Log } from '../log.js';
import { renderJoinedNote, renderRunClosedNote, renderRunNote } from '../slack/render/run-notes.js';
import type { RunRecord, RunStarts, StandDownReason, StartRunInput } from './api-runs.js';
import { RunStartRefused } from './api-runs.js';
import type { CardUpdates } from './card-updates.js';
import type { HeldRun, RunIntents } from './run-intents.js';
import type { RunLauncher } from './run-launcher.js';
import type { RunStatusBoard } from './run-status-board.js';
import type { RunThreads, ThreadRef } from './run-thread.js';
import type { KeyedWorkQueue } from './work-queue.js';

/** How long a start that joined a run still being started waits for its thread to say so. */
const THREAD_WAIT_MS = 10_000;
const THREAD_POLL_MS = 50;

/**
 * Runs started over the API (`POST /v1/runs`) or by an alert (`RunStarts`): started on the one
 * launch path `/agent` takes, joined by their dedupe key while open, and closed by a cancel or a
 * stand-down, which close their pending approvals so that nothing resumes after them.
 */
export class ApiRuns implements RunStarts {
  constructor(
    private readonly deps: {
      runs: StartedRuns;
      adk: Pick<AdkClient, 'listApps'>;
      threads: RunThreads;
      /** The run threads' statuses, kept by the status board: where an open run stands. */
      runStatus: Pick<RunStatusStore, 'read'>;
      board?: Pick<RunStatusBoard, 'set'>;
      store: { pauses: Pick<PauseStore, 'cancel' | 'getPause'> };
      cards: Pick<CardUpdates, 'pauseChanged'>;
      policy: () => Policy;
      clock: Clock;
      log: Log;
      /** Runs the first stream once the start has been answered (nobody waits for it). */
      work: Pick<KeyedWorkQueue, 'enqueue'>;
      /**
       * Run intents, as `/agent` holds them: a replica that dies mid-run stops renewing its
       * intent, and another replica's sweep tells the thread and ends the run
       * (`RunRecovery`, then `recovered` here). Absent: a dead replica's run stays open.
       */
      intents?: Pick<RunIntents, 'accept'>;
    },
  ) {}

  private launcher: RunLauncher | undefined;

  /**
   * The launch path, given once it exists: it streams into the pause recorder, which tells this
   * class of each pause (the loop the scheduler's `resumeOn` closes the same way).
   */
  launchOn(launcher: RunLauncher): void {
    this.launcher = launcher;
  }

  async start(input: StartRunInput): Promise<{ run: RunRecord; joined: boolean }> {
    const { runs } = this.deps;
    if (!canRouteCards(this.deps.policy(), input.app, input.channel)) {
      throw new RunStartRefused(
        'no_card_channel',
        'channel: approvers cannot be reached from this channel and the policy names no channel for this app; name a channel the app is in',
      );
    }
    await this.checkApp(input.app);
    const record: StartedRunRecord = {
      id: randomUUID(),
      app: input.app,
      channel: input.channel,
      status: 'starting',
      startedBy: input.startedBy,
      source: input.source,
      ...(input.labels === undefined ? {} : { labels: input.labels }),
      ...(input.dedupeKey === undefined ? {} : { dedupeKey: input.dedupeKey }),
      ...(input.keyId === undefined ? {} : { keyId: input.keyId }),
      pauseIds: [],
      createdAt: this.deps.clock(),
    };
    // A held key whose run has ended (its end not yet noticed) is released, then taken again.
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const begun = await runs.begin(record);
      if (begun.kind === 'begun') return { run: await this.open(begun.run, input), joined: false };
      const held = await this.refresh(begun.run);
      if (!runEnded(held)) {
        this.deps.log.info('run joined', { runId: held.id, app: held.app });
        void this.joined(held.id, input);
        return { run: held, joined: true };
      }
      await runs.release(held);
    }
    throw new Error('the dedupe key stayed held by runs that ended');
  }

  async get(runId: string): Promise<RunRecord | undefined> {
    const run = await this.deps.runs.read(runId);
    return run && this.refresh(run);
  }

  /** The run as it stands, and its pauses still pending (what `GET /v1/runs/{id}` shows). */
  async view(runId: string): Promise<{ run: RunRecord; pending: string[] } | undefined> {
    const run = await this.get(runId);
    if (run === undefined) return undefined;
    const views = await Promise.all(run.pauseIds.map((id) => this.deps.store.pauses.getPause(id)));
    const pending = views.flatMap((view) =>
      view?.gates.some((gate) => gate.state === 'pending') ? [view.pause.id] : [],
    );
    return { run, pending };
  }

  async note(runId: string, text: string): Promise<void> {
    const thread = await this.threadOf(runId);
    if (thread !== undefined) await this.deps.threads.post(thread, renderRunNote(text));
  }

  async cancel(runId: string, by: string): Promise<void> {
    await this.close(runId, 'cancelled', `cancelled by ${by}`, apiActor(by), {
      kind: 'cancelled',
      by,
    });
  }

  async standDown(runId: string, reason: StandDownReason): Promise<void> {
    const words = `alert resolved at ${clockTime(reason.at)}`;
    await this.close(runId, 'stood_down', words, standDownActor(runId), {
      kind: 'stood_down',
      reason: words,
    });
  }

  /**
   * A pause was recorded in a thread: noted on its run, and closed at once when the run was
   * cancelled or stood down while its stream was still running (nothing resumes after that).
   */
  async pauseRecorded(thread: ThreadRef, pauseId: string): Promise<void> {
    if (thread.threadTs === undefined) return;
    const { runs } = this.deps;
    const runId = await runs.findByThread(thread.channelId, thread.threadTs);
    if (runId === undefined) return;
    await runs.addPause(runId, pauseId);
    const run = await runs.read(runId);
    if (run?.status === 'cancelled' || run?.status === 'stood_down') {
      await this.closePause(pauseId, run, run.reason ?? run.status);
    } else if (run !== undefined) {
      await runs.update(runId, { status: 'waiting' });
    }
  }

  private async checkApp(app: string): Promise<void> {
    let apps: string[];
    try {
      apps = await this.deps.adk.listApps();
    } catch (error) {
      // The session's creation will fail and say so in the thread.
      this.deps.log.warn('could not list ADK apps', { error: errorMessage(error) });
      return;
    }
    if (!apps.includes(app)) {
      throw new RunStartRefused('unknown_app', `app: not an agent app of the ADK server (${app})`);
    }
  }

  /** Posts the root and hands the first stream to the background. */
  private async open(run: StartedRunRecord, input: StartRunInput): Promise<RunRecord> {
    const { runs, log } = this.deps;
    const launcher = this.launcher;
    if (launcher === undefined) throw new Error('ApiRuns: launchOn was not called');
    const requester = input.keyId === undefined ? `api:${input.source}` : apiActor(input.keyId);
    const root: RunRoot = {
      userId: requester,
      appName: input.app,
      prompt: input.prompt,
      startedBy: input.startedBy,
    };
    const started = await launcher.open(input.channel, root);
    if (started.kind === 'refused') {
      const reason = `Slack refused the thread root (${started.code})`;
      await runs.update(run.id, { status: 'failed', endedAt: this.deps.clock(), reason });
      throw new RunStartRefused(
        'cannot_post',
        `channel: Slack refused to post there (${started.code}); invite the app to the channel`,
      );
    }
    const { thread } = started;
    const [opened, held] = await Promise.all([
      runs.update(run.id, { threadTs: thread.threadTs, status: 'running' }),
      this.holdIntent(thread, requester, input),
      launcher.begin(thread, root),
    ]);
    void this.deps.work.enqueue(`started-run:${run.id}`, 'started run', async () => {
      try {
        const outcome = await launcher.run(thread, {
          app: input.app,
          userId: requester,
          requester,
          teamId: undefined,
          prompt: input.prompt,
          onSession: async (sessionId) => {
            await Promise.all([
              runs.update(run.id, { sessionId }),
              held?.progress({ appName: input.app, sessionId }),
            ]);
          },
        });
        if (outcome !== 'waiting') {
          await runs.update(run.id, { status: outcome, endedAt: this.deps.clock() });
        }
        log.info('run stream ended', { runId: run.id, outcome });
      } finally {
        await held?.finish();
      }
    });
    return opened ?? run;
  }

  /** The run's intent, held while its first stream goes on, its thread known from the start. */
  private async holdIntent(
    thread: ThreadRef & { threadTs: string },
    requester: string,
    input: StartRunInput,
  ): Promise<HeldRun | undefined> {
    const held = await this.deps.intents?.accept({
      userId: requester,
      teamId: undefined,
      channelId: thread.channelId,
      text: input.prompt,
    });
    await held?.progress({ threadTs: thread.threadTs, appName: input.app });
    return held;
  }

  /**
   * A run whose replica died was told of in its thread (`RunRecovery`): with cards posted it
   * waits for them as any run does; without, it has ended, and its dedupe key is let go, so
   * that the next alert or start begins a run instead of joining a dead one.
   */
  async recovered(thread: ThreadRef & { threadTs: string }, pauses: number): Promise<void> {
    // With cards, its status follows its thread's as any open run's does (`refresh`).
    if (pauses > 0) return;
    const { runs } = this.deps;
    const runId = await runs.findByThread(thread.channelId, thread.threadTs);
    if (runId === undefined) return;
    const reason = 'the replica running it stopped before the agent finished';
    const run = await runs.update(runId, { status: 'failed', endedAt: this.deps.clock(), reason });
    if (run?.status === 'failed') this.deps.board?.set(thread, { kind: 'failed' });
  }

  /** "Joined: …" in the run's thread, once the thread exists. */
  private async joined(runId: string, input: StartRunInput): Promise<void> {
    const thread = await this.threadOf(runId, THREAD_WAIT_MS);
    if (thread === undefined) {
      this.deps.log.warn('a joined run has no thread to say so in', { runId });
      return;
    }
    await this.deps.threads.post(thread, renderJoinedNote(input.startedBy));
  }

  private async threadOf(runId: string, waitMs = 0): Promise<ThreadRef | undefined> {
    const deadline = this.deps.clock() + waitMs;
    for (;;) {
      const run = await this.deps.runs.read(runId);
      if (run === undefined) return undefined;
      if (run.threadTs !== undefined) return { channelId: run.channel, threadTs: run.threadTs };
      if (run.status !== 'starting' || this.deps.clock() >= deadline) return undefined;
      await new Promise((resolve) => setTimeout(resolve, THREAD_POLL_MS));
    }
  }

  /**
   * The run as it stands: an open run's status follows its thread's (the status board's), and a
   * run found ended is recorded so (which releases its dedupe key).
   */
  private async refresh(run: StartedRunRecord): Promise<StartedRunRecord> {
    if (runEnded(run) || run.threadTs === undefined) return run;
    const board = await this.deps.runStatus.read({
      channelId: run.channel,
      threadTs: run.threadTs,
    });
    if (board === undefined) return run;
    const status = statusOf(board.status);
    if (status === run.status) return run;
    const ended = runEnded({ status });
    const change = ended ? { status, endedAt: this.deps.clock() } : { status };
    return (await this.deps.runs.update(run.id, change)) ?? run;
  }

  private async close(
    runId: string,
    status: 'cancelled' | 'stood_down',
    reason: string,
    actor: string,
    note: Parameters<typeof renderRunClosedNote>[0],
  ): Promise<void> {
    const { runs, log } = this.deps;
    const before = await runs.read(runId);
    if (before === undefined || runEnded(before)) return;
    const run = await runs.update(runId, { status, endedAt: this.deps.clock(), reason });
    if (run === undefined || run.status !== status) return;
    log.info(`run ${status}`, { runId, pauses: run.pauseIds.length });
    for (const pauseId of run.pauseIds) await this.closePause(pauseId, run, reason, actor);
    if (run.threadTs !== undefined) {
      const thread = { channelId: run.channel, threadTs: run.threadTs };
      this.deps.board?.set(thread, { kind: status });
      await this.deps.threads.post(thread, renderRunClosedNote(note));
    }
  }

  /** Closes what is pending of one pause: never resumed (the store abandons it), card redrawn. */
  private async closePause(
    pauseId: string,
    run: StartedRunRecord,
    reason: string,
    actor = run.status === 'stood_down' ? standDownActor(run.id) : apiActor(run.keyId ?? 'run'),
  ): Promise<void> {
    const result = await this.deps.store.pauses.cancel({
      pauseId,
      by: actor,
      reason,
      now: this.deps.clock(),
    });
    if (result.kind === 'cancelled') this.deps.cards.pauseChanged(pauseId);
  }
}

/** A run's status from its thread's: every way a run thread ends is `done` for the run. */
function statusOf(status: RunStatus): StartedRunStatus {
  switch (status.kind) {
    case 'running':
      return 'running';
    case 'waiting':
      return 'waiting';
    case 'failed':
      return 'failed';
    case 'cancelled':
      return 'cancelled';
    case 'stood_down':
      return 'stood_down';
    default:
      return 'done';
  }
}

/** "2026-11-28 03:12 UTC": a time every reader of the thread reads the same. */
function clockTime(at: number): string {
  return `${new Date(at).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}
