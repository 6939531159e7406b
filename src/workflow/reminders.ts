import type { Clock } from '../approvals/clock.js';
import {
  DEFAULT_DELEGATION_MAX_HOPS,
  type DelegationStore,
  standIns,
} from '../approvals/delegations.js';
import {
  type ApproverDirectory,
  eligibleApprovers,
  formatDuration,
  isEscalated,
} from '../approvals/policy.js';
import type { GateRecord, PauseView } from '../approvals/records.js';
import type { DueNudge, NudgeQueue } from '../approvals/store-roles/nudges.js';
import type { PauseStore } from '../approvals/store-roles/pauses.js';
import { errorMessage } from '../error-message.js';
import type { Log } from '../log.js';
import { type ReminderFacts, renderReminder } from '../slack/render/reminder-message.js';
import type { SlackPort } from '../slack/transport/port.js';
import { approverPeople } from './approver-people.js';
import type { CardUpdates } from './card-updates.js';

export interface RemindersDeps {
  store: { pauses: Pick<PauseStore, 'getPause'>; nudges: Pick<NudgeQueue, 'finishNudge'> };
  slack: Pick<SlackPort, 'openDirectMessage' | 'postMessage' | 'getPermalink'>;
  directory: ApproverDirectory;
  clock: Clock;
  log: Log;
  /** The card shows an escalation once it happened (its Homes follow). */
  cards: Pick<CardUpdates, 'pauseChanged'>;
  /** Hand-overs while away: the stand-in of an approver away is reminded too. Absent: none. */
  delegations?: Pick<DelegationStore, 'list'>;
  /** How far a hand-over reaches (`DELEGATION_MAX_HOPS`). Default 1. */
  delegationMaxHops?: number;
}

/**
 * Handles the reminders and escalations the sweeper claimed (the store hands each to one
 * replica). A reminder DMs each approver who has not voted, once; an escalation updates the card
 * and tells the `escalateTo` approvers. Users are DMed, user groups expanded to their members
 * (`usergroups.users.list`), and `channel` approvers get one reply in the card's thread instead
 * of a DM to every member. A failed DM is logged and never blocks the others or the gate.
 */
export class Reminders {
  constructor(private readonly deps: RemindersDeps) {}

  async handle(nudges: readonly DueNudge[]): Promise<void> {
    for (const nudge of nudges) {
      try {
        await this.handleOne(nudge);
      } catch (error) {
        this.deps.log.warn('reminder failed', {
          pauseId: nudge.pauseId,
          callId: nudge.callId,
          kind: nudge.kind,
          error: errorMessage(error),
        });
      }
      // Handled or not, it is not sent again: a reminder is a courtesy, and repeats are noise.
      await this.deps.store.nudges.finishNudge(nudge);
    }
  }

  private async handleOne(nudge: DueNudge): Promise<void> {
    const view = await this.deps.store.pauses.getPause(nudge.pauseId);
    const gate = view?.gates.find((g) => g.confirmationCallId === nudge.callId);
    if (view === undefined || gate === undefined || gate.state !== 'pending') return;
    const now = this.deps.clock();
    const approvers =
      nudge.kind === 'remind'
        ? eligibleApprovers(gate.policy, isEscalated(gate.policy, gate.createdAt, now))
        : (gate.policy.escalateTo ?? []);
    if (nudge.kind === 'escalate') this.deps.cards.pauseChanged(view.pause.id);

    const facts = await this.facts(nudge, view, gate);
    // A vote given for someone under a hand-over is theirs too: neither is reminded.
    const voted = new Set(
      gate.votes.flatMap((vote) =>
        vote.onBehalfOf === undefined ? [vote.voter] : [vote.voter, vote.onBehalfOf],
      ),
    );
    const people = await approverPeople(approvers, this.deps, 'to remind');
    if (gate.policy.delegation !== false) {
      const away = [...people].filter((person) => !voted.has(person));
      for (const standIn of await this.standInsOf(away, now)) people.add(standIn);
    }
    const excluded = (user: string) =>
      voted.has(user) || (user === view.pause.requester && !gate.policy.selfApproval);
    const recipients = [...people].filter((user) => !excluded(user));
    const message = renderReminder(facts);
    await Promise.all(recipients.map((user) => this.dm(user, message, nudge)));
    if (approvers.some((approver) => approver.kind === 'channel')) {
      await this.toCardThread(view, message, nudge);
    }
    this.deps.log.info(nudge.kind === 'remind' ? 'approvers reminded' : 'gate escalated', {
      pauseId: nudge.pauseId,
      callId: nudge.callId,
      people: recipients.length,
    });
  }

  /** Who stands in for these people now (hand-overs); none when they cannot be read. */
  private async standInsOf(people: readonly string[], now: number): Promise<string[]> {
    const { delegations } = this.deps;
    if (delegations === undefined) return [];
    const all = await delegations.list(now).catch((error: unknown) => {
      this.deps.log.warn('could not read hand-overs to remind', { error: errorMessage(error) });
      return [];
    });
    const found = standIns(all, now, this.deps.delegationMaxHops ?? DEFAULT_DELEGATION_MAX_HOPS);
    return people.flatMap((person) => {
      const standIn = found.get(person);
      return standIn === undefined ? [] : [standIn];
    });
  }

  private async facts(nudge: DueNudge, view: PauseView, gate: GateRecord): Promise<ReminderFacts> {
    const { channelId, ts, threadTs } = view.pause.card;
    const permalink =
      ts === undefined
        ? undefined
        : await this.deps.slack
            .getPermalink({ channel: channelId, ts, threadTs })
            .catch(() => undefined);
    return {
      kind: nudge.kind,
      tool: gate.originalCall.name,
      args: gate.originalCall.args,
      requester: view.pause.requester,
      ...(permalink === undefined ? {} : { permalink }),
      ...(gate.expiresAt === undefined ? {} : { expiresAt: gate.expiresAt }),
      ...(gate.policy.escalateAfterMs === undefined
        ? {}
        : { waited: formatDuration(gate.policy.escalateAfterMs) }),
    };
  }

  private async dm(user: string, message: ReturnType<typeof renderReminder>, nudge: DueNudge) {
    try {
      const channel = await this.deps.slack.openDirectMessage(user);
      await this.deps.slack.postMessage({ ...message, channel });
    } catch (error) {
      this.deps.log.warn('could not send a reminder', {
        pauseId: nudge.pauseId,
        user,
        error: errorMessage(error),
      });
    }
  }

  private async toCardThread(
    view: PauseView,
    message: ReturnType<typeof renderReminder>,
    nudge: DueNudge,
  ) {
    const { channelId, ts, threadTs } = view.pause.card;
    const thread = threadTs ?? ts;
    if (thread === undefined) return;
    try {
      await this.deps.slack.postMessage({ ...message, channel: channelId, threadTs: thread });
    } catch (error) {
      this.deps.log.warn('could not post a reminder in the card thread', {
        pauseId: nudge.pauseId,
        error: errorMessage(error),
      });
    }
  }
}
