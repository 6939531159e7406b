import { LIMITS } from '@adk-slack-approvals/block-kit';
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
import { BUTTON_LABELS, gateDecisions, gateOption } from './card-gate.js';
import { approveAllConfirm, withdrawConfirm } from './confirm-dialogs.js';
import type { GateContext } from './gate-context.js';
import {
  approversText,
  expiryText,
  listWithin,
  NO_STAND_INS,
  type StandIns,
  toolName,
} from './gate-lines.js';
import { gateOutcome, OUTCOME_WORD } from './outcome-words.js';
import {
  allDecided,
  askingEmoji,
  askingOf,
  neededHeading,
  requestHeading,
  waitingLine,
} from './request-words.js';
import { handoverLine, holdLine } from './resume-lines.js';

/** The run's prompt on a card away from its run: a line to know what it is about. */
const PROMPT_MAX = 300;

/** Slack: at most 100 options per group in a select. */
const SELECT_GROUP_MAX = LIMITS.selectOptions;

/**
 * A pause as the card shows it: each gate's context (its menu index, what its call did), which
 * gates are pending, and the parts every layout of `approval-card.ts` places (intro, approvers,
 * pause-wide actions, resume status).
 */
export class CardParts {
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
    readonly standIns: StandIns = NO_STAND_INS,
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
        ...(standIns.size === 0 ? {} : { standIns }),
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
      approversText(first.gate.policy, 1_500, asking, this.standIns),
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
        mrkdwn(
          approversText(
            policy,
            1_500,
            askingOf(this.pending.map(({ gate }) => gate)),
            this.standIns,
          ),
        ),
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

function sharedPolicy(policies: GatePolicy[]): GatePolicy | undefined {
  const [first, ...rest] = policies;
  if (first === undefined) return undefined;
  const key = (policy: GatePolicy) =>
    JSON.stringify([policy.rule, policy.approvers, policy.quorum, policy.selfApproval]);
  return rest.every((policy) => key(policy) === key(first)) ? first : undefined;
}

/** "2 approved, 1 denied"; an approved question counts as answered. */
export function tally(gates: GateRecord[]): string {
  const counts = new Map<string, number>();
  for (const gate of gates) {
    const word = OUTCOME_WORD[gateOutcome(gate)];
    counts.set(word, (counts.get(word) ?? 0) + 1);
  }
  return [...counts].map(([word, n]) => `${n} ${word}`).join(', ');
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
