import { blocksTextLength, LIMITS } from '@adk-slack-approvals/block-kit';
import { gateKind } from '../../adk/gate.js';
import { isDirectMessage } from '../../approvals/policy.js';
import type {
  GateOutcome,
  GatePolicy,
  GateRecord,
  PauseNotes,
  PauseView,
} from '../../approvals/records.js';
import type { ToolOutcome } from '../../approvals/tool-outcomes.js';
import {
  ACTION_IDS,
  encodeButtonValue,
  fitsGateChoice,
  type GateDecisionChoice,
} from '../codecs/action-ids.js';
import { withBlockId } from '../codecs/block-ids.js';
import {
  type ActionsBlock,
  type Button,
  type KnownBlock,
  mrkdwn,
  plain,
  type SectionBlock,
  type StaticSelect,
} from '../codecs/block-kit.js';
import { codeBlock, escapeLine, fitEscaped, inlineCode } from '../codecs/escape.js';
import { channelMention, permalinkTo, slackDate, userMention } from '../codecs/mentions.js';
import { notResumedLine } from './agent-answers.js';
import {
  BUTTON_LABELS,
  compactGateRow,
  detailedGateBlocks,
  gateDecisions,
  gateOption,
  hasGateButtons,
} from './card-gate.js';
import { approveAllConfirm, withdrawConfirm } from './confirm-dialogs.js';
import type { GateContext } from './gate-context.js';
import { approversText, expiryText, listWithin, toolName } from './gate-lines.js';
import { gateOutcome, OUTCOME_WORD } from './outcome-words.js';
import {
  allDecided,
  askingEmoji,
  askingOf,
  neededHeading,
  requestHeading,
  waitingLine,
} from './request-words.js';
import { handoverLine, handoverSummary, holdLine } from './resume-lines.js';

/**
 * The approval card: one message per pause, rendered from the stored records, again after every
 * vote, decision, expiry and resume step.
 *
 * Slack caps a message at 50 blocks and, undocumented, about 12,000 characters of text across
 * them, so the card degrades as gates multiply or arguments grow:
 * 1. detailed: per gate a section (arguments in a code block), a context and its buttons;
 * 2. compact: one row per gate with an overflow menu (Approve / Reject / Edit & approve);
 * 3. list: as many rows as fit, a line summing up the rest, and a "Decide one…" select that
 *    reaches every pending gate not shown as a row.
 * Approve all / Reject all are there whenever two or more gates are pending. The gates share one
 * text budget, so a huge argument list takes room from nobody but itself.
 */

/** Under Slack's cumulative ~12,000, with room for what Slack counts that we do not. */
const TEXT_BUDGET = LIMITS.messageBlocksText - 1_000;
/** Arguments per gate in detailed mode: the section keeps room for title and hint in 3,000. */
const CODE_MAX = 2_200;
/** Below this much of the arguments per gate, a row per gate serves approvers better. */
const MIN_DETAILED_CODE = 300;
const ROW_MAX = 600;
const MIN_ROW = 90;
const SUMMARY_MAX = 2_000;
/** The run's prompt on a card away from its run: a line to know what it is about. */
const PROMPT_MAX = 300;
/** Slack: at most 100 options per group in a select. */
const SELECT_GROUP_MAX = LIMITS.selectOptions;

export interface ApprovalCardOptions {
  /** Milliseconds since the epoch: decides whether a pending gate is past its expiry. */
  now: number;
  /** What each approved call did after the resume, by original call id (from the stream). */
  toolOutcomes?: ReadonlyMap<string, ToolOutcome>;
  /** A pause posted through the API: what its agent did with the decision (claims, outcomes). */
  notes?: PauseNotes;
  /** What the agent reported for each gate through the approvals API, by confirmation call id. */
  agentOutcomes?: ReadonlyMap<string, GateOutcome['status']>;
}

export interface ApprovalCard {
  /** The notification fallback: short, escaped, mentions nobody. */
  text: string;
  blocks: KnownBlock[];
}

