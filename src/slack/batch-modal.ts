import { createHash } from 'node:crypto';
import { LIMITS } from '@adk-slack-approvals/block-kit';
import { z } from 'zod';
import type { Vote } from '../approvals/records.js';

type VoteChoice = Vote['choice'];

import { CALLBACK_IDS, parseJsonWith } from './action-ids.js';
import { type KnownBlock, type Modal, mrkdwn, plain } from './block-kit.js';
import { escapeLine, inlineCode } from './escape.js';
import { argumentSummary } from './gate-lines.js';
import { type HomeGate, isBatchable } from './home-view.js';
import { userMention } from './mentions.js';
import { REASON_BLOCK_ID, REASON_MAX } from './modals.js';
import { INPUT_ACTION_ID, viewStateValuesSchema } from './view-state.js';

/**
 * Batch decisions from the App Home, in two steps: a modal to pick several waiting calls and
 * approve or reject them, then one that lists exactly those calls (tool, arguments, requester)
 * to confirm. The second remembers the picked calls in its metadata: only those are decided.
 */

/** At most this many calls in one batch: each is listed in the confirmation. */
export const BATCH_MAX = 20;
export const GATES_BLOCK_ID = 'gates';
export const CHOICE_BLOCK_ID = 'choice';

const refSchema = z.tuple([z.string().min(1), z.string().min(1)]);

/** The confirmation's metadata: the choice, the reason, and exactly the calls picked. */
const batchMetadataSchema = z.strictObject({
  choice: z.enum(['approve', 'reject']),
  reason: z.string().max(REASON_MAX).optional(),
  refs: z.array(refSchema).min(1).max(BATCH_MAX),
  /** Where to say privately what became of it; never set: a batch comes from the Home. */
  channelId: z.string().min(1).optional(),
});
export type BatchMetadata = z.infer<typeof batchMetadataSchema>;

export function parseBatchMetadata(text: unknown): BatchMetadata | undefined {
  return parseJsonWith(batchMetadataSchema, text);
}

/**
 * An option's value names its call by a hash of its pause and call id (ids do not fit Slack's
 * 75 characters); the submission finds the calls again among those still waiting for the person.
 */
export function batchKey({ view, gate }: HomeGate): string {
  const hash = createHash('sha256').update(`${view.pause.id}\n${gate.confirmationCallId}`);
  return `g:${hash.digest('hex').slice(0, 32)}`;
}

