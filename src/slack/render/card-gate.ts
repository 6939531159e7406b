import { offerLabel, scopeOfOffer } from '../../approvals/grants.js';
import type { GateRecord } from '../../approvals/records.js';
import type { ToolOutcome } from '../../approvals/tool-outcomes.js';
import type { JsonValue } from '../../json.js';
import {
  ACTION_IDS,
  encodeButtonValue,
  encodeGateChoice,
  fitsButtonValue,
  type GateDecisionChoice,
  GRANT_ACTION_IDS,
} from '../codecs/action-ids.js';
import { withBlockId } from '../codecs/block-ids.js';
import {
  type ActionsBlock,
  type Button,
  type ContextBlock,
  type KnownBlock,
  mrkdwn,
  type Overflow,
  type PlainTextOption,
  plain,
  type SectionBlock,
} from '../codecs/block-kit.js';
import { codeBlock, escapeLine, escapeWithin, inlineCode } from '../codecs/escape.js';
import { agentAnsweredBadge, agentAnsweredText } from './agent-answers.js';
import { approveConfirm, grantConfirm, menuConfirm } from './confirm-dialogs.js';
import type { GateContext } from './gate-context.js';
import {
  approversText,
  decisionText,
  escalationText,
  expiryText,
  nobodyMayApprove,
  progressText,
  reopenedText,
  stateBadge,
  toolName,
  whyText,
} from './gate-lines.js';
import { displayHint } from './hint.js';
import { ANSWER_LABEL, answerButton, askerName, inputGateBlocks } from './input-card.js';
import { changeLines, payloadChanges } from './payload-diff.js';
import { askingOf } from './request-words.js';

/** The blocks of one gate on the approval card: detailed (a section per gate) or a compact row. */

const HINT_MAX = 500;
const REASON_MAX = 500;
const APPROVERS_MAX = 700;
const PROGRESS_MAX = 500;

export const BUTTON_LABELS = {
  approve: 'Approve',
  reject: 'Reject',
  edit: 'Edit & approve',
  answer: ANSWER_LABEL,
} as const;

function title({ gate, position, count, toolOutcome, agentOutcome }: GateContext): string {
  const number = count > 1 ? `*${position + 1}.* ` : '';
  const name = gate.kind === 'input' ? `:speech_balloon: ${askerName(gate)} asks` : toolName(gate);
  const badge = agentAnsweredBadge(gate, agentOutcome) ?? outcomeBadge(gate, toolOutcome);
  return `${number}${name} · ${badge}`;
}

/** How a decided gate ended: who decided and why, or that the agent answered it itself. */
function decidedText({ gate, agentOutcome }: GateContext, maxReason: number): string {
  return (
    agentAnsweredText(gate, agentOutcome, maxReason) ??
    decisionText(gate, maxReason) ??
    stateBadge(gate)
  );
}

/** The state, and for an approved call what came of it: a failure is never shown as ✅. */
function outcomeBadge(gate: GateRecord, outcome: ToolOutcome | undefined): string {
  if (gate.state !== 'approved' || outcome === undefined) return stateBadge(gate);
  switch (outcome) {
    case 'ran':
      return ':white_check_mark: Approved · ran';
    case 'failed':
      return ':red_circle: Approved, but the call *failed*';
    case 'asked_again':
      return ':repeat: Approved, but the agent asked again instead of running it';
  }
}

/**
 * A card is rendered again after every vote, and a layout may be tried at several sizes: the JSON
 * of large arguments is worth computing once per record object.
 */
const jsonCache = new WeakMap<object, Map<number, string>>();

function json(value: JsonValue, indent: number): string {
  if (typeof value !== 'object' || value === null) return JSON.stringify(value);
  let byIndent = jsonCache.get(value);
  if (byIndent === undefined) {
    byIndent = new Map();
    jsonCache.set(value, byIndent);
  }
  let text = byIndent.get(indent);
  if (text === undefined) {
    text = JSON.stringify(value, null, indent);
    byIndent.set(indent, text);
  }
  return text;
}

/** Whether this gate's own buttons can name it (its call id fits a button value). */
export function hasGateButtons({ gate, pauseId }: GateContext): boolean {
  return fitsButtonValue({ pauseId, callId: gate.confirmationCallId });
}