export function renderApprovalCard(
  view: PauseView,
  { now, toolOutcomes, notes, agentOutcomes }: ApprovalCardOptions,
): ApprovalCard {
  const card = new CardParts(
    view,
    now,
    toolOutcomes ?? new Map(),
    notes,
    agentOutcomes ?? new Map(),
  );
  const blocks = detailedLayout(card) ?? compactLayout(card) ?? rowlessLayout(card);
  return { text: fallbackText(view, notes), blocks };
}

class CardParts {
  readonly contexts: GateContext[];
  readonly pending: GateContext[];
  /** Menus name a gate by its index in `callIds`: only gates found there can be reached so. */
  readonly menuReady: boolean;

  /** Two or more pending gates under one policy and one expiry: said once, above them. */
  readonly factsShared: boolean;

  constructor(
    readonly view: PauseView,
    readonly now: number,
    readonly toolOutcomes: ReadonlyMap<string, ToolOutcome>,
    readonly notes: PauseNotes | undefined,
    agentOutcomes: ReadonlyMap<string, GateOutcome['status']>,
  ) {
    const { pause, gates } = view;
    const count = gates.length;
    const indexes = gates.map((gate) => pause.callIds.indexOf(gate.confirmationCallId));
    this.menuReady =
      indexes.every((index) => index >= 0) && fitsGateChoice(pause.id, pause.callIds.length);
    const pendingGates = gates.filter((gate) => gate.state === 'pending');
    const [firstPending] = pendingGates;
    this.factsShared =
      pendingGates.length >= 2 &&
      sharedPolicy(pendingGates.map((gate) => gate.policy)) !== undefined &&
      pendingGates.every((gate) => gate.expiresAt === firstPending?.expiresAt);
    this.contexts = gates.map((gate, position) => {
      const menuIndex = indexes[position];
      const toolOutcome = toolOutcomes.get(gate.originalCall.id);
      const agentOutcome = agentOutcomes.get(gate.confirmationCallId);
      return {
        gate,
        position,
        ...(this.menuReady && menuIndex !== undefined ? { menuIndex } : {}),
        count,
        pauseId: pause.id,
        now,
        ...(toolOutcome === undefined ? {} : { toolOutcome }),
        ...(agentOutcome === undefined ? {} : { agentOutcome }),
        ...(this.factsShared ? { sharedFacts: true } : {}),
      };
    });
    this.pending = this.contexts.filter(({ gate }) => gate.state === 'pending');
  }

  /** Who may approve and when it expires, once for every pending gate (see `factsShared`). */
  sharedFacts(): KnownBlock | undefined {
    const [first] = this.pending;
    if (!this.factsShared || first === undefined) return undefined;
    const asking = askingOf(this.pending.map(({ gate }) => gate));
    const lines = [
      approversText(first.gate.policy, 1_500, asking),
      expiryText(first.gate, this.now),
    ];
    return withBlockId(`facts.v${this.view.pause.version}`, {
      type: 'context',
      elements: [mrkdwn(lines.filter((line) => line !== undefined).join('\n'))],
    });
  }

  intro(): SectionBlock {
    const { pause, gates } = this.view;
    const waiting = this.pending.length;
    const asking = askingOf(gates);
    const head =
      waiting > 0 || gates.length === 0
        ? `${askingEmoji(asking)} *${neededHeading(asking)}*`
        : `:clipboard: *${requestHeading(asking)}*`;
    const lines = [
      `${head} · requested by ${userMention(pause.requester)}${this.where()} · agent ${inlineCode(pause.adk.appName, 80)}`,
    ];
    const prompt = pause.origin?.prompt?.trim();
    if (pause.runThread !== undefined && prompt) lines.push(`> ${escapeLine(prompt, PROMPT_MAX)}`);
    if (gates.length === 0) lines.push('No tool calls are recorded for this request.');
    else if (waiting === 0) lines.push(`${allDecided(asking)}: ${tally(gates)}.`);
    else if (gates.length > 1) lines.push(waitingLine(asking, waiting, gates.length));
    return withBlockId(`intro.v${pause.version}`, {
      type: 'section',
      text: mrkdwn(lines.join('\n')),
      ...(waiting > 0 ? { accessory: withdrawButton(pause.id) } : {}),
    });
  }

