import { LIMITS } from '../limits.js';
import {
  checkInitialOptions,
  type OptionKey,
  readConfirm,
  readOptionGroups,
  readOptions,
  readPlaceholder,
  readTextObject,
} from './composition.js';
import {
  at,
  checkKnownKeys,
  checkLength,
  isRecord,
  type JsonRecord,
  type Report,
  readArray,
  readBoolean,
  readEnum,
  readInteger,
  readObject,
  readString,
} from './report.js';

/** Interactive and display elements, and where each may appear. */

const SELECTS = [
  'static_select',
  'external_select',
  'users_select',
  'conversations_select',
  'channels_select',
  'multi_static_select',
  'multi_external_select',
  'multi_users_select',
  'multi_conversations_select',
  'multi_channels_select',
];
const CHOICES = ['checkboxes', 'radio_buttons', 'datepicker', 'timepicker', ...SELECTS];

export const ACTIONS_ELEMENTS: readonly string[] = [
  'button',
  'overflow',
  'workflow_button',
  'datetimepicker',
  'rich_text_input',
  ...CHOICES,
];
export const ACCESSORY_ELEMENTS: readonly string[] = [
  'button',
  'overflow',
  'workflow_button',
  'image',
  ...CHOICES,
];
export const INPUT_ELEMENTS: readonly string[] = [
  'plain_text_input',
  'number_input',
  'email_text_input',
  'url_text_input',
  'rich_text_input',
  'file_input',
  'datetimepicker',
  ...CHOICES,
];

const ACTIONABLE = ['type', 'action_id'];
const FOCUSABLE = ['focus_on_load'];
const DISPATCHING = ['dispatch_action_config'];

type ElementCheck = (report: Report, element: JsonRecord, pointer: string) => void;

