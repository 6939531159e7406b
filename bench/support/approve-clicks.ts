import { randomBytes } from 'node:crypto';
import type { Person, SandboxMessage } from '@adk-slack-approvals/slack-sandbox';
import {
  actionJson,
  blockActionsPayload,
  findConversation,
  findElement,
  payloadForm,
  toSlackMessage,
} from '@adk-slack-approvals/slack-sandbox/payloads';
import { ACTION_IDS, parseButtonValue } from '../../src/slack/codecs/action-ids.js';

/** An Approve click on one card, as the form body Slack would POST for it. */
export interface ApproveClick {
  /** The confirmation call id the button names: what the resume must answer. */
  callId: string;
  body: string;
}

/**
 * Builds the `block_actions` payload for a person's click on a card's Approve button with the
 * sandbox's own builders, so it has Slack's shape, the whole card message included. The
 * `response_url` is one the sandbox never issued: an approver's click needs no private reply,
 * and one sent anyway shows up in the app's log as a failed reply.
 */
export function approveClick(input: {
  card: SandboxMessage;
  voter: Person;
  sandboxUrl: string;
}): ApproveClick {
  const { card, voter } = input;
  const found = findElement(card.blocks, { actionId: ACTION_IDS.approve });
  const callId = parseButtonValue(found?.element.value)?.callId;
  if (found === undefined || callId === undefined) {
    throw new Error(`card ${card.ts} has no Approve button naming a gate`);
  }
  const conversation = findConversation(card.channel);
  if (conversation === undefined) throw new Error(`card ${card.ts} is in no known channel`);
  const now = Date.now();
  const actionTs = `${Math.floor(now / 1000)}.${String(now % 1000).padStart(3, '0')}000`;
  const payload = blockActionsPayload({
    person: voter,
    triggerId: `${Math.floor(now / 1000)}.${now % 1_000_000}.${randomBytes(16).toString('hex')}`,
    container: {
      kind: 'message',
      conversation,
      messageTs: card.ts,
      threadTs: card.threadTs,
      message: toSlackMessage(card),
    },
    responseUrl: `${input.sandboxUrl}/response/bench${randomBytes(8).toString('hex')}`,
    action: actionJson(found, { kind: 'none' }, actionTs),
    stateValues: {},
  });
  return { callId, body: payloadForm(payload) };
}
