import type { Delegation, DelegationField } from '../../approvals/delegations.js';
import { ACTION_IDS, CALLBACK_IDS } from '../codecs/action-ids.js';
import { type KnownBlock, type Modal, mrkdwn, plain } from '../codecs/block-kit.js';
import { slackDate, userMention } from '../codecs/mentions.js';
import { type ViewStateValues, viewStateValuesSchema } from '../codecs/view-state.js';

/**
 * Handing over while away, on the App Home: the person's own hand-over (or the button to set
 * one), the hand-overs that let them decide for others, and the modal that sets one. Pure.
 */

/** What the Home says about hand-overs: the person's own, and those made to them. */
export interface HomeDelegations {
  /** Theirs, current or upcoming. */
  outgoing?: Delegation;
  /** Others' that name them (current or upcoming). */
  incoming: readonly Delegation[];
}

export const DELEGATION_BLOCK_IDS = {
  delegate: 'hand_over.delegate',
  startsAt: 'hand_over.starts_at',
  endsAt: 'hand_over.ends_at',
} as const satisfies Record<DelegationField, string>;

const ACTION = 'value';
/** A person's Slack id, as a `users_select` gives it (`U…`, or `W…` on Enterprise Grid). */
const SLACK_USER_ID = /^[UW][A-Z0-9]{2,}$/;
/** Hand-overs to the person named one by one; more are counted. */
const INCOMING_SHOWN = 5;

/** At most three blocks (the Home keeps within Slack's 100; see `HOME_LIMITS`). */
export function delegationBlocks(state: HomeDelegations, now: number): KnownBlock[] {
  const blocks: KnownBlock[] = [{ type: 'divider' }];
  const { outgoing } = state;
  const head = '*Handing over while away*\n';
  if (outgoing === undefined) {
    blocks.push({
      type: 'section',
      text: mrkdwn(
        `${head}Away? Someone else can decide what waits for you, from a start to an end.`,
      ),
      accessory: {
        type: 'button',
        action_id: ACTION_IDS.homeHandOver,
        text: plain('Hand over while away'),
      },
    });
  } else {
    const when = outgoing.startsAt > now ? `from ${slackDate(outgoing.startsAt)} ` : 'now, ';
    blocks.push({
      type: 'section',
      text: mrkdwn(
        `${head}Your approvals go to ${userMention(outgoing.delegate)} ${when}until ${slackDate(outgoing.endsAt)}.`,
      ),
      accessory: {
        type: 'button',
        action_id: ACTION_IDS.homeEndHandOver,
        text: plain(outgoing.startsAt > now ? 'Cancel it' : 'End it now'),
        style: 'danger',
      },
    });
  }
  const lines = state.incoming.slice(0, INCOMING_SHOWN).map((incoming) => {
    const when = incoming.startsAt > now ? `from ${slackDate(incoming.startsAt)} ` : '';
    return `You decide for ${userMention(incoming.delegator)} ${when}until ${slackDate(incoming.endsAt)}.`;
  });
  const more = state.incoming.length - INCOMING_SHOWN;
  if (more > 0) lines.push(`…and for ${more} more.`);
  if (lines.length > 0) {
    lines.push('What waits for them is listed under "Waiting for you", marked "for" them.');
    blocks.push({ type: 'context', elements: [mrkdwn(lines.join('\n'))] });
  }
  return blocks;
}

/** The modal that sets a hand-over: who, from when, until when (an hour from now, a day long). */
export function renderDelegationModal(now: number): Modal {
  const seconds = (ms: number) => Math.floor(ms / 1000);
  return {
    type: 'modal',
    callback_id: CALLBACK_IDS.handOverModal,
    title: plain('Hand over while away'),
    submit: plain('Hand over'),
    close: plain('Cancel'),
    blocks: [
      {
        type: 'input',
        block_id: DELEGATION_BLOCK_IDS.delegate,
        label: plain('Who decides for you'),
        element: { type: 'users_select', action_id: ACTION },
      },
      {
        type: 'input',
        block_id: DELEGATION_BLOCK_IDS.startsAt,
        label: plain('From'),
        element: { type: 'datetimepicker', action_id: ACTION, initial_date_time: seconds(now) },
      },
      {
        type: 'input',
        block_id: DELEGATION_BLOCK_IDS.endsAt,
        label: plain('Until'),
        element: {
          type: 'datetimepicker',
          action_id: ACTION,
          initial_date_time: seconds(now + 24 * 60 * 60 * 1000),
        },
      },
      {
        type: 'context',
        elements: [
          mrkdwn(
            'Meanwhile they may decide what the policy lets you decide (not their own requests, not rules that say `delegation: false`); cards name them "for" you, and go back to you when it ends. Your grants stay yours.',
          ),
        ],
      },
    ],
  };
}

export type DelegationForm =
  | { ok: true; delegate: string; startsAt: number; endsAt: number }
  | { ok: false; errors: Record<string, string> };

/** The modal's values: a person and two instants (ms), or what is missing, by block. */
export function parseDelegationSubmission(submitted: unknown): DelegationForm {
  const state = viewStateValuesSchema.safeParse(submitted);
  const values: ViewStateValues = state.success ? state.data : {};
  const delegate = values[DELEGATION_BLOCK_IDS.delegate]?.[ACTION]?.selected_user;
  const startsAt = values[DELEGATION_BLOCK_IDS.startsAt]?.[ACTION]?.selected_date_time;
  const endsAt = values[DELEGATION_BLOCK_IDS.endsAt]?.[ACTION]?.selected_date_time;
  const errors: Record<string, string> = {};
  if (typeof delegate !== 'string' || !SLACK_USER_ID.test(delegate)) {
    errors[DELEGATION_BLOCK_IDS.delegate] = 'Pick who decides for you.';
  }
  if (typeof startsAt !== 'number') errors[DELEGATION_BLOCK_IDS.startsAt] = 'Pick a start.';
  if (typeof endsAt !== 'number') errors[DELEGATION_BLOCK_IDS.endsAt] = 'Pick an end.';
  if (
    typeof delegate !== 'string' ||
    typeof startsAt !== 'number' ||
    typeof endsAt !== 'number' ||
    Object.keys(errors).length > 0
  ) {
    return { ok: false, errors };
  }
  return { ok: true, delegate, startsAt: startsAt * 1000, endsAt: endsAt * 1000 };
}

/** A problem with the hand-over, on the field it is about. */
export function delegationErrors(field: DelegationField, message: string): Record<string, string> {
  return { [DELEGATION_BLOCK_IDS[field]]: message };
}