function optionOf(item: HomeGate) {
  const { gate, view } = item;
  const args = argumentSummary(gate.originalCall.args, 40).replace(/[`*_~]/g, '');
  const text = `${gate.originalCall.name} ${args} · ${view.pause.adk.appName}`.trim();
  const max = LIMITS.optionText;
  return {
    text: plain(text.length > max ? `${text.slice(0, max - 1)}…` : text),
    value: batchKey(item),
  };
}

/** The calls a batch may hold: confirmations whose rule does not say `batch: false`. */
export function batchable(gates: readonly HomeGate[]): HomeGate[] {
  return gates.filter((item) => isBatchable(item.gate));
}

/** Step 1: pick the calls and the decision. */
export function renderBatchSelectModal(gates: readonly HomeGate[]): Modal {
  const options = batchable(gates).slice(0, 100).map(optionOf);
  return {
    type: 'modal',
    callback_id: CALLBACK_IDS.batchSelect,
    title: plain('Decide several'),
    submit: plain('Review'),
    close: plain('Cancel'),
    blocks: [
      {
        type: 'section',
        text: mrkdwn(
          `Pick up to ${BATCH_MAX} of the calls waiting for you. You see exactly what will be decided before anything is.`,
        ),
      },
      {
        type: 'input',
        block_id: GATES_BLOCK_ID,
        label: plain('Calls'),
        element: {
          type: 'multi_static_select',
          action_id: INPUT_ACTION_ID,
          placeholder: plain('Pick calls'),
          max_selected_items: BATCH_MAX,
          options,
        },
      },
      {
        type: 'input',
        block_id: CHOICE_BLOCK_ID,
        label: plain('Decision'),
        element: {
          type: 'radio_buttons',
          action_id: INPUT_ACTION_ID,
          options: [
            { text: plain('Approve them'), value: 'approve' },
            { text: plain('Reject them'), value: 'reject' },
          ],
        },
      },
      {
        type: 'input',
        block_id: REASON_BLOCK_ID,
        optional: true,
        label: plain('Reason'),
        element: {
          type: 'plain_text_input',
          action_id: INPUT_ACTION_ID,
          multiline: true,
          max_length: REASON_MAX,
        },
      },
    ],
  };
}

export type BatchSelection =
  | { ok: true; choice: VoteChoice; reason?: string; keys: string[] }
  | { ok: false; errors: Record<string, string> };

export function parseBatchSelect(values: unknown): BatchSelection {
  const parsed = viewStateValuesSchema.safeParse(values);
  if (!parsed.success) return { ok: false, errors: { [GATES_BLOCK_ID]: 'Unreadable: try again.' } };
  const picked = parsed.data[GATES_BLOCK_ID]?.[INPUT_ACTION_ID]?.selected_options ?? [];
  const keys = [...new Set(picked.map((option) => option.value))];
  const choice = parsed.data[CHOICE_BLOCK_ID]?.[INPUT_ACTION_ID]?.selected_option?.value;
  const reason = parsed.data[REASON_BLOCK_ID]?.[INPUT_ACTION_ID]?.value?.trim() ?? '';
  const errors: Record<string, string> = {};
  if (keys.length === 0) errors[GATES_BLOCK_ID] = 'Pick at least one call.';
  if (keys.length > BATCH_MAX) errors[GATES_BLOCK_ID] = `Pick at most ${BATCH_MAX} calls.`;
  if (choice !== 'approve' && choice !== 'reject') errors[CHOICE_BLOCK_ID] = 'Approve or reject?';
  if (reason.length > REASON_MAX)
    errors[REASON_BLOCK_ID] = `Keep it under ${REASON_MAX} characters.`;
  if (Object.keys(errors).length > 0 || (choice !== 'approve' && choice !== 'reject')) {
    return { ok: false, errors };
  }
  return { ok: true, choice, ...(reason === '' ? {} : { reason }), keys };
}

/**
 * Step 2: exactly the calls that will be decided, each with its tool, arguments, requester and
 * app, and the decision. Submitting decides those and no others.
 */
export function renderBatchConfirmModal(input: {
  choice: VoteChoice;
  reason?: string | undefined;
  gates: readonly HomeGate[];
}): Modal | undefined {
  const { choice, reason, gates } = input;
  const metadata: BatchMetadata = {
    choice,
    ...(reason === undefined ? {} : { reason }),
    refs: gates.map(({ view, gate }) => [view.pause.id, gate.confirmationCallId]),
  };
  const privateMetadata = JSON.stringify(metadata);
  if (privateMetadata.length > LIMITS.privateMetadata) return undefined;
  const verb = choice === 'approve' ? 'Approve' : 'Reject';
  const count = `${gates.length} call${gates.length === 1 ? '' : 's'}`;
  const lines: KnownBlock[] = gates.map(({ view, gate }) => ({
    type: 'section',
    text: mrkdwn(
      `${inlineCode(gate.originalCall.name, 60)} · ${userMention(view.pause.requester)} · app ${escapeLine(view.pause.adk.appName, 60)}\n${argumentSummary(gate.originalCall.args, 300)}`,
    ),
  }));
  return {
    type: 'modal',
    callback_id: CALLBACK_IDS.batchConfirm,
    title: plain(`${verb} ${gates.length}`),
    submit: plain(`${verb} ${count}`),
    close: plain('Cancel'),
    private_metadata: privateMetadata,
    blocks: [
      {
        type: 'section',
        text: mrkdwn(
          `*${verb} exactly these ${count}?* Each is checked as a click on its card would be; a call you may no longer decide is left as it is, with the others of its request.${reason === undefined ? '' : `\nReason: ${escapeLine(reason, 500)}`}`,
        ),
      },
      ...lines,
    ],
  };
}