  /** " in #ops (open the run)" for a card away from its run; nothing on a card in the run's thread. */
  private where(): string {
    const { runThread, origin } = this.view.pause;
    if (runThread === undefined) return '';
    const channel = isDirectMessage(runThread.channelId)
      ? 'a direct message'
      : (channelMention(runThread.channelId) ?? 'another conversation');
    const link = permalinkTo(origin?.permalink, 'open the run');
    return ` in ${channel}${link === undefined ? '' : ` (${link})`}`;
  }

  /** Who may approve, said once when every pending gate has the same policy. */
  sharedApprovers(): KnownBlock | undefined {
    const policy = sharedPolicy(this.pending.map(({ gate }) => gate.policy));
    if (policy === undefined) return undefined;
    return withBlockId(`who.v${this.view.pause.version}`, {
      type: 'context',
      elements: [
        mrkdwn(approversText(policy, 1_500, askingOf(this.pending.map(({ gate }) => gate)))),
      ],
    });
  }

  /**
   * Approve all / Reject all, and a select for pending gates that have no control of their own
   * (names cut to `optionNameMax`; below zero: no select, the pause-wide buttons instead).
   */
  pauseWideActions(unreachable: GateContext[], optionNameMax: number): ActionsBlock | undefined {
    const elements: ActionsBlock['elements'] = [];
    const pendingCount = this.pending.length;
    const selectable =
      this.menuReady && optionNameMax >= 0 ? unreachable.slice(0, SELECT_GROUP_MAX) : [];
    // Approve all / Reject all decide tool calls only: questions are answered on their forms.
    const confirmations = this.pendingConfirmations();
    if (confirmations > 0 && (pendingCount >= 2 || selectable.length < unreachable.length)) {
      elements.push(...this.allButtons());
    }
    if (selectable.length > 0) elements.push(decideOneSelect(selectable, optionNameMax));
    if (elements.length === 0) return undefined;
    return withBlockId(`all.v${this.view.pause.version}`, { type: 'actions', elements });
  }

  private pendingConfirmations(): number {
    return this.pending.filter(({ gate }) => gateKind(gate) === 'confirmation').length;
  }

  private allButtons(): Button[] {
    const value = encodeButtonValue({ pauseId: this.view.pause.id });
    const tools = this.pending
      .filter(({ gate }) => gateKind(gate) === 'confirmation')
      .map(({ gate }) => gate.originalCall.name);
    return [
      {
        type: 'button',
        action_id: ACTION_IDS.approveAll,
        text: plain('Approve all'),
        style: 'primary',
        value,
        confirm: approveAllConfirm(tools),
      },
      {
        type: 'button',
        action_id: ACTION_IDS.rejectAll,
        text: plain('Reject all'),
        style: 'danger',
        value,
      },
    ];
  }