const checks = new Map<string, ElementCheck>(
  Object.entries({
    button(report, element, pointer) {
      checkKnownKeys(report, element, pointer, [
        ...ACTIONABLE,
        'text',
        'value',
        'url',
        'style',
        'confirm',
        'accessibility_label',
      ]);
      readTextObject(report, element, 'text', pointer, {
        max: LIMITS.buttonText,
        plainOnly: true,
        required: true,
      });
      readString(report, element, 'value', pointer, { max: LIMITS.buttonValue });
      readString(report, element, 'url', pointer, { min: 1, max: LIMITS.url });
      readEnum(report, element, 'style', pointer, ['primary', 'danger']);
      readString(report, element, 'accessibility_label', pointer, {
        max: LIMITS.accessibilityLabel,
      });
      readConfirm(report, element, pointer);
    },

    overflow(report, element, pointer) {
      checkKnownKeys(report, element, pointer, [...ACTIONABLE, 'options', 'confirm']);
      readOptions(report, element, 'options', pointer, {
        plainOnly: true,
        allowUrl: true,
        required: true,
        min: 1,
        max: LIMITS.overflowOptions,
      });
      readConfirm(report, element, pointer);
    },

    static_select(report, element, pointer) {
      checkKnownKeys(report, element, pointer, [
        ...ACTIONABLE,
        ...FOCUSABLE,
        'options',
        'option_groups',
        'initial_option',
        'placeholder',
        'confirm',
      ]);
      const offered = readStaticOptions(report, element, pointer);
      checkInitialOptions(report, element, 'initial_option', pointer, offered, menuOptions);
      readPlaceholder(report, element, pointer);
      readConfirm(report, element, pointer);
    },

    multi_static_select(report, element, pointer) {
      checkKnownKeys(report, element, pointer, [
        ...ACTIONABLE,
        ...FOCUSABLE,
        'options',
        'option_groups',
        'initial_options',
        'max_selected_items',
        'placeholder',
        'confirm',
      ]);
      const offered = readStaticOptions(report, element, pointer);
      checkInitialOptions(report, element, 'initial_options', pointer, offered, menuOptions);
      const most = readInteger(report, element, 'max_selected_items', pointer, { min: 1 });
      const initial = element.initial_options;
      if (most !== undefined && Array.isArray(initial) && initial.length > most) {
        report.add(`no more than ${most} items allowed`, at(pointer, 'initial_options'));
      }
      readPlaceholder(report, element, pointer);
      readConfirm(report, element, pointer);
    },

    checkboxes(report, element, pointer) {
      checkKnownKeys(report, element, pointer, [
        ...ACTIONABLE,
        ...FOCUSABLE,
        'options',
        'initial_options',
        'confirm',
      ]);
      const offered = readOptions(report, element, 'options', pointer, {
        ...listOptions,
        required: true,
        min: 1,
        max: LIMITS.checkboxOptions,
      });
      checkInitialOptions(report, element, 'initial_options', pointer, offered, listOptions);
      readConfirm(report, element, pointer);
    },

    radio_buttons(report, element, pointer) {
      checkKnownKeys(report, element, pointer, [
        ...ACTIONABLE,
        ...FOCUSABLE,
        'options',
        'initial_option',
        'confirm',
      ]);
      const offered = readOptions(report, element, 'options', pointer, {
        ...listOptions,
        required: true,
        min: 1,
        max: LIMITS.radioOptions,
      });
      checkInitialOptions(report, element, 'initial_option', pointer, offered, listOptions);
      readConfirm(report, element, pointer);
    },

    plain_text_input(report, element, pointer) {
      checkKnownKeys(report, element, pointer, [
        ...ACTIONABLE,
        ...FOCUSABLE,
        ...DISPATCHING,
        'initial_value',
        'multiline',
        'min_length',
        'max_length',
        'placeholder',
      ]);
      const min = readInteger(report, element, 'min_length', pointer, {
        min: 0,
        max: LIMITS.plainTextInputLength,
      });
      const max = readInteger(report, element, 'max_length', pointer, {
        min: 1,
        max: LIMITS.plainTextInputLength,
      });
      if (min !== undefined && max !== undefined && min > max) {
        report.add('must not be more than max_length', at(pointer, 'min_length'));
      }
      readString(report, element, 'initial_value', pointer, {
        max: max ?? LIMITS.plainTextInputLength,
      });
      readBoolean(report, element, 'multiline', pointer);
      readPlaceholder(report, element, pointer);
      readDispatchConfig(report, element, pointer);
    },

    number_input(report, element, pointer) {
      checkKnownKeys(report, element, pointer, [
        ...ACTIONABLE,
        ...FOCUSABLE,
        ...DISPATCHING,
        'is_decimal_allowed',
        'initial_value',
        'min_value',
        'max_value',
        'placeholder',
      ]);
      const decimal = readBoolean(report, element, 'is_decimal_allowed', pointer, {
        required: true,
      });
      const number = (key: string) => readNumberString(report, element, key, pointer, decimal);
      const initial = number('initial_value');
      const min = number('min_value');
      const max = number('max_value');
      if (min !== undefined && max !== undefined && min > max) {
        report.add('must not be more than max_value', at(pointer, 'min_value'));
      }
      if (initial !== undefined && min !== undefined && initial < min) {
        report.add('must not be less than min_value', at(pointer, 'initial_value'));
      }
      if (initial !== undefined && max !== undefined && initial > max) {
        report.add('must not be more than max_value', at(pointer, 'initial_value'));
      }
      readPlaceholder(report, element, pointer);
      readDispatchConfig(report, element, pointer);
    },

    image(report, element, pointer) {
      checkKnownKeys(report, element, pointer, ['type', 'alt_text', 'image_url', 'slack_file']);
      readString(report, element, 'alt_text', pointer, {
        required: true,
        min: 1,
        max: LIMITS.imageAltText,
      });
      checkImageSource(report, element, pointer);
    },
  } satisfies Record<string, ElementCheck>),
);

const menuOptions = { plainOnly: true, allowUrl: false } as const;
const listOptions = { plainOnly: false, allowUrl: false } as const;

