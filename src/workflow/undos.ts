import type { Clock } from '../approvals/clock.js';
import type { Refusal } from '../approvals/outcomes.js';
import type { Policy } from '../approvals/policy.js';
import type { ApprovalStore } from '../approvals/store.js';
import type { Log } from '../log.js';
import { renderUndone } from '../slack/render/thread.js';
import type { CardUpdates } from './card-updates.js';
import type { DecisionReply } from './decider.js';
import type { RunThreads } from './run-thread.js';

/**
 * Undo, within a rule's `undoWindow`: the resume of an approved pause is held that long after the
 * deciding vote (its end is in Redis, so any replica's sweeper sends it once it passes, also after
 * a restart), and meanwhile the approver, or a policy admin, may take the approval back. The gates
 * are pending again; the card and the run's thread say who undid it. Nothing reached the agent.
 */
export class Undos {
  constructor(
    private readonly deps: {
      store: Pick<ApprovalStore, 'pauses'>;
      policy: () => Policy;
      threads: RunThreads;
      clock: Clock;
      log: Log;
      /** The card is redrawn and its Homes follow; never waits on Slack. */
      cards: Pick<CardUpdates, 'pauseChanged'>;
    },
  ) {}

  async undo(pauseId: string, user: string): Promise<DecisionReply> {
    const admin = (this.deps.policy().admins ?? []).includes(user);
    const result = await this.deps.store.pauses.undo({
      pauseId,
      by: user,
      admin,
      now: this.deps.clock(),
    });
    switch (result.kind) {
      case 'not_found':
        return refuse({ kind: 'pause_gone' });
      case 'too_late':
        // Pending again (undone already, or sent back): a stale card, not a late click.
        return refuse(
          result.view.gates.some((gate) => gate.state === 'pending')
            ? { kind: 'not_found' }
            : { kind: 'too_late' },
        );
      case 'not_decider':
        return refuse({ kind: 'not_decider' });
      case 'undone': {
        this.deps.log.info('approval undone in its undo window', { pauseId, by: user });
        this.deps.cards.pauseChanged(pauseId);
        const { pause, gates } = result.view;
        const tools = gates
          .filter((gate) => result.callIds.includes(gate.confirmationCallId))
          .map((gate) => gate.originalCall.name);
        const thread = pause.runThread ?? {
          channelId: pause.card.channelId,
          ...(pause.card.threadTs === undefined ? {} : { threadTs: pause.card.threadTs }),
        };
        void this.deps.threads.post(thread, renderUndone(user, tools));
        return { kind: 'done' };
      }
    }
  }
}

function refuse(refusal: Refusal): DecisionReply {
  return { kind: 'refused', refusal };
}
