import type { BatchPick } from '../../approvals/outcomes.js';
import { CALLBACK_IDS } from '../codecs/action-ids.js';
import { type KnownBlock, type Modal, mrkdwn, plain } from '../codecs/block-kit.js';
import { batchCallLine } from './batch-modal.js';
import { refusalLine } from './notices.js';

/**
 * The last step of a batch from the App Home, in the modal the person confirmed in: what became
 * of every picked call. A modal stays until its person closes it, so no redraw of the Home or of
 * a card replaces what it says.
 */

/** Shown from the moment the batch is confirmed until it is decided (a second or so). */
export function renderBatchProgressModal(count: number): Modal {
  return {
    type: 'modal',
    callback_id: CALLBACK_IDS.batchResult,
    title: plain('Deciding…'),
    close: plain('Close'),
    blocks: [
      {
        type: 'section',
        text: mrkdwn(
          `Deciding the ${count} call${count === 1 ? '' : 's'} you confirmed; what became of each shows here.`,
        ),
      },
    ],
  };
}

/** Nothing of the batch was decided, and why (it could not be read, it held too many calls). */
export function renderBatchRefusedModal(why: string): Modal {
  return {
    type: 'modal',
    callback_id: CALLBACK_IDS.batchResult,
    title: plain('Nothing decided'),
    close: plain('Close'),
    blocks: [{ type: 'section', text: mrkdwn(`:no_entry: ${why} Nothing was decided.`) }],
  };
}

/** "2 approved, 1 rejected, 1 approval counted (the call waits for more), 1 not decided" */
export function batchSummary(picks: readonly BatchPick[]): string {
  const count = (kind: BatchPick['outcome']['kind']) =>
    picks.filter((pick) => pick.outcome.kind === kind).length;
  const counted = count('counted');
  const parts = [
    count('approved') > 0 ? `${count('approved')} approved` : undefined,
    count('rejected') > 0 ? `${count('rejected')} rejected` : undefined,
    counted > 0
      ? `${counted} approval${counted === 1 ? '' : 's'} counted (${counted === 1 ? 'the call waits' : 'the calls wait'} for more)`
      : undefined,
    count('refused') > 0 ? `${count('refused')} not decided` : undefined,
  ];
  const picked = `${picks.length} call${picks.length === 1 ? '' : 's'}`;
  return `Of the ${picked} you picked: ${parts.filter((part) => part !== undefined).join(', ')}.`;
}

const DONE_LINE = {
  approved: ':white_check_mark: Approved',
  rejected: ':x: Rejected',
} as const;

/** The call of a pick, or what is left to say of it when its pause is no longer on record. */
function callOf(pick: BatchPick): string {
  return pick.call === undefined ? 'A call no longer on record' : batchCallLine(pick.call);
}

function outcomeLine(pick: BatchPick): string {
  const { outcome } = pick;
  switch (outcome.kind) {
    case 'approved':
    case 'rejected':
      return DONE_LINE[outcome.kind];
    case 'counted':
      return `:ballot_box_with_check: Your approval counted: ${outcome.approvals} of ${outcome.quorum}. It waits for more.`;
    case 'refused': {
      const where =
        pick.call === undefined
          ? ''
          : ` It is as it was: see its card in <#${pick.call.channelId}>.`;
      return `:no_entry: Not decided. ${refusalLine(outcome.refusal)}${where}`;
    }
  }
}

/**
 * What became of each picked call: the count of each outcome first, then the calls not decided
 * with why (each refusal as a click on its card would hear it), then the others.
 */
export function renderBatchResultModal(picks: readonly BatchPick[]): Modal {
  const refused = picks.filter((pick) => pick.outcome.kind === 'refused');
  const rest = picks.filter((pick) => pick.outcome.kind !== 'refused');
  const section = (pick: BatchPick): KnownBlock => ({
    type: 'section',
    text: mrkdwn(`${callOf(pick)}\n${outcomeLine(pick)}`),
  });
  return {
    type: 'modal',
    callback_id: CALLBACK_IDS.batchResult,
    title: plain(refused.length === 0 ? 'Batch decided' : 'Batch: not all decided'),
    close: plain('Close'),
    blocks: [
      { type: 'section', text: mrkdwn(`*${batchSummary(picks)}*`) },
      ...(refused.length === 0
        ? []
        : [{ type: 'header' as const, text: plain('Not decided') }, ...refused.map(section)]),
      ...(rest.length === 0 || refused.length === 0
        ? []
        : [{ type: 'header' as const, text: plain('Decided') }]),
      ...rest.map(section),
    ],
  };
}
