import type { GateRecord } from '../../approvals/records.js';
import type { JsonValue } from '../../json.js';
import { ACTION_IDS, encodeButtonValue } from '../codecs/action-ids.js';
import { withBlockId } from '../codecs/block-ids.js';
import {
  type ActionsBlock,
  type Button,
  type ContextBlock,
  type KnownBlock,
  mrkdwn,
  plain,
  type SectionBlock,
} from '../codecs/block-kit.js';
import { codeBlock, escapeWithin, inlineCode } from '../codecs/escape.js';
import type { GateContext } from './gate-context.js';
import { approversText, decisionText, expiryText, stateBadge } from './gate-lines.js';

/**
 * An input request's place on the approval card: who asks, their message, the data they sent
 * along, and an Answer button that opens the form generated from the request's schema
 * (input-modal.ts). Every string from the agent is escaped; the answer, once given, is shown.
 */

const MESSAGE_MAX = 1_500;
const APPROVERS_MAX = 700;
const REASON_MAX = 500;

export const ANSWER_LABEL = 'Answer';

/** What the card says for the asker: the Workflow node or agent that raised the request. */
export function askerName(gate: GateRecord, max = 80): string {
  return inlineCode(gate.author ?? 'The agent', max);
}

export function answerButton(context: GateContext): Button {
  const { gate, pauseId } = context;
  return {
    type: 'button',
    action_id: ACTION_IDS.answer,
    text: plain(ANSWER_LABEL),
    style: 'primary',
    value: encodeButtonValue({ pauseId, callId: gate.confirmationCallId }),
  };
}

function compactJson(value: JsonValue): string {
  return JSON.stringify(value, null, 2);
}

/**
 * Section (asker, message, data sent along, the answer once given), context (who may answer,
 * expiry, or who answered) and, while pending, the Answer button. `codeMax` bounds the code blocks.
 */
export function inputGateBlocks(
  context: GateContext,
  codeMax: number,
  withButton: boolean,
): KnownBlock[] {
  const { gate, position, count, now } = context;
  const key = `g${position}.v${gate.version}`;
  const number = count > 1 ? `*${position + 1}.* ` : '';
  const parts = [`${number}:speech_balloon: ${askerName(gate)} asks · ${stateBadge(gate)}`];
  const message = gate.input?.message;
  if (message !== undefined)
    parts.push(`> ${escapeWithin(message, MESSAGE_MAX).replace(/\n/g, '\n> ')}`);
  const payload = gate.input?.payload;
  const answer = gate.state === 'approved' ? gate.decision?.payload : undefined;
  const shown = [payload, answer].filter((value) => value !== undefined).length;
  const each = shown === 0 ? codeMax : Math.floor(codeMax / shown);
  if (payload !== undefined) parts.push(`Sent along:\n${codeBlock(compactJson(payload), each)}`);
  if (answer !== undefined) parts.push(`Answer:\n${codeBlock(compactJson(answer), each)}`);
  const section: SectionBlock = { type: 'section', text: mrkdwn(parts.join('\n')) };

  const facts =
    gate.state === 'pending'
      ? [
          approversText(gate.policy, APPROVERS_MAX, 'input', context.standIns),
          expiryText(gate, now),
        ]
      : [decisionText(gate, REASON_MAX) ?? stateBadge(gate)];
  const factsBlock: ContextBlock = {
    type: 'context',
    elements: [mrkdwn(facts.filter((fact) => fact !== undefined).join('\n'))],
  };
  const blocks: KnownBlock[] = [
    withBlockId(`${key}.s`, section),
    withBlockId(`${key}.c`, factsBlock),
  ];
  if (gate.state === 'pending' && withButton) {
    const actions: ActionsBlock = { type: 'actions', elements: [answerButton(context)] };
    blocks.push(withBlockId(`${key}.a`, actions));
  }
  return blocks;
}