function gateButtons(context: GateContext): Button[] {
  const { gate, pauseId } = context;
  const value = encodeButtonValue({ pauseId, callId: gate.confirmationCallId });
  const approve: Button = {
    type: 'button',
    action_id: ACTION_IDS.approve,
    text: plain(BUTTON_LABELS.approve),
    style: 'primary',
    value,
  };
  if (gate.policy.confirm) approve.confirm = approveConfirm(gate.originalCall.name);
  const buttons: Button[] = [
    approve,
    {
      type: 'button',
      action_id: ACTION_IDS.reject,
      text: plain(BUTTON_LABELS.reject),
      style: 'danger',
      value,
    },
  ];
  if (gate.payloadTemplate !== undefined) {
    buttons.push({
      type: 'button',
      action_id: ACTION_IDS.edit,
      text: plain(BUTTON_LABELS.edit),
      value,
    });
  }
  // Each names the scope it gives; asks "are you sure?" where the rule asks it of Approve.
  for (const offer of gate.policy.grants ?? []) {
    const grant: Button = {
      type: 'button',
      action_id: GRANT_ACTION_IDS[scopeOfOffer(offer)],
      text: plain(offerLabel(offer)),
      value,
    };
    if (gate.policy.confirm) grant.confirm = grantConfirm(gate.originalCall.name, offer);
    buttons.push(grant);
  }
  return buttons;
}

/**
 * What a decision sends with the call: while pending, the payload the tool proposed (plain
 * Approve approves exactly that); once approved, the payload sent, with what an approver changed.
 */
function payloadParts(gate: GateRecord, max: number): string[] {
  const proposed = gate.payloadTemplate;
  if (gate.state === 'pending') {
    if (proposed === undefined) return [];
    return [`*Approve will send:*\n${codeBlock(json(proposed, 2), max)}`];
  }
  const sent = gate.state === 'approved' ? gate.decision?.payload : undefined;
  if (sent === undefined) return [];
  const changes = payloadChanges(proposed, sent);
  if (changes.length === 0 || proposed === undefined) {
    return [`*Sent:*\n${codeBlock(json(sent, 2), max)}`];
  }
  const lines = changeLines(changes.slice(0, 10), 80);
  if (changes.length > 10) lines.push(`• and ${changes.length - 10} more`);
  return [
    `*Sent, edited by the approver:*\n${lines.join('\n')}`,
    codeBlock(json(sent, 2), Math.max(100, max - lines.join('\n').length)),
  ];
}

/**
 * Section (tool, hint, arguments, the payload a decision sends), context (who may approve,
 * votes, expiry or the decision) and, while pending, the gate's buttons. `codeMax` bounds the
 * arguments and payload code blocks together.
 */
export function detailedGateBlocks(context: GateContext, codeMax: number): KnownBlock[] {
  if (context.gate.kind === 'input') {
    return inputGateBlocks(context, codeMax, hasGateButtons(context));
  }
  const { gate, position, now } = context;
  const key = `g${position}.v${gate.version}`;
  const parts = [title(context)];
  const hint = displayHint(gate.hint);
  if (hint) parts.push(escapeWithin(hint, HINT_MAX));
  const hasPayload =
    (gate.state === 'pending' && gate.payloadTemplate !== undefined) ||
    (gate.state === 'approved' && gate.decision?.payload !== undefined);
  const argsMax = hasPayload ? Math.floor(codeMax / 2) : codeMax;
  parts.push(`*Arguments:*\n${codeBlock(json(gate.originalCall.args, 2), argsMax)}`);
  if (hasPayload) parts.push(...payloadParts(gate, codeMax - argsMax));
  const section: SectionBlock = { type: 'section', text: mrkdwn(parts.join('\n')) };

  const facts =
    gate.state === 'pending'
      ? [
          reopenedText(gate, REASON_MAX),
          context.sharedFacts
            ? undefined
            : approversText(gate.policy, APPROVERS_MAX, 'approval', context.standIns),
          whyText(gate.policy),
          escalationText(gate, now),
          progressText(gate, PROGRESS_MAX),
          context.sharedFacts ? undefined : expiryText(gate, now),
        ]
      : [
          decidedText(context, REASON_MAX),
          // "Approved by" names every approver already; a later no shows the approvals it beat.
          gate.state === 'approved' ? undefined : progressText(gate, PROGRESS_MAX),
        ];
  const shownFacts = facts.filter((fact) => fact !== undefined);
  const blocks: KnownBlock[] = [withBlockId(`${key}.s`, section)];
  if (shownFacts.length > 0) {
    const factsBlock: ContextBlock = { type: 'context', elements: [mrkdwn(shownFacts.join('\n'))] };
    blocks.push(withBlockId(`${key}.c`, factsBlock));
  }
  if (gate.state === 'pending' && hasGateButtons(context)) {
    const actions: ActionsBlock = { type: 'actions', elements: gateButtons(context) };
    blocks.push(withBlockId(`${key}.a`, actions));
  }
  return blocks;
}