  resumeStatus(): SectionBlock | undefined {
    const { pause } = this.view;
    const resume = pause.resume;
    const key = `resume.v${pause.version}`;
    switch (resume.state) {
      case 'idle':
        if (this.pending.length > 0 || this.contexts.length === 0) return undefined;
        if (resume.holdUntil !== undefined && resume.holdUntil > this.now) {
          // The undo window: the decider (or an admin) may still take the approval back.
          return withBlockId(key, {
            type: 'section',
            text: mrkdwn(holdLine(this.view, resume.holdUntil)),
            accessory: {
              type: 'button',
              action_id: ACTION_IDS.undo,
              text: plain('Undo'),
              value: encodeButtonValue({ pauseId: pause.id }),
            },
          });
        }
        return withBlockId(key, {
          type: 'section',
          text: mrkdwn(
            `:hourglass_flowing_sand: ${allDecided(askingOf(this.view.gates))}: the agent resumes shortly.`,
          ),
        });
      case 'resuming':
        return withBlockId(key, {
          type: 'section',
          text: mrkdwn(':arrows_counterclockwise: Resuming the agent…'),
        });
      case 'resumed': {
        const when = resume.at === undefined ? '' : ` ${slackDate(resume.at)}`;
        const line = handoverLine(this.view, this.notes) ?? this.resumedLine();
        return withBlockId(key, { type: 'section', text: mrkdwn(`${line}${when}`) });
      }
      case 'failed': {
        // `attempts` counts claims (the first, then each Retry); the tries within one are in
        // the error text the resumer records.
        const retries = resume.attempts - 1;
        const retried = retries > 0 ? ` (retried ${retries} time${retries === 1 ? '' : 's'})` : '';
        const error = resume.lastError?.trim();
        const text = `:warning: Resuming the agent failed${retried}.${error ? `\n${codeBlock(error, 600)}` : ''}`;
        return withBlockId(key, {
          type: 'section',
          text: mrkdwn(text),
          accessory: {
            type: 'button',
            action_id: ACTION_IDS.retryResume,
            text: plain('Retry'),
            style: 'primary',
            value: encodeButtonValue({ pauseId: pause.id }),
          },
        });
      }
      case 'refused': {
        // No Retry: the agent holds the answers already, so sending them again cannot help.
        const error = resume.lastError?.trim();
        const text = `:no_entry: The agent received the decision and refused it: nothing ran.${error ? `\n${codeBlock(error, 600)}` : ''}`;
        return withBlockId(key, { type: 'section', text: mrkdwn(text) });
      }
      case 'abandoned':
        return withBlockId(key, { type: 'section', text: mrkdwn(notResumedLine(this.contexts)) });
    }
  }

  /**
   * Told (every call rejected: the agent only hears no), ran, or failed: an approved call that
   * then failed is never shown as a success.
   */
  private resumedLine(): string {
    const approved = this.contexts.filter(({ gate }) => gate.state === 'approved');
    const names = (outcome: ToolOutcome) =>
      listWithin(
        approved.flatMap(({ gate, toolOutcome }) =>
          toolOutcome === outcome ? [toolName(gate, 60)] : [],
        ),
        300,
      );
    const askedAgain = names('asked_again');
    if (askedAgain !== '') {
      return `:repeat: Agent resumed, but it asked again for ${askedAgain} instead of running it: nothing ran, see the thread`;
    }
    const failed = names('failed');
    if (failed !== '') return `:red_circle: Agent resumed, but ${failed} *failed*: see the thread`;
    if (approved.length === 0) return ':speech_balloon: Agent told: nothing was approved';
    const ran = approved.every(({ toolOutcome }) => toolOutcome === 'ran');
    return ran
      ? ':white_check_mark: Agent resumed: approved calls ran'
      : ':arrow_forward: Agent resumed';
  }
}

/** How the notification text of a decided card ends, by resume state. */
const RESUME_SUMMARY: Partial<Record<PauseView['pause']['resume']['state'], string>> = {
  failed: ' — resuming the agent failed',
  refused: ' — the agent refused the decision',
  resumed: ' — agent resumed',
};

/** Shown to all (Slack cannot show a button to one person); the workflow refuses others. */
function withdrawButton(pauseId: string): Button {
  return {
    type: 'button',
    action_id: ACTION_IDS.withdraw,
    text: plain('Withdraw'),
    value: encodeButtonValue({ pauseId }),
    confirm: withdrawConfirm(),
  };
}

function compact<T>(items: (T | undefined)[]): T[] {
  return items.filter((item): item is T => item !== undefined);
}

function fits(blocks: KnownBlock[]): boolean {
  return blocks.length <= LIMITS.messageBlocks && blocksTextLength(blocks) <= TEXT_BUDGET;
}

