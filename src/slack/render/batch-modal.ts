import { createHash } from 'node:crypto';
import { LIMITS } from '@adk-slack-approvals/block-kit';
import { z } from 'zod';
import type { GatePolicy, Vote } from '../../approvals/records.js';
import type { JsonValue } from '../../json.js';
import { CALLBACK_IDS, parseJsonWith } from '../codecs/action-ids.js';
import { type KnownBlock, type Modal, mrkdwn, plain } from '../codecs/block-kit.js';
import { escapeLine, inlineCode } from '../codecs/escape.js';
import { userMention } from '../codecs/mentions.js';
import { INPUT_ACTION_ID, viewStateValuesSchema } from '../codecs/view-state.js';
import { approvalsOf, argumentSummary, argumentText, listWithin } from './gate-lines.js';
import { type HomeGate, isBatchable } from './home-view.js';
import { REASON_BLOCK_ID, REASON_MAX } from './modals.js';

type VoteChoice = Vote['choice'];

/**
 * Batch decisions from the App Home, in steps: a modal to pick several waiting calls and approve
 * or reject them, then one that lists exactly those calls (tool, arguments, requester) to
 * confirm, then what became of each (`batch-result.ts`). The second remembers the picked calls in
 * its metadata: only those are decided.
 */

/** At most this many calls in one batch: each is listed in the confirmation and the result. */
export const BATCH_MAX = 20;
/** Slack's most options in one select: the picker lists the oldest this many. */
const OFFERED_MAX = LIMITS.selectOptions;
export const GATES_BLOCK_ID = 'gates';
export const CHOICE_BLOCK_ID = 'choice';

const refSchema = z.tuple([z.string().min(1), z.string().min(1)]);

/** The confirmation's metadata: the choice, the reason, and exactly the calls picked. */
const batchMetadataSchema = z.strictObject({
  choice: z.enum(['approve', 'reject']),
  reason: z.string().max(REASON_MAX).optional(),
  // More than BATCH_MAX is refused where it is read, visibly: never cut short here.
  refs: z.array(refSchema).min(1),
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
  const line = `${gate.originalCall.name} ${argumentText(gate.originalCall.args)} · ${view.pause.adk.appName}`;
  return {
    text: plain(escapeLine(line, LIMITS.optionText)),
    value: batchKey(item),
  };
}

/** The policy in force for a listed call (as recorded, when the listing did not say). */
function policyOf(item: HomeGate): GatePolicy {
  return item.policy ?? item.gate.policy;
}

/** The calls a batch may hold: confirmations whose rule in force does not say `batch: false`. */
export function batchable(gates: readonly HomeGate[]): HomeGate[] {
  return gates.filter(isBatchable);
}

/** "transfer_money, pay_invoice and 2 more", each tool once, for plain text. */
function toolsOf(items: readonly HomeGate[]): string {
  const tools = [...new Set(items.map(({ gate }) => gate.originalCall.name))];
  return listWithin(
    tools.map((tool) => escapeLine(tool, 40)),
    300,
  );
}

/** Step 1: pick the calls and the decision. Says how many it lists of how many wait. */
export function renderBatchSelectModal(gates: readonly HomeGate[]): Modal {
  const offered = batchable(gates);
  const listed = offered.slice(0, OFFERED_MAX);
  const unlisted = offered.length - listed.length;
  const needReason = listed.filter((item) => policyOf(item).reasonRequired);
  const reasonHint =
    needReason.length === 0
      ? undefined
      : needReason.length === 1
        ? `Needed to reject ${toolsOf(needReason)}: its rule asks for a reason.`
        : `Needed to reject ${needReason.length === listed.length ? 'any of these calls' : `${needReason.length} of them (${toolsOf(needReason)})`}: their rules ask for a reason.`;
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
          `Pick up to ${BATCH_MAX} of the calls waiting for you. You see exactly what will be decided before anything is, and then what became of each.${unlisted > 0 ? ` The oldest ${listed.length} of ${offered.length} are listed; decide the other ${unlisted} after these, or on their cards.` : ''}`,
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
          options: listed.map(optionOf),
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
        // Approving needs none; a rejection that needs one is refused here (`pickProblems`).
        optional: true,
        label: plain('Reason'),
        ...(reasonHint === undefined ? {} : { hint: plain(reasonHint) }),
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

/**
 * What keeps the picked calls from being decided as asked, under the policy in force, shown in
 * step 1 before anything is decided: calls whose rule now says `batch: false`, and a rejection
 * without a reason where a rule asks for one. Empty when there is nothing.
 */
export function pickProblems(
  selection: { choice: VoteChoice; reason?: string | undefined },
  picked: readonly HomeGate[],
): Record<string, string> {
  const errors: Record<string, string> = {};
  const unbatchable = picked.filter((item) => !isBatchable(item));
  if (unbatchable.length > 0) {
    const one = unbatchable.length === 1;
    errors[GATES_BLOCK_ID] =
      `${toolsOf(unbatchable)}: cannot be decided in a batch (the rule in force says batch: false). Leave ${one ? 'it' : 'them'} out and decide ${one ? 'it on its card' : 'them on their cards'}.`;
  }
  const needReason = picked.filter((item) => policyOf(item).reasonRequired);
  if (selection.choice === 'reject' && selection.reason === undefined && needReason.length > 0) {
    const rules = [...new Set(needReason.map((item) => policyOf(item).rule))];
    errors[REASON_BLOCK_ID] =
      `Give a reason: rejecting ${toolsOf(needReason)} needs one (rule ${rules.join(', ')}).`;
  }
  return errors;
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
  const lines: KnownBlock[] = gates.map(({ view, gate }) => {
    const call = {
      tool: gate.originalCall.name,
      args: gate.originalCall.args,
      requester: view.pause.requester,
      app: view.pause.adk.appName,
    };
    // The quorum stays as recorded: one approval of several needed decides nothing yet.
    const { quorum } = gate.policy;
    const quorumNote =
      choice === 'approve' && quorum > 1
        ? `\n:ballot_box_with_check: Needs ${quorum} approvals, ${approvalsOf(gate).length} so far: yours counts as one.`
        : '';
    return { type: 'section', text: mrkdwn(`${batchCallLine(call)}${quorumNote}`) };
  });
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
          `*${verb} exactly these ${count}?* Each is checked again as you confirm, as a click on its card would be; one that may not be decided then is left as it is, and the next view says which and why.${reason === undefined ? '' : `\nReason: ${escapeLine(reason, 500)}`}`,
        ),
      },
      ...lines,
    ],
  };
}

/** A call of a batch as the confirmation and the result show it: tool, requester, app, arguments. */
export function batchCallLine(call: {
  tool: string;
  args: JsonValue;
  requester: string;
  app: string;
}): string {
  return `${inlineCode(call.tool, 60)} · ${userMention(call.requester)} · app ${escapeLine(call.app, 60)}\n${argumentSummary(call.args, 300)}`;
}
