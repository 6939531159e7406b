import type { Clock } from '../approvals/clock.js';
import { type PauseView, viewVersion } from '../approvals/records.js';
import type { DueNudge } from '../approvals/store-roles/nudges.js';
import type { ExpiredGate } from '../approvals/store-roles/pause-sweeps.js';
import type { PauseStore } from '../approvals/store-roles/pauses.js';
import type { RunIntent, RunIntentStore } from '../approvals/store-roles/run-intents.js';
import type { Log } from '../log.js';
import type { Metrics } from '../metrics.js';
import type { CardUpdates } from './card-updates.js';
import type { ApprovalCards } from './cards.js';
import { closedGate } from './closed-gates.js';
import type { DecisionQueue } from './decision-queue.js';
import type { Reminders } from './reminders.js';
import type { ResumeScheduling } from './resume-scheduler.js';
import type { RunRecovery } from './run-recovery.js';
import { type RunStatusBoard, runThreadOf } from './run-status-board.js';
import type { KeyedWorkQueue } from './work-queue.js';

/**
 * The workflow's entry points for the sweeper (`approvals/store/sweeper.ts`): the work nobody
 * clicked that any replica may claim — expiries, reminders, resumes due, cards never posted,
 * runs whose replica died.
 */
export class SweptWork {
  constructor(
    private readonly deps: {
      store: { pauses: Pick<PauseStore, 'getPause'>; runs: Pick<RunIntentStore, 'finishRun'> };
      decisions: Pick<DecisionQueue, 'enqueue'>;
      /** Runs and resumes (long tasks), as the workflow queues its own. */
      runs: Pick<KeyedWorkQueue, 'enqueue'>;
      resumes: ResumeScheduling;
      cards: Pick<CardUpdates, 'pauseChanged'>;
      approvalCards: Pick<ApprovalCards, 'postMissing'>;
      runStatus: Pick<RunStatusBoard, 'set'>;
      reminders: Pick<Reminders, 'handle'>;
      runRecovery: Pick<RunRecovery, 'recover'>;
      clock: Clock;
      log: Log;
      metrics: Metrics;
      /** This replica, as the sweeper's claims name it. */
      owner: string;
    },
  ) {}

  /** The sweeper expired these gates: show it, and resume pauses that are now decided. */
  async onExpired(expired: readonly ExpiredGate[]): Promise<void> {
    const pauses = new Map<string, boolean>();
    const views = new Map<string, PauseView>();
    const now = this.deps.clock();
    for (const gate of expired) {
      const record = gate.view.gates.find((g) => g.confirmationCallId === gate.callId);
      if (gate.state !== 'pending') {
        this.deps.metrics.gateClosed(closedGate(gate.view, record, gate.state, now, true));
      }
      const pauseId = gate.view.pause.id;
      pauses.set(pauseId, (pauses.get(pauseId) ?? false) || gate.pauseDecided);
      // Two gates of one pause expired in one batch: the later expiry's view holds both.
      const seen = views.get(pauseId);
      if (seen === undefined || viewVersion(gate.view) > viewVersion(seen)) {
        views.set(pauseId, gate.view);
      }
    }
    await Promise.all(
      [...pauses].map(([pauseId, decided]) =>
        this.deps.decisions.enqueue(pauseId, 'show expiry', async () => {
          const view = views.get(pauseId);
          if (decided) this.deps.resumes.pauseDecided(pauseId);
          this.showCalledOff(view);
          // Drawn from the expiry's own view unless a resume follows, which changes the pause
          // before its card is drawn (read then, as after a deciding vote).
          const latest = !decided || view?.pause.resume.state === 'abandoned';
          this.deps.cards.pauseChanged(pauseId, {
            ...(view === undefined ? {} : { view }),
            resumeFollows: !latest,
          });
        }),
      ),
    );
  }

  /**
   * A pause that expired under `onExpiry: cancel` is never resumed, so nothing else tells its
   * run's root message that the wait is over: it says expired.
   */
  private showCalledOff(view: PauseView | undefined): void {
    if (view?.pause.resume.state !== 'abandoned') return;
    const thread = runThreadOf(view.pause.runThread ?? view.pause.card);
    if (thread !== undefined) this.deps.runStatus.set(thread, { kind: 'expired' });
  }

  /** Reminders and escalations the sweeper claimed for this replica. */
  async onNudges(nudges: readonly DueNudge[]): Promise<void> {
    await this.deps.reminders.handle(nudges);
  }

  /** Decided pauses nobody resumed, or whose resume lease lapsed on a replica that died. */
  async onResumeDue(pauseIds: readonly string[]): Promise<void> {
    for (const pauseId of pauseIds) this.deps.resumes.pauseDecided(pauseId);
  }

  /**
   * Pauses recorded without a card: the replica that recorded one died before posting it, and
   * nobody could see or approve it. Posted now.
   */
  async onCardless(pauseIds: readonly string[]): Promise<void> {
    await Promise.all(
      pauseIds.map((pauseId) =>
        this.deps.decisions.enqueue(pauseId, 'post a missing card', async () => {
          const view = await this.deps.store.pauses.getPause(pauseId);
          if (view === undefined || view.pause.card.ts !== undefined) return;
          // Decided already (by the policy, its line lost with Slack): nothing to ask anyone.
          if (!view.gates.some((gate) => gate.state === 'pending')) return;
          this.deps.log.warn('posting the card of a pause recorded without one', { pauseId });
          await this.deps.approvalCards.postMissing(view, { claimedBy: this.deps.owner });
        }),
      ),
    );
  }

  /**
   * Runs whose replica died, claimed by this replica's sweep: the requester is told. A run that
   * could not be told (Slack or ADK down) keeps its claim until the lease lapses, then is retried.
   */
  async onDeadRuns(intents: readonly RunIntent[]): Promise<void> {
    await Promise.all(
      intents.map((intent) =>
        this.deps.runs.enqueue(`dead-run:${intent.id}`, 'tell of a dead run', async () => {
          await this.deps.runRecovery.recover(intent);
          await this.deps.store.runs.finishRun({ runId: intent.id, owner: this.deps.owner });
        }),
      ),
    );
  }
}
