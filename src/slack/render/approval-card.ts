import { blocksTextLength, LIMITS } from '@adk-slack-approvals/block-kit';
import { gateKind } from '../../adk/gate.js';
import type { GateOutcome, GateRecord, PauseNotes, PauseView } from '../../approvals/records.js';
import type { ToolOutcome } from '../../approvals/tool-outcomes.js';
import { withBlockId } from '../codecs/block-ids.js';
import { type KnownBlock, mrkdwn, type SectionBlock } from '../codecs/block-kit.js';
import { escapeLine } from '../codecs/escape.js';
import { compactGateRow, detailedGateBlocks, hasGateButtons } from './card-gate.js';
import { CardParts, tally } from './card-parts.js';
import type { GateContext } from './gate-context.js';
import { listWithin, type StandIns, toolName } from './gate-lines.js';
import { askingOf, neededHeading, requestHeading } from './request-words.js';
import { handoverSummary } from './resume-lines.js';

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

export interface ApprovalCardOptions {
  /** Milliseconds since the epoch: decides whether a pending gate is past its expiry. */
  now: number;
  /** What each approved call did after the resume, by original call id (from the stream). */
  toolOutcomes?: ReadonlyMap<string, ToolOutcome>;
  /** A pause posted through the API: what its agent did with the decision (claims, outcomes). */
  notes?: PauseNotes;
  /** Approvers away and who stands in for them (hand-overs in force): "Carol (for Bob)". */
  standIns?: StandIns;
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
  { now, toolOutcomes, notes, agentOutcomes, standIns }: ApprovalCardOptions,
): ApprovalCard {
  const card = new CardParts(
    view,
    now,
    toolOutcomes ?? new Map(),
    notes,
    agentOutcomes ?? new Map(),
    standIns,
  );
  const blocks = detailedLayout(card) ?? compactLayout(card) ?? rowlessLayout(card);
  return { text: fallbackText(view, notes), blocks };
}

/** How the notification text of a decided card ends, by resume state. */
const RESUME_SUMMARY: Partial<Record<PauseView['pause']['resume']['state'], string>> = {
  failed: ' — resuming the agent failed',
  refused: ' — the agent refused the decision',
  resumed: ' — agent resumed',
};

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
