import { LIMITS } from '../limits.js';
import { checkTextObject, readTextObject } from './composition.js';
import {
  ACCESSORY_ELEMENTS,
  ACTIONS_ELEMENTS,
  checkElement,
  checkImageSource,
  INPUT_ELEMENTS,
} from './elements.js';
import {
  at,
  checkKnownKeys,
  checkUnique,
  isRecord,
  type JsonRecord,
  type Report,
  readArray,
  readBoolean,
  readString,
} from './report.js';

/** Layout blocks. Types we neither build nor check are refused as unsupported. */

export type Surface = 'message' | 'modal' | 'home';

const BASE = ['type', 'block_id'];

type BlockCheck = (report: Report, block: JsonRecord, pointer: string) => void;

const checks = new Map<string, BlockCheck>(
  Object.entries({
    header(report, block, pointer) {
      checkKnownKeys(report, block, pointer, [...BASE, 'text']);
      readTextObject(report, block, 'text', pointer, {
        max: LIMITS.headerText,
        plainOnly: true,
        required: true,
      });
    },

    section(report, block, pointer) {
      checkKnownKeys(report, block, pointer, [...BASE, 'text', 'fields', 'accessory', 'expand']);
      if (block.text === undefined && block.fields === undefined) {
        report.add('must define either `text` or `fields`', at(pointer, 'type'));
      }
      readTextObject(report, block, 'text', pointer, { max: LIMITS.sectionText });
      const fields = readArray(report, block, 'fields', pointer, {
        min: 1,
        max: LIMITS.sectionFields,
      });
      fields?.forEach((field, index) => {
        checkTextObject(report, field, at(at(pointer, 'fields'), index), {
          max: LIMITS.sectionField,
        });
      });
      if (block.accessory !== undefined) {
        checkElement(report, block.accessory, at(pointer, 'accessory'), ACCESSORY_ELEMENTS);
      }
      readBoolean(report, block, 'expand', pointer);
    },

    context(report, block, pointer) {
      checkKnownKeys(report, block, pointer, [...BASE, 'elements']);
      const elements = readArray(report, block, 'elements', pointer, {
        required: true,
        min: 1,
        max: LIMITS.contextElements,
      });
      elements?.forEach((element, index) => {
        const here = at(at(pointer, 'elements'), index);
        if (isRecord(element) && element.type === 'image') {
          checkElement(report, element, here, ['image']);
        } else {
          checkTextObject(report, element, here, { max: LIMITS.textObject });
        }
      });
    },

    divider(report, block, pointer) {
      checkKnownKeys(report, block, pointer, BASE);
    },

    actions(report, block, pointer) {
      checkKnownKeys(report, block, pointer, [...BASE, 'elements']);
      const elements = readArray(report, block, 'elements', pointer, {
        required: true,
        min: 1,
        max: LIMITS.actionsElements,
      });
      const actionIds = new Set<string>();
      elements?.forEach((element, index) => {
        const here = at(at(pointer, 'elements'), index);
        const actionId = checkElement(report, element, here, ACTIONS_ELEMENTS);
        checkUnique(report, actionIds, actionId, at(here, 'action_id'), 'block');
      });
    },

    input(report, block, pointer) {
      checkKnownKeys(report, block, pointer, [
        ...BASE,
        'label',
        'hint',
        'optional',
        'element',
        'dispatch_action',
      ]);
      readTextObject(report, block, 'label', pointer, {
        max: LIMITS.inputLabel,
        plainOnly: true,
        required: true,
      });
      readTextObject(report, block, 'hint', pointer, { max: LIMITS.inputHint, plainOnly: true });
      readBoolean(report, block, 'optional', pointer);
      readBoolean(report, block, 'dispatch_action', pointer);
      if (block.element === undefined) report.add('missing required field: element', pointer);
      else checkElement(report, block.element, at(pointer, 'element'), INPUT_ELEMENTS);
    },

    image(report, block, pointer) {
      checkKnownKeys(report, block, pointer, [
        ...BASE,
        'alt_text',
        'title',
        'image_url',
        'slack_file',
      ]);
      readString(report, block, 'alt_text', pointer, {
        required: true,
        min: 1,
        max: LIMITS.imageAltText,
      });
      readTextObject(report, block, 'title', pointer, { max: LIMITS.imageTitle, plainOnly: true });
      checkImageSource(report, block, pointer);
    },

    markdown(report, block, pointer) {
      checkKnownKeys(report, block, pointer, [...BASE, 'text']);
      const text = readString(report, block, 'text', pointer, { required: true, min: 1 });
      report.markdownChars += text?.length ?? 0;
    },

    rich_text(report, block, pointer) {
      checkKnownKeys(report, block, pointer, [...BASE, 'elements']);
      const elements = readArray(report, block, 'elements', pointer, { required: true, min: 1 });
      report.textChars += richTextLength(elements);
    },
  } satisfies Record<string, BlockCheck>),
);

/** Slack renders `markdown` blocks in messages only. */
const MESSAGE_ONLY = new Set(['markdown']);

/** Rich text nests its strings in `text` fields at any depth. */
function richTextLength(value: unknown): number {
  if (typeof value === 'string') return 0;
  if (Array.isArray(value))
    return value.reduce((sum: number, item) => sum + richTextLength(item), 0);
  if (!isRecord(value)) return 0;
  let sum = typeof value.text === 'string' ? value.text.length : 0;
  for (const [key, child] of Object.entries(value))
    if (key !== 'text') sum += richTextLength(child);
  return sum;
}

export interface BlocksSummary {
  /** Index of the first `input` block: a modal then needs a submit button. */
  firstInput: number | undefined;
}

/** Checks `container[key]`, the blocks of a message or a view. */
export function checkBlocks(
  report: Report,
  container: JsonRecord,
  key: string,
  pointer: string,
  { max, surface }: { max: number; surface: Surface },
): BlocksSummary {
  const summary: BlocksSummary = { firstInput: undefined };
  const blocks = readArray(report, container, key, pointer, { max });
  if (blocks === undefined) return summary;
  const blockIds = new Set<string>();
  const scope = surface === 'message' ? 'message' : 'view';
  blocks.forEach((block, index) => {
    const here = at(at(pointer, key), index);
    if (!isRecord(block)) {
      report.add('must provide an object', here);
      return;
    }
    const type = readString(report, block, 'type', here, { required: true });
    const blockId = readString(report, block, 'block_id', here, { min: 1, max: LIMITS.blockId });
    checkUnique(report, blockIds, blockId, at(here, 'block_id'), scope);
    if (type === undefined) return;
    const check = checks.get(type);
    if (check === undefined || (MESSAGE_ONLY.has(type) && surface !== 'message')) {
      report.add(`unsupported type: ${type.slice(0, 50)}`, at(here, 'type'));
      return;
    }
    if (type === 'input' && summary.firstInput === undefined) summary.firstInput = index;
    check(report, block, here);
  });
  return summary;
}
