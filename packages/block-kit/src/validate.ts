import { checkBlocks } from './checks/blocks.js';
import { readTextObject } from './checks/composition.js';
import {
  checkKnownKeys,
  isRecord,
  Report,
  readBoolean,
  readEnum,
  readString,
} from './checks/report.js';
import { LIMITS } from './limits.js';

/**
 * Slack's Block Kit limits, checked locally (Slack itself answers `invalid_blocks`).
 * Each function returns Slack-style error strings, e.g.
 * `no more than 50 items allowed [json-pointer:/blocks]`; an empty list means valid.
 * Input is untrusted JSON: anything is accepted and every problem found is listed.
 */

/**
 * Prefix of the errors Slack reports as `msg_blocks_too_long` (every block valid, but too much
 * text in total) and `msg_too_long` (the top-level `text`), rather than `invalid_blocks`.
 */
export const MSG_BLOCKS_TOO_LONG = 'msg_blocks_too_long';
export const MSG_TOO_LONG = 'msg_too_long';
/** Prefix of the error Slack reports as `view_too_large`. */
export const VIEW_TOO_LARGE = 'view_too_large';
/** Prefix of the error Slack reports as `no_text`: neither `text` nor `blocks`. */
export const NO_TEXT = 'no_text';

export function checkMessage(message: { text?: unknown; blocks?: unknown }): string[] {
  const report = new Report();
  const text = message.text;
  if (text !== undefined && typeof text !== 'string') report.add('must provide a string', '/text');
  if (typeof text === 'string' && text.length > LIMITS.messageText) {
    report.add(`${MSG_TOO_LONG}: must be less than ${LIMITS.messageText + 1} characters`, '/text');
  }
  const hasText = typeof text === 'string' && text.trim().length > 0;
  const blocks = message.blocks;
  const hasBlocks = Array.isArray(blocks) && blocks.length > 0;
  if (!hasText && !hasBlocks) report.add(`${NO_TEXT}: provide text or blocks`, '/text');
  if (blocks !== undefined) {
    checkBlocks(report, { blocks }, 'blocks', '', {
      max: LIMITS.messageBlocks,
      surface: 'message',
    });
  }
  if (report.textChars > LIMITS.messageBlocksText) {
    report.add(
      `${MSG_BLOCKS_TOO_LONG}: the blocks hold ${report.textChars} characters of text, over Slack's ${LIMITS.messageBlocksText}`,
      '/blocks',
    );
  }
  checkMarkdownTotal(report, '/blocks');
  return report.errors;
}

export function checkView(view: unknown): string[] {
  const report = new Report();
  const pointer = '/view';
  if (!isRecord(view)) {
    report.add('must provide an object', pointer);
    return report.errors;
  }
  const type = readEnum(report, view, 'type', pointer, ['modal', 'home'], { required: true });
  const common = ['type', 'blocks', 'private_metadata', 'callback_id', 'external_id'];
  checkKnownKeys(
    report,
    view,
    pointer,
    type === 'modal'
      ? [...common, 'title', 'submit', 'close', 'clear_on_close', 'notify_on_close']
      : common,
  );
  if (view.blocks === undefined) report.add('missing required field: blocks', pointer);
  const { firstInput } = checkBlocks(report, view, 'blocks', pointer, {
    max: LIMITS.viewBlocks,
    surface: type === 'home' ? 'home' : 'modal',
  });
  readString(report, view, 'private_metadata', pointer, { max: LIMITS.privateMetadata });
  readString(report, view, 'callback_id', pointer, { max: LIMITS.callbackId });
  readString(report, view, 'external_id', pointer, { min: 1, max: LIMITS.externalId });
  if (type === 'modal') {
    const button = { max: LIMITS.modalButton, plainOnly: true };
    readTextObject(report, view, 'title', pointer, {
      ...button,
      max: LIMITS.modalTitle,
      required: true,
    });
    readTextObject(report, view, 'submit', pointer, button);
    readTextObject(report, view, 'close', pointer, button);
    readBoolean(report, view, 'clear_on_close', pointer);
    readBoolean(report, view, 'notify_on_close', pointer);
    if (firstInput !== undefined && view.submit === undefined) {
      report.add('must define submit to use input block', `${pointer}/blocks/${firstInput}/input`);
    }
  }
  checkMarkdownTotal(report, `${pointer}/blocks`);
  let bytes = 0;
  try {
    bytes = Buffer.byteLength(JSON.stringify(view), 'utf8');
  } catch {
    // Only non-JSON input (a cycle, a BigInt) gets here: Slack could not have received it.
    report.add('must provide JSON', pointer);
  }
  if (bytes > LIMITS.viewBytes) {
    report.add(`${VIEW_TOO_LARGE}: ${bytes} bytes, over Slack's ${LIMITS.viewBytes}`, pointer);
  }
  return report.errors;
}

function checkMarkdownTotal(report: Report, pointer: string): void {
  if (report.markdownChars > LIMITS.markdownBlocksText) {
    report.add(
      `markdown blocks hold ${report.markdownChars} characters, over the cumulative ${LIMITS.markdownBlocksText}`,
      pointer,
    );
  }
}

/** Characters of text in `blocks` as Slack totals them for `msg_blocks_too_long`. */
export function blocksTextLength(blocks: unknown): number {
  const report = new Report();
  checkBlocks(report, { blocks }, 'blocks', '', {
    max: Number.MAX_SAFE_INTEGER,
    surface: 'message',
  });
  return report.textChars;
}
