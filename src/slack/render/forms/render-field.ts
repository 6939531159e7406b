import { LIMITS } from '@adk-slack-approvals/block-kit';
import {
  type InputBlock,
  type KnownBlock,
  mrkdwn,
  type PlainTextOption,
  plain,
} from '../../codecs/block-kit.js';
import { escapeLine } from '../../codecs/escape.js';
import { INPUT_ACTION_ID } from '../../codecs/view-state.js';
import { optionLabel } from './choices.js';
import { type Choice, type Field, hintOf, isPlainDecimal, type Widget } from './field.js';

/**
 * A form's fields as Block Kit inputs, one block per field, each under its field's block id and
 * the app's one action id. Pure. Labels and hints are escaped here; every limit is Slack's.
 */

const INPUT_MAX = LIMITS.plainTextInputLength;
/** What `datepicker` takes: `YYYY-MM-DD`. */
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const LABEL_MAX = 150;
/** Slack allows 2,000 characters in a hint. */
const HINT_MAX = 1_900;

export function formBlocks(fields: readonly Field[]): KnownBlock[] {
  return fields.map(fieldBlock);
}

function fieldBlock(field: Field): KnownBlock {
  const { widget } = field;
  if (widget.kind === 'fixed') {
    return {
      type: 'context',
      block_id: field.blockId,
      elements: [mrkdwn(`*${label(field)}*: too long to edit here, so it is kept as it is.`)],
    };
  }
  const help = hint(field, widget);
  return {
    type: 'input',
    block_id: field.blockId,
    label: plain(label(field)),
    element: element(widget),
    // A checkbox left empty is an answer (no), so Slack must not demand it.
    optional: !field.required || widget.kind === 'boolean',
    ...(help === undefined ? {} : { hint: plain(help) }),
  };
}

function label(field: Field): string {
  return escapeLine(field.label, LABEL_MAX);
}

/** The front end's words, then what the input itself cannot say. */
function hint(field: Field, widget: Widget): string | undefined {
  const text = hintOf(field.hint, widgetWords(widget));
  return text === undefined ? undefined : escapeLine(text, HINT_MAX);
}

function widgetWords(widget: Widget): string | undefined {
  switch (widget.kind) {
    case 'number':
      return numberWords(widget.whole, widget.minimum, widget.maximum);
    case 'datetime':
      return 'Shown in your time zone.';
    case 'list':
      if (widget.initial.length === 0) return undefined;
      return widget.choices.length > widget.initial.length
        ? 'Unselect an item to leave it out, or add one.'
        : 'Unselect an item to leave it out.';
    default:
      return undefined;
  }
}

function numberWords(whole: boolean, minimum?: number, maximum?: number): string {
  const what = whole ? 'A whole number' : 'A number';
  if (minimum !== undefined && maximum !== undefined) {
    return `${what} from ${minimum} to ${maximum}.`;
  }
  if (minimum !== undefined) return `${what}, at least ${minimum}.`;
  if (maximum !== undefined) return `${what}, at most ${maximum}.`;
  return `${what}.`;
}

function options(choices: readonly Choice[]): PlainTextOption[] {
  return choices.map(({ value, id }) => ({ text: plain(optionLabel(value) ?? id), value: id }));
}

const YES: PlainTextOption = { text: plain('Yes'), value: 'true' };

function element(widget: Exclude<Widget, { kind: 'fixed' }>): InputBlock['element'] {
  const action_id = INPUT_ACTION_ID;
  switch (widget.kind) {
    case 'text': {
      const max = Math.min(widget.maxLength ?? INPUT_MAX, INPUT_MAX);
      const min = widget.minLength;
      const initial = widget.initial;
      return {
        type: 'plain_text_input',
        action_id,
        multiline: widget.multiline,
        max_length: max,
        ...(min !== undefined && min <= max ? { min_length: min } : {}),
        ...(initial !== undefined && initial !== '' && initial.length <= max
          ? { initial_value: initial }
          : {}),
      };
    }
    case 'number': {
      const { whole } = widget;
      const initial = fitting(widget.initial, whole, (n) => n);
      // Slack refuses to open a view whose number starts outside its bounds: a proposed value the
      // schema forbids is still shown, without that bound, and the check says what is wrong.
      const min = fitting(widget.minimum, whole, Math.ceil);
      const max = fitting(widget.maximum, whole, Math.floor);
      return {
        type: 'number_input',
        action_id,
        is_decimal_allowed: !whole,
        ...(initial === undefined ? {} : { initial_value: String(initial) }),
        ...(min === undefined || (initial ?? min) < min ? {} : { min_value: String(min) }),
        ...(max === undefined || (initial ?? max) > max ? {} : { max_value: String(max) }),
      };
    }
    case 'boolean':
      return {
        type: 'checkboxes',
        action_id,
        options: [YES],
        ...(widget.initial ? { initial_options: [YES] } : {}),
      };
    case 'choice': {
      const [initial] = options(widget.initial === undefined ? [] : [widget.initial]);
      return {
        type: 'static_select',
        action_id,
        placeholder: plain('Choose one'),
        options: options(widget.choices),
        ...(initial === undefined ? {} : { initial_option: initial }),
      };
    }
    case 'list':
      return {
        type: 'multi_static_select',
        action_id,
        placeholder: plain('Choose items'),
        options: options(widget.choices),
        ...(widget.initial.length === 0 ? {} : { initial_options: options(widget.initial) }),
      };
    case 'datetime': {
      const seconds = widget.initial === undefined ? undefined : unixSeconds(widget.initial);
      return {
        type: 'datetimepicker',
        action_id,
        ...(seconds === undefined ? {} : { initial_date_time: seconds }),
      };
    }
    case 'date':
      return {
        type: 'datepicker',
        action_id,
        ...(widget.initial !== undefined && DATE.test(widget.initial)
          ? { initial_date: widget.initial }
          : {}),
      };
    case 'json':
      return element({ kind: 'text', multiline: true, initial: widget.initial });
  }
}

/**
 * A number as Slack's number input takes it: plain decimal notation, and whole for a whole-number
 * input (a bound rounded inwards, which allows the same whole numbers); none when it cannot be.
 */
function fitting(
  value: number | undefined,
  whole: boolean,
  round: (value: number) => number,
): number | undefined {
  if (value === undefined) return undefined;
  const shown = whole ? round(value) : value;
  return isPlainDecimal(shown) && (!whole || Number.isInteger(shown)) ? shown : undefined;
}

/** Unix seconds, as `datetimepicker` takes them; none for a text that is no instant. */
function unixSeconds(iso: string): number | undefined {
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? undefined : Math.floor(ms / 1000);
}