export function gateOption(
  pauseId: string,
  menuIndex: number,
  decision: GateDecisionChoice,
  label: string,
): PlainTextOption {
  return {
    text: plain(label),
    value: encodeGateChoice({ pauseId, gateIndex: menuIndex, decision }),
  };
}

/** Approve / Reject, and Edit & approve when the tool asked for a payload; Answer for input. */
export function gateDecisions(gate: GateRecord): GateDecisionChoice[] {
  if (gate.kind === 'input') return ['answer'];
  return gate.payloadTemplate === undefined ? ['approve', 'reject'] : ['approve', 'reject', 'edit'];
}

function rowAccessory(context: GateContext): Overflow | Button | undefined {
  const { pauseId, menuIndex, gate } = context;
  if (menuIndex !== undefined) {
    const options = gateDecisions(gate).map((decision) =>
      gateOption(pauseId, menuIndex, decision, BUTTON_LABELS[decision]),
    );
    const menu: Overflow = { type: 'overflow', action_id: ACTION_IDS.gateMenu, options };
    // A menu has one confirm dialog for all its options: asked before any decision, then.
    if (gate.policy.confirm) menu.confirm = menuConfirm(gate.originalCall.name);
    return menu;
  }
  // No menus on this card: approve (or answer) here, reject with Reject all below.
  if (!hasGateButtons(context)) return undefined;
  return gate.kind === 'input' ? answerButton(context) : gateButtons(context)[0];
}

/**
 * One section per gate: title and state, then the facts that fit in `max` characters, most
 * important first, then as much of the arguments as is left. Pending rows carry an overflow menu
 * (Approve / Reject / Edit & approve). `sharedApprovers`: the card states who may approve once.
 */
export function compactGateRow(
  context: GateContext,
  max: number,
  sharedApprovers: boolean,
): SectionBlock {
  const { gate, position, now } = context;
  const head = title(context);
  let text = head;
  const facts: string[] = [];
  if (gate.state === 'pending') {
    // Always said, whatever the room: the gate cannot be approved.
    const asking = askingOf([gate]);
    if (gate.policy.approvers.length === 0) text += ` · ${nobodyMayApprove(gate.policy, asking)}`;
    const reopened = reopenedText(gate, 250);
    if (reopened) facts.push(reopened);
    else if (!sharedApprovers) {
      facts.push(approversText(gate.policy, 150, asking, context.standIns));
    }
    const why = whyText(gate.policy, 200);
    if (why) facts.push(why);
    const escalation = escalationText(gate, now);
    if (escalation) facts.push(escalation);
    const progress = progressText(gate, 100);
    if (progress) facts.push(progress);
    const expiry = expiryText(gate, now);
    if (expiry) facts.push(expiry);
  } else {
    facts.push(decidedText(context, 150));
  }
  if (gate.state === 'pending' && gate.payloadTemplate !== undefined) {
    facts.push('Approve sends the payload the tool proposed (Edit & approve shows it)');
  }
  for (const fact of facts) {
    if (text.length + 3 + fact.length > max) break;
    text += ` · ${fact}`;
  }
  const room = max - text.length - 1;
  // A question's row shows what it asks; a tool call's row, its arguments.
  const question = gate.kind === 'input' ? gate.input?.message : undefined;
  if (room >= 24) {
    text +=
      question === undefined
        ? `\n${inlineCode(json(gate.originalCall.args, 0), room)}`
        : `\n${escapeLine(question, room)}`;
  }
  const row: SectionBlock = { type: 'section', text: mrkdwn(text) };
  const accessory = gate.state === 'pending' ? rowAccessory(context) : undefined;
  if (accessory !== undefined) row.accessory = accessory;
  return withBlockId(`r${position}.v${gate.version}`, row);
}