function detailedLayout(card: CardParts): KnownBlock[] | undefined {
  const count = card.contexts.length;
  if (count === 0) return compact([card.intro(), card.resumeStatus()]);
  const unreachable = card.pending.filter((context) => !hasGateButtons(context));
  // At least: the intro, the shared facts, a section and a context per gate, a buttons block
  // per pending gate.
  const least = 2 + 2 * count + card.pending.length - unreachable.length;
  if (least > LIMITS.messageBlocks) return undefined;
  let codeMax = Math.min(CODE_MAX, Math.floor(TEXT_BUDGET / count));
  while (codeMax >= MIN_DETAILED_CODE) {
    const blocks = compact([
      card.intro(),
      card.sharedFacts(),
      ...card.contexts.flatMap((context) => detailedGateBlocks(context, codeMax)),
      card.pauseWideActions(unreachable, 40),
      card.resumeStatus(),
    ]);
    if (blocks.length > LIMITS.messageBlocks) return undefined;
    const total = blocksTextLength(blocks);
    if (total <= TEXT_BUDGET) return blocks;
    codeMax -= Math.ceil((total - TEXT_BUDGET) / count) + 16;
  }
  return undefined;
}

function compactLayout(card: CardParts): KnownBlock[] | undefined {
  const fixed = compact([card.intro(), card.sharedApprovers(), card.resumeStatus()]).length;
  // The pause-wide actions block may be needed; counting it always keeps the arithmetic simple.
  const capacity = LIMITS.messageBlocks - fixed - 1;
  if (card.contexts.length > capacity) return listLayout(card, chooseRows(card, capacity - 1));
  return listLayout(card, card.contexts);
}

/** Which gates get a row when not all can: pending ones first, then the rest, in card order. */
function chooseRows(card: CardParts, capacity: number): GateContext[] {
  if (capacity <= 0) return [];
  const decided = card.contexts.filter(({ gate }) => gate.state !== 'pending');
  const chosen = new Set([...card.pending, ...decided].slice(0, capacity));
  return card.contexts.filter((context) => chosen.has(context));
}

/** Builds the card with rows for `shown`, a summary of the others, and the pause-wide actions. */
function listBuilder(card: CardParts, shown: GateContext[]) {
  const shownSet = new Set(shown);
  const hidden = card.contexts.filter((context) => !shownSet.has(context));
  const shared = card.sharedApprovers();
  const rowless = card.pending.filter(
    (context) => !shownSet.has(context) || !(card.menuReady || hasGateButtons(context)),
  );
  return (rowMax: number, optionNameMax: number) =>
    compact([
      card.intro(),
      shared,
      ...shown.map((context) => compactGateRow(context, rowMax, shared !== undefined)),
      hidden.length > 0 ? summary(card, hidden) : undefined,
      card.pauseWideActions(rowless, optionNameMax),
      card.resumeStatus(),
    ]);
}

function listLayout(card: CardParts, shown: GateContext[]): KnownBlock[] | undefined {
  if (shown.length === 0) return undefined;
  const build = listBuilder(card, shown);
  let rowMax = ROW_MAX;
  while (rowMax >= MIN_ROW) {
    const blocks = build(rowMax, 40);
    if (blocks.length > LIMITS.messageBlocks) return undefined;
    const total = blocksTextLength(blocks);
    if (total <= TEXT_BUDGET) return blocks;
    rowMax -= Math.ceil((total - TEXT_BUDGET) / shown.length) + 8;
  }
  return undefined;
}

/** Last resort, no rows at all: the summary and the "Decide one…" select carry every gate. */
function rowlessLayout(card: CardParts): KnownBlock[] {
  const build = listBuilder(card, []);
  for (const optionNameMax of [24, 12, 0, -1]) {
    const blocks = build(MIN_ROW, optionNameMax);
    if (fits(blocks)) return blocks;
  }
  return build(MIN_ROW, -1);
}

