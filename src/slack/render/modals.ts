import type { PayloadSchema } from '../../approvals/policy/payload-schema.js';
import type { GateRecord } from '../../approvals/records.js';
import type { JsonValue } from '../../json.js';
import { CALLBACK_IDS } from '../codecs/action-ids.js';
import { type KnownBlock, type Modal, mrkdwn, plain } from '../codecs/block-kit.js';
import { codeBlock, escapeLine, escapeWithin, inlineCode } from '../codecs/escape.js';
import { encodeEditMetadata, encodeRejectMetadata } from '../codecs/modal-metadata.js';
import { INPUT_ACTION_ID, viewStateValuesSchema } from '../codecs/view-state.js';
import { type PayloadReading, payloadForm, readPayloadForm } from './forms/payload-form.js';
import { formBlocks } from './forms/render-field.js';
import { argumentSummary } from './gate-lines.js';
import { displayHint } from './hint.js';

/**
 * The two modals: edit the payload and approve, and reject (with a reason when the policy wants
 * one). Titles and buttons are fixed words (Slack allows 24 characters); tool names and hints go
 * in mrkdwn sections, escaped.
 */

const HINT_MAX = 500;
const ARGS_MAX = 2_500;
/** A reason reaches the model as a user message: long enough to explain, short enough to read. */
export const REASON_MAX = 2_000;
export const REASON_BLOCK_ID = 'reason';

export interface EditModalInput {
  pauseId: string;
  gate: GateRecord;
  /** Where the card lives, so the submission can update it. */
  channelId?: string;
  messageTs?: string;
}

export function renderEditModal({ pauseId, gate, channelId, messageTs }: EditModalInput): Modal {
  const metadata = encodeEditMetadata({
    pauseId,
    callId: gate.confirmationCallId,
    ...(channelId === undefined ? {} : { channelId }),
    ...(messageTs === undefined ? {} : { messageTs }),
  });
  const call = callName(gate.originalCall);
  const lines = [`*Approve ${call} with the payload below.*`];
  const hint = displayHint(gate.hint);
  if (hint) lines.push(escapeWithin(hint, HINT_MAX));
  const summary: KnownBlock[] = [
    { type: 'section', text: mrkdwn(lines.join('\n')) },
    {
      type: 'section',
      text: mrkdwn(
        `Arguments:\n${codeBlock(JSON.stringify(gate.originalCall.args, null, 2), ARGS_MAX)}`,
      ),
    },
  ];
  const base = {
    type: 'modal' as const,
    callback_id: CALLBACK_IDS.editModal,
    title: plain('Edit & approve'),
    close: plain('Cancel'),
  };
  if (metadata === undefined) {
    // Never with ids from ADK and Slack; said rather than failing at submission.
    return {
      ...base,
      blocks: [
        ...summary,
        {
          type: 'section',
          text: mrkdwn('This call cannot be edited in Slack: its ids are too long.'),
        },
      ],
    };
  }
  return {
    ...base,
    submit: plain('Approve'),
    private_metadata: metadata,
    blocks: [
      ...summary,
      { type: 'divider' },
      ...formBlocks(payloadForm(gate.payloadTemplate, gate.policy.payloadSchema)),
    ],
  };
}

/** "`restart_service` (service: ledger)": which call a modal is about, when two share a tool. */
function callName({ name, args }: { name: string; args: JsonValue }): string {
  const summary = argumentSummary(args, 120);
  return `${inlineCode(name, 80)}${summary === '' ? '' : ` (${summary})`}`;
}

const UNREADABLE = 'The form could not be read. Please close it and try again.';

/**
 * The payload from a submitted edit modal, typed like the template, or errors keyed by the
 * input's block id for `ack({ response_action: 'errors', errors })`. `values` is
 * `view.state.values`, untrusted.
 */
export function parseEditSubmission(
  template: JsonValue | undefined,
  values: unknown,
  schema?: PayloadSchema,
): PayloadReading {
  return readPayloadForm(template, values, schema);
}

export interface RejectModalInput {
  pauseId: string;
  /** The gates to reject (one, or every pending gate for Reject all). */
  callIds: string[];
  /** The calls, to name them (tool and a short argument summary). */
  calls: { name: string; args: JsonValue }[];
  reasonRequired: boolean;
  channelId?: string;
  messageTs?: string;
}

export function renderRejectModal(input: RejectModalInput): Modal {
  const { pauseId, callIds, calls, reasonRequired, channelId, messageTs } = input;
  const metadata = encodeRejectMetadata({
    pauseId,
    ...(callIds.length > 0 ? { callIds } : {}),
    ...(channelId === undefined ? {} : { channelId }),
    ...(messageTs === undefined ? {} : { messageTs }),
  });
  const names = calls.slice(0, 10).map((call) => inlineCode(call.name, 60));
  const more = calls.length > names.length ? ` and ${calls.length - names.length} more` : '';
  const [only] = calls;
  const what =
    calls.length <= 1
      ? `Reject ${only === undefined ? 'this call' : callName(only)}?`
      : `Reject these ${calls.length} calls: ${names.join(', ')}${more}?`;
  const why = reasonRequired
    ? 'The policy asks for a reason. The agent is told it after it resumes.'
    : 'A reason is optional. If you give one, the agent is told it after it resumes.';
  const base = {
    type: 'modal' as const,
    callback_id: CALLBACK_IDS.rejectModal,
    title: plain(calls.length > 1 ? 'Reject calls' : 'Reject call'),
    close: plain('Cancel'),
  };
  const intro: KnownBlock = { type: 'section', text: mrkdwn(`*${what}*\n${why}`) };
  if (metadata === undefined) {
    return {
      ...base,
      blocks: [
        intro,
        {
          type: 'section',
          text: mrkdwn('This request cannot be rejected from here: its ids are too long.'),
        },
      ],
    };
  }
  return {
    ...base,
    submit: plain('Reject'),
    private_metadata: metadata,
    blocks: [
      intro,
      {
        type: 'input',
        block_id: REASON_BLOCK_ID,
        optional: !reasonRequired,
        label: plain('Reason'),
        element: {
          type: 'plain_text_input',
          action_id: INPUT_ACTION_ID,
          multiline: true,
          max_length: REASON_MAX,
          placeholder: plain('Why not? For example: wrong account, amount too high.'),
        },
      },
    ],
  };
}

export type RejectSubmission =
  | { ok: true; reason?: string }
  | { ok: false; errors: Record<string, string> };

/** The reason from a submitted reject modal (trimmed; absent when none was given). */
export function parseRejectSubmission(
  values: unknown,
  { reasonRequired }: { reasonRequired: boolean },
): RejectSubmission {
  const parsed = viewStateValuesSchema.safeParse(values);
  if (!parsed.success) return { ok: false, errors: { [REASON_BLOCK_ID]: UNREADABLE } };
  const reason = parsed.data[REASON_BLOCK_ID]?.[INPUT_ACTION_ID]?.value?.trim() ?? '';
  if (reason.length > REASON_MAX) {
    return {
      ok: false,
      errors: {
        [REASON_BLOCK_ID]: escapeLine(`Keep the reason under ${REASON_MAX} characters.`, 100),
      },
    };
  }
  if (reason === '') {
    return reasonRequired
      ? { ok: false, errors: { [REASON_BLOCK_ID]: 'A reason is required to reject this.' } }
      : { ok: true };
  }
  return { ok: true, reason };
}
