import type { GateRecord } from '../../approvals/records.js';
import { CALLBACK_IDS } from '../codecs/action-ids.js';
import { type KnownBlock, type Modal, mrkdwn, plain } from '../codecs/block-kit.js';
import { escapeWithin } from '../codecs/escape.js';
import { encodeEditMetadata } from '../codecs/modal-metadata.js';
import { inputForm, readInputForm } from './forms/input-form.js';
import type { FormReading } from './forms/read-form.js';
import { formBlocks } from './forms/render-field.js';
import { askerName } from './input-card.js';

/**
 * The answer modal of an input request: the question, then the form generated from its schema.
 * Its submission is checked field by field before anything is recorded (views listener).
 */

const MESSAGE_MAX = 2_500;

export interface InputModalInput {
  pauseId: string;
  gate: GateRecord;
  /** Where the card lives, so the submission can report back there. */
  channelId?: string;
  messageTs?: string;
}

export function renderInputModal({ pauseId, gate, channelId, messageTs }: InputModalInput): Modal {
  const metadata = encodeEditMetadata({
    pauseId,
    callId: gate.confirmationCallId,
    ...(channelId === undefined ? {} : { channelId }),
    ...(messageTs === undefined ? {} : { messageTs }),
  });
  const lines = [`*${askerName(gate)} asks:*`];
  const message = gate.input?.message;
  if (message !== undefined) lines.push(escapeWithin(message, MESSAGE_MAX));
  const question: KnownBlock = { type: 'section', text: mrkdwn(lines.join('\n')) };
  const base = {
    type: 'modal' as const,
    callback_id: CALLBACK_IDS.inputModal,
    title: plain('Answer the agent'),
    close: plain('Cancel'),
  };
  if (metadata === undefined) {
    // Never with ids from ADK and Slack; said rather than failing at submission.
    return {
      ...base,
      blocks: [
        question,
        {
          type: 'section',
          text: mrkdwn('This request cannot be answered in Slack: its ids are too long.'),
        },
      ],
    };
  }
  return {
    ...base,
    submit: plain('Send answer'),
    private_metadata: metadata,
    blocks: [question, { type: 'divider' }, ...formBlocks(inputForm(gate.input?.responseSchema))],
  };
}

/** The answer from a submitted answer modal, or errors by block id; `values` is untrusted. */
export function parseInputSubmission(gate: GateRecord, values: unknown): FormReading {
  return readInputForm(gate.input?.responseSchema, values);
}