function summary(card: CardParts, hidden: GateContext[]): SectionBlock {
  const pending = hidden.filter(({ gate }) => gate.state === 'pending');
  const decided = hidden.filter(({ gate }) => gate.state !== 'pending');
  const lines = [
    `*${hidden.length} more tool call${hidden.length === 1 ? '' : 's'}* not listed one by one:`,
  ];
  if (pending.length > 0) {
    const names = pending.map(({ gate, position }) => `${position + 1}. ${toolName(gate, 40)}`);
    const how = card.menuReady
      ? 'decide each with the menu below, or all at once'
      : 'decide them with Approve all / Reject all';
    lines.push(`${pending.length} pending (${how}): ${listWithin(names, SUMMARY_MAX / 2)}`);
  }
  if (decided.length > 0)
    lines.push(`${decided.length} decided: ${tally(decided.map(({ gate }) => gate))}`);
  const key = `more.v${card.view.pause.version}`;
  return withBlockId(key, { type: 'section', text: mrkdwn(lines.join('\n')) });
}

function decideOneSelect(pending: GateContext[], nameMax: number): StaticSelect {
  const label = (context: GateContext) => {
    const name = fitEscaped(context.gate.originalCall.name.replace(/\s+/g, ' '), nameMax);
    return `${context.position + 1}. ${name.text}${name.cut ? '…' : ''}`;
  };
  const group = (title: string, decision: GateDecisionChoice) => ({
    label: plain(title),
    options: pending.flatMap((context) =>
      context.menuIndex !== undefined && gateDecisions(context.gate).includes(decision)
        ? [gateOption(context.pauseId, context.menuIndex, decision, label(context))]
        : [],
    ),
  });
  const groups = [
    group(BUTTON_LABELS.approve, 'approve'),
    group(BUTTON_LABELS.reject, 'reject'),
    group(BUTTON_LABELS.edit, 'edit'),
  ].filter(({ options }) => options.length > 0);
  return {
    type: 'static_select',
    action_id: ACTION_IDS.gateMenu,
    placeholder: plain('Decide one call…'),
    option_groups: groups,
  };
}

function sharedPolicy(policies: GatePolicy[]): GatePolicy | undefined {
  const [first, ...rest] = policies;
  if (first === undefined) return undefined;
  const key = (policy: GatePolicy) =>
    JSON.stringify([policy.rule, policy.approvers, policy.quorum, policy.selfApproval]);
  return rest.every((policy) => key(policy) === key(first)) ? first : undefined;
}

/** "2 approved, 1 denied"; an approved question counts as answered. */
function tally(gates: GateRecord[]): string {
  const counts = new Map<string, number>();
  for (const gate of gates) {
    const word = OUTCOME_WORD[gateOutcome(gate)];
    counts.set(word, (counts.get(word) ?? 0) + 1);
  }
  return [...counts].map(([word, n]) => `${n} ${word}`).join(', ');
}

/** The notification text: tool names escaped, no mentions, at most a few hundred characters. */
function fallbackText(view: PauseView, notes: PauseNotes | undefined): string {
  const { gates, pause } = view;
  const pending = gates.filter((gate) => gate.state === 'pending');
  const names = (list: GateRecord[]) =>
    listWithin(
      list.map((gate) =>
        gateKind(gate) === 'input'
          ? `a question from ${escapeLine(gate.author ?? 'the agent', 60)}`
          : escapeLine(gate.originalCall.name, 60),
      ),
      160,
    );
  if (pending.length > 0) {
    return `${neededHeading(askingOf(pending))}: ${names(pending)} (${escapeLine(pause.adk.appName, 60)})`;
  }
  const handover = pause.resume.state === 'resumed' ? handoverSummary(view, notes) : undefined;
  const resume = handover ?? RESUME_SUMMARY[pause.resume.state] ?? '';
  const heading = requestHeading(askingOf(gates));
  return gates.length === 0 ? heading : `${heading} decided: ${tally(gates)}${resume}`;
}
