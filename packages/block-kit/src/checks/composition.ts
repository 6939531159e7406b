import { LIMITS } from '../limits.js';
import {
  at,
  checkKnownKeys,
  isRecord,
  type JsonRecord,
  type Report,
  readArray,
  readBoolean,
  readEnum,
  readObject,
  readString,
} from './report.js';

/** Composition objects: text objects, options, option groups and confirmation dialogs. */

export interface TextRule {
  max: number;
  /** Headers, labels, button and select texts take `plain_text` only. */
  plainOnly?: boolean;
}

/** Checks a text object at `pointer` and returns its text. */
export function checkTextObject(
  report: Report,
  value: unknown,
  pointer: string,
  rule: TextRule,
): string | undefined {
  if (!isRecord(value)) {
    report.add('must provide an object', pointer);
    return undefined;
  }
  const type = readEnum(report, value, 'type', pointer, ['plain_text', 'mrkdwn'], {
    required: true,
  });
  if (type === 'mrkdwn' && rule.plainOnly) report.add('must be plain_text', at(pointer, 'type'));
  checkKnownKeys(
    report,
    value,
    pointer,
    type === 'mrkdwn' ? ['type', 'text', 'verbatim'] : ['type', 'text', 'emoji'],
  );
  readBoolean(report, value, type === 'mrkdwn' ? 'verbatim' : 'emoji', pointer);
  const text = readString(report, value, 'text', pointer, { required: true, max: rule.max });
  if (text === undefined) return undefined;
  // Slack trims before it checks: whitespace-only text is refused as empty.
  if (text.trim().length === 0) report.add('must be more than 0 characters', at(pointer, 'text'));
  report.textChars += text.length;
  return text;
}

export function readTextObject(
  report: Report,
  obj: JsonRecord,
  key: string,
  pointer: string,
  rule: TextRule & { required?: boolean },
): string | undefined {
  const value = obj[key];
  if (value === undefined) {
    if (rule.required) report.add(`missing required field: ${key}`, pointer);
    return undefined;
  }
  return checkTextObject(report, value, at(pointer, key), rule);
}

export function readPlaceholder(report: Report, obj: JsonRecord, pointer: string): void {
  readTextObject(report, obj, 'placeholder', pointer, {
    max: LIMITS.placeholder,
    plainOnly: true,
  });
}

export function readConfirm(report: Report, obj: JsonRecord, pointer: string): void {
  const confirm = readObject(report, obj, 'confirm', pointer);
  if (confirm === undefined) return;
  const here = at(pointer, 'confirm');
  checkKnownKeys(report, confirm, here, ['title', 'text', 'confirm', 'deny', 'style']);
  readTextObject(report, confirm, 'title', here, { max: LIMITS.confirmTitle, plainOnly: true });
  readTextObject(report, confirm, 'text', here, { max: LIMITS.confirmText, required: true });
  readTextObject(report, confirm, 'confirm', here, {
    max: LIMITS.confirmButton,
    plainOnly: true,
  });
  readTextObject(report, confirm, 'deny', here, { max: LIMITS.confirmButton, plainOnly: true });
  readEnum(report, confirm, 'style', here, ['primary', 'danger']);
}

export interface OptionRule {
  /** Checkboxes and radio buttons take mrkdwn option text; menus take plain_text only. */
  plainOnly: boolean;
  /** Only overflow menus' options may carry a `url`. */
  allowUrl: boolean;
}

/** An option's identity, to match `initial_option(s)` against the options offered. */
export interface OptionKey {
  value: string | undefined;
  text: string | undefined;
}

export function checkOption(
  report: Report,
  value: unknown,
  pointer: string,
  rule: OptionRule,
): OptionKey | undefined {
  if (!isRecord(value)) {
    report.add('must provide an object', pointer);
    return undefined;
  }
  checkKnownKeys(
    report,
    value,
    pointer,
    rule.allowUrl ? ['text', 'value', 'description', 'url'] : ['text', 'value', 'description'],
  );
  const text = readTextObject(report, value, 'text', pointer, {
    max: LIMITS.optionText,
    plainOnly: rule.plainOnly,
    required: true,
  });
  const optionValue = readString(report, value, 'value', pointer, {
    required: true,
    max: LIMITS.optionValue,
  });
  readTextObject(report, value, 'description', pointer, {
    max: LIMITS.optionDescription,
    plainOnly: true,
  });
  if (rule.allowUrl) readString(report, value, 'url', pointer, { max: LIMITS.url });
  return { value: optionValue, text };
}

export function readOptions(
  report: Report,
  obj: JsonRecord,
  key: string,
  pointer: string,
  rule: OptionRule & { required?: boolean; min?: number; max: number },
): OptionKey[] | undefined {
  const list = readArray(report, obj, key, pointer, rule);
  if (list === undefined) return undefined;
  const keys: OptionKey[] = [];
  const values = new Set<string>();
  list.forEach((item, index) => {
    const here = at(at(pointer, key), index);
    const option = checkOption(report, item, here, rule);
    if (option === undefined) return;
    if (option.value !== undefined) {
      if (values.has(option.value))
        report.add('must be unique among the options', at(here, 'value'));
      values.add(option.value);
    }
    keys.push(option);
  });
  return keys;
}

export function readOptionGroups(
  report: Report,
  obj: JsonRecord,
  pointer: string,
): OptionKey[] | undefined {
  const groups = readArray(report, obj, 'option_groups', pointer, {
    min: 1,
    max: LIMITS.optionGroups,
  });
  if (groups === undefined) return undefined;
  const keys: OptionKey[] = [];
  groups.forEach((group, index) => {
    const here = at(at(pointer, 'option_groups'), index);
    if (!isRecord(group)) {
      report.add('must provide an object', here);
      return;
    }
    checkKnownKeys(report, group, here, ['label', 'options']);
    readTextObject(report, group, 'label', here, {
      max: LIMITS.optionGroupLabel,
      plainOnly: true,
      required: true,
    });
    const options = readOptions(report, group, 'options', here, {
      plainOnly: true,
      allowUrl: false,
      required: true,
      min: 1,
      max: LIMITS.selectOptions,
    });
    keys.push(...(options ?? []));
  });
  return keys;
}

/** Slack refuses an initial option that is not one of the options offered. */
export function checkInitialOptions(
  report: Report,
  obj: JsonRecord,
  key: 'initial_option' | 'initial_options',
  pointer: string,
  offered: OptionKey[] | undefined,
  rule: OptionRule,
): void {
  const raw = obj[key];
  if (raw === undefined) return;
  const here = at(pointer, key);
  const given: { option: OptionKey | undefined; pointer: string }[] = [];
  if (key === 'initial_option') {
    given.push({ option: checkOption(report, raw, here, rule), pointer: here });
  } else if (Array.isArray(raw)) {
    raw.forEach((item, index) => {
      given.push({
        option: checkOption(report, item, at(here, index), rule),
        pointer: at(here, index),
      });
    });
  } else {
    report.add('must provide an array', here);
  }
  if (offered === undefined) return;
  for (const { option, pointer: where } of given) {
    if (option === undefined) continue;
    const found = offered.some((o) => o.value === option.value && o.text === option.text);
    if (!found) report.add('must match one of the provided options', where);
  }
}