function readStaticOptions(
  report: Report,
  element: JsonRecord,
  pointer: string,
): OptionKey[] | undefined {
  const hasOptions = element.options !== undefined;
  const hasGroups = element.option_groups !== undefined;
  if (hasOptions === hasGroups) {
    report.add('must provide exactly one of options or option_groups', pointer);
  }
  if (hasGroups) return readOptionGroups(report, element, pointer);
  return readOptions(report, element, 'options', pointer, {
    ...menuOptions,
    max: LIMITS.selectOptions,
  });
}

const DECIMAL = /^-?\d+(\.\d+)?$/;
const INTEGER = /^-?\d+$/;

/** `number_input` takes its numbers as strings (`"12"`, `"0.5"`). */
function readNumberString(
  report: Report,
  element: JsonRecord,
  key: string,
  pointer: string,
  decimalAllowed: boolean | undefined,
): number | undefined {
  const text = readString(report, element, key, pointer);
  if (text === undefined) return undefined;
  const pattern = decimalAllowed === false ? INTEGER : DECIMAL;
  if (!pattern.test(text)) {
    report.add(
      decimalAllowed === false ? 'must be an integer' : 'must be a number',
      at(pointer, key),
    );
    return undefined;
  }
  return Number(text);
}

function readDispatchConfig(report: Report, element: JsonRecord, pointer: string): void {
  const config = readObject(report, element, 'dispatch_action_config', pointer);
  if (config === undefined) return;
  const here = at(pointer, 'dispatch_action_config');
  checkKnownKeys(report, config, here, ['trigger_actions_on']);
  const triggers = readArray(report, config, 'trigger_actions_on', here, { min: 1, max: 2 });
  triggers?.forEach((trigger, index) => {
    if (trigger !== 'on_enter_pressed' && trigger !== 'on_character_entered') {
      report.add(
        'must be a valid enum value (on_enter_pressed, on_character_entered)',
        at(at(here, 'trigger_actions_on'), index),
      );
    }
  });
}

/** An image takes exactly one of `image_url` and `slack_file`. */
export function checkImageSource(report: Report, obj: JsonRecord, pointer: string): void {
  const hasUrl = obj.image_url !== undefined;
  const hasFile = obj.slack_file !== undefined;
  if (hasUrl === hasFile)
    report.add('must provide exactly one of image_url or slack_file', pointer);
  readString(report, obj, 'image_url', pointer, { min: 1, max: LIMITS.url });
  const file = readObject(report, obj, 'slack_file', pointer);
  if (file !== undefined) {
    const here = at(pointer, 'slack_file');
    checkKnownKeys(report, file, here, ['url', 'id']);
    readString(report, file, 'url', here, { min: 1, max: LIMITS.url });
    readString(report, file, 'id', here, { min: 1 });
  }
}

/** Elements we do not build ourselves: only the fields every actionable element shares. */
function checkOtherElement(report: Report, element: JsonRecord, pointer: string): void {
  if (element.placeholder !== undefined) readPlaceholder(report, element, pointer);
  readConfirm(report, element, pointer);
}

/**
 * Checks one element whose type must be among `allowed` (the types its position takes), and
 * returns its `action_id` for the per-block uniqueness check.
 */
export function checkElement(
  report: Report,
  value: unknown,
  pointer: string,
  allowed: readonly string[],
): string | undefined {
  if (!isRecord(value)) {
    report.add('must provide an object', pointer);
    return undefined;
  }
  const type = readString(report, value, 'type', pointer, { required: true });
  if (type === undefined) return undefined;
  if (!allowed.includes(type)) {
    report.add(`unsupported type: ${type.slice(0, 50)}`, at(pointer, 'type'));
    return undefined;
  }
  const actionId = readString(report, value, 'action_id', pointer, { max: LIMITS.actionId });
  if (actionId !== undefined) checkLength(report, actionId, at(pointer, 'action_id'), { min: 1 });
  const check = checks.get(type) ?? checkOtherElement;
  check(report, value, pointer);
  return actionId;
}
