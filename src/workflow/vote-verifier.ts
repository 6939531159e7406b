import type { Clock } from '../approvals/clock.js';
import type { VoteCheck } from '../approvals/outcomes.js';
import type { PauseView } from '../approvals/records.js';
import { type ApprovalStore, StoreError } from '../approvals/store.js';
import { errorMessage } from '../error-message.js';
import type { Log } from '../log.js';
import type { SlackMessage } from '../slack/codecs/block-kit.js';
import { renderVoteCheck } from '../slack/render/notices.js';
import type { CardUpdates } from './card-updates.js';
import type { ResumeScheduling } from './resume-scheduler.js';

/** Waits between reads of a store that has not answered yet; about a minute in all. */
const DEFAULT_DELAYS_MS = [250, 500, 1_000, 2_000, 4_000, 8_000, 15_000, 30_000];

export interface VoteToVerify {
  pauseId: string;
  voter: string;
  /** The gates voted on; empty: any gate of the pause (Approve all). */
  callIds: readonly string[];
}

/**
 * After a vote whose answer never came (`StoreError('outcome_unknown')`): reads the pause again
 * once the store answers, tells the voter what actually happened, and carries on as the vote
 * would have — resume a pause it decided, refresh the card — so that an approved gate never
 * waits for the 5-minute re-check with live buttons on its card.
 */
export class VoteVerifier {
  constructor(
    private readonly deps: {
      store: Pick<ApprovalStore, 'pauses'>;
      clock: Clock;
      log: Log;
      /** Told of a pause the verified vote decided. */
      resumes: ResumeScheduling;
      /** The card is redrawn and its Homes follow; never waits on Slack. */
      cards: Pick<CardUpdates, 'pauseChanged'>;
      delaysMs?: readonly number[];
      sleep?: (ms: number) => Promise<void>;
    },
  ) {}

  /** In the background; `tell` reaches the voter privately. */
  verify(vote: VoteToVerify, tell: (message: SlackMessage) => Promise<void>): void {
    void this.check(vote).then(
      async (check) => {
        this.deps.log.info('checked a vote whose outcome was unknown', {
          pauseId: vote.pauseId,
          voter: vote.voter,
          outcome: check.kind,
        });
        await tell(renderVoteCheck(check));
      },
      (error: unknown) => {
        this.deps.log.error('checking a vote failed', {
          pauseId: vote.pauseId,
          error: errorMessage(error),
        });
      },
    );
  }

  private async check(vote: VoteToVerify): Promise<VoteCheck> {
    const sleep = this.deps.sleep ?? defaultSleep;
    for (const delay of this.deps.delaysMs ?? DEFAULT_DELAYS_MS) {
      await sleep(delay);
      let view: PauseView | undefined;
      try {
        view = await this.deps.store.pauses.getPause(vote.pauseId);
      } catch (error) {
        if (!(error instanceof StoreError) || error.reason === 'corrupt_record') throw error;
        continue;
      }
      if (view === undefined) return { kind: 'not_recorded' };
      const gates = view.gates.filter(
        (gate) => vote.callIds.length === 0 || vote.callIds.includes(gate.confirmationCallId),
      );
      const mine = gates.filter((gate) => gate.votes.some((v) => v.voter === vote.voter));
      if (mine.length === 0) return { kind: 'not_recorded' };
      if (view.gates.every((gate) => gate.state !== 'pending')) {
        this.deps.resumes.pauseDecided(vote.pauseId);
      }
      this.deps.cards.pauseChanged(vote.pauseId);
      return { kind: 'recorded', states: mine.map((gate) => gate.state) };
    }
    return { kind: 'still_unknown' };
  }
}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
