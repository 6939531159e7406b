import { createHash } from 'node:crypto';
import { LIMITS } from '@adk-slack-approvals/block-kit';
import { type JsonValue, jsonValueSchema } from '../adk/gate.js';
import {
  type ContextBlock,
  type InputBlock,
  type KnownBlock,
  mrkdwn,
  type PlainTextOption,
  plain,
} from './block-kit.js';
import { escapeLine, fitEscaped } from './escape.js';
import { jsonTypeOf, shapeMismatch } from './json-shape.js';
import { INPUT_ACTION_ID, type StateValue, type ViewStateValues } from './view-state.js';

/**
 * The edit-and-approve form, generated from the payload template a tool sent, and read back.
 * One function decides the fields (`payloadForm`); rendering and parsing both follow it, so a
 * field's block id means the same thing on the way out and on the way back.
 *
 * - numbers → `number_input` (decimals allowed when the template's number is not whole)
 * - booleans → one checkbox
 * - strings → `plain_text_input` (multiline when long or holding line breaks)
 * - short lists (≤ 100 strings or numbers, each shown in ≤ 75 characters) → a multi-select with
 *   every item selected: unselecting leaves an item out, and the list keeps its item type
 * - anything else (objects, nulls, mixed or long lists, odd numbers) → JSON in a text box,
 *   checked against the template's shape
 * A top-level object gets one field per key; any other template is one field for the whole.
 * A value too long for any input (over 3,000 characters) is kept as it is and said so.
 */

export type FieldKind = 'number' | 'boolean' | 'string' | 'list' | 'json' | 'fixed';

export interface FormField {
  blockId: string;
  /** The template key this field edits; absent: the field is the whole payload. */
  key?: string;
  kind: FieldKind;
  /** The template's value here; absent only when there is no template at all (any JSON). */
  template?: JsonValue;
}

/** Block id of the field that stands for the whole payload. */
export const ROOT_BLOCK_ID = 'payload';
/** Slack's 100 blocks per modal, less the modal's own header blocks. */
export const MAX_FIELDS = 95;
const INPUT_MAX = LIMITS.plainTextInputLength;
/** Longer strings get a multiline box. */
const SINGLE_LINE_MAX = 150;
/** `number_input` takes plain decimal notation only (no exponent). */
const DECIMAL = /^-?\d+(\.\d+)?$/;

/**
 * A key's block id: its position and a hash of the key. Keys can be any string (long, odd
 * characters), so they are not put in the id itself; the template maps the id back.
 */
export function fieldBlockId(key: string, index: number): string {
  const hash = createHash('sha256').update(key).digest('base64url').slice(0, 10);
  return `field.${index}.${hash}`;
}

function isObject(value: JsonValue | undefined): value is { [key: string]: JsonValue } {
  return value !== undefined && jsonTypeOf(value) === 'object';
}

function optionLabel(item: string | number): string | undefined {
  const shown = String(item);
  if (shown.trim() === '') return undefined;
  const fitted = fitEscaped(shown, LIMITS.optionText);
  return fitted.cut ? undefined : fitted.text;
}

function isListable(value: JsonValue[]): value is string[] | number[] {
  if (value.length === 0 || value.length > LIMITS.selectOptions) return false;
  const allStrings = value.every((item) => typeof item === 'string');
  const allNumbers = value.every((item) => typeof item === 'number');
  if (!allStrings && !allNumbers) return false;
  return value.every(
    (item) =>
      (typeof item === 'string' || typeof item === 'number') && optionLabel(item) !== undefined,
  );
}

/** The JSON a field shows: pretty when it fits, else compact, else nothing (kept as is). */
function jsonText(value: JsonValue): string | undefined {
  const pretty = JSON.stringify(value, null, 2);
  if (pretty.length <= INPUT_MAX) return pretty;
  const flat = JSON.stringify(value);
  return flat.length <= INPUT_MAX ? flat : undefined;
}

function kindOf(value: JsonValue): FieldKind {
  if (typeof value === 'number') {
    if (Number.isFinite(value) && DECIMAL.test(String(value))) return 'number';
  } else if (typeof value === 'boolean') {
    return 'boolean';
  } else if (typeof value === 'string') {
    return value.length <= INPUT_MAX ? 'string' : 'fixed';
  } else if (Array.isArray(value) && isListable(value)) {
    return 'list';
  }
  return jsonText(value) === undefined ? 'fixed' : 'json';
}

export function payloadForm(template: JsonValue | undefined): FormField[] {
  if (template === undefined) return [{ blockId: ROOT_BLOCK_ID, kind: 'json' }];
  if (isObject(template)) {
    const keys = Object.keys(template);
    if (keys.length > 0 && keys.length <= MAX_FIELDS) {
      return keys.map((key, index) => {
        const value = template[key] ?? null;
        return { blockId: fieldBlockId(key, index), key, kind: kindOf(value), template: value };
      });
    }
  }
  return [{ blockId: ROOT_BLOCK_ID, kind: kindOf(template), template }];
}

function label(field: FormField): string {
  if (field.key === undefined) return 'Payload';
  return field.key.trim() === '' ? `Key ${JSON.stringify(field.key)}` : escapeLine(field.key, 150);
}

function shapeHint(template: JsonValue | undefined): string {
  if (template === undefined) return 'Any JSON value.';
  if (isObject(template)) {
    const keys = Object.keys(template);
    if (keys.length === 0) return 'JSON: an empty object.';
    const names = escapeLine(keys.join(', '), 300);
    return `JSON: an object with the keys ${names}, each value of the same type as now.`;
  }
  if (Array.isArray(template)) return 'JSON: a list whose items have the same types as now.';
  if (template === null) return 'JSON: any value.';
  return `JSON: ${jsonTypeOf(template) === 'string' ? 'a string in quotes' : `a ${jsonTypeOf(template)}`}.`;
}

function input(
  field: FormField,
  element: InputBlock['element'],
  extra: Partial<InputBlock> = {},
): InputBlock {
  return { type: 'input', block_id: field.blockId, label: plain(label(field)), element, ...extra };
}

function listOptions(items: readonly (string | number)[]): PlainTextOption[] {
  return items.map((item, index) => ({
    text: plain(optionLabel(item) ?? String(index)),
    value: String(index),
  }));
}

function fieldBlock(field: FormField): KnownBlock {
  const value = field.template;
  const action_id = INPUT_ACTION_ID;
  switch (field.kind) {
    case 'number': {
      const whole = typeof value === 'number' && Number.isInteger(value);
      return input(
        field,
        {
          type: 'number_input',
          action_id,
          is_decimal_allowed: !whole,
          ...(typeof value === 'number' ? { initial_value: String(value) } : {}),
        },
        { hint: plain(whole ? 'A whole number.' : 'A number.') },
      );
    }
    case 'boolean':
      return input(
        field,
        {
          type: 'checkboxes',
          action_id,
          options: [{ text: plain('Yes'), value: 'true' }],
          ...(value === true ? { initial_options: [{ text: plain('Yes'), value: 'true' }] } : {}),
        },
        { optional: true },
      );
    case 'string': {
      const text = typeof value === 'string' ? value : '';
      return input(
        field,
        {
          type: 'plain_text_input',
          action_id,
          multiline: text.length > SINGLE_LINE_MAX || /[\r\n]/.test(text),
          max_length: INPUT_MAX,
          ...(text === '' ? {} : { initial_value: text }),
        },
        { optional: true },
      );
    }
    case 'list': {
      const items = Array.isArray(value) && isListable(value) ? value : [];
      const options = listOptions(items);
      return input(
        field,
        {
          type: 'multi_static_select',
          action_id,
          placeholder: plain('Choose items'),
          options,
          initial_options: options,
        },
        { optional: true, hint: plain('Unselect an item to leave it out.') },
      );
    }
    case 'json': {
      const text = value === undefined ? undefined : jsonText(value);
      return input(
        field,
        {
          type: 'plain_text_input',
          action_id,
          multiline: true,
          max_length: INPUT_MAX,
          ...(text === undefined ? {} : { initial_value: text }),
        },
        { hint: plain(shapeHint(value)) },
      );
    }
    case 'fixed': {
      const note: ContextBlock = {
        type: 'context',
        block_id: field.blockId,
        elements: [mrkdwn(`*${label(field)}*: too long to edit here, so it is kept as it is.`)],
      };
      return note;
    }
  }
}

export function formBlocks(form: readonly FormField[]): KnownBlock[] {
  return form.map(fieldBlock);
}

export type FormResult =
  | { ok: true; payload: JsonValue }
  | { ok: false; errors: Record<string, string> };

type FieldResult = { ok: true; value: JsonValue } | { ok: false; error: string };

function readNumber(field: FormField, state: StateValue | undefined): FieldResult {
  const text = state?.value?.trim() ?? '';
  const whole = typeof field.template === 'number' && Number.isInteger(field.template);
  const ask = whole ? 'Enter a whole number, like 12.' : 'Enter a number, like 12 or 0.5.';
  if (text === '' || !DECIMAL.test(text)) return { ok: false, error: ask };
  const value = Number(text);
  if (!Number.isFinite(value) || (whole && !Number.isInteger(value)))
    return { ok: false, error: ask };
  return { ok: true, value };
}

function readList(field: FormField, state: StateValue | undefined): FieldResult {
  const items = Array.isArray(field.template) ? field.template : [];
  const chosen = new Set<number>();
  for (const option of state?.selected_options ?? []) {
    const index = /^\d+$/.test(option.value) ? Number(option.value) : -1;
    if (index < 0 || index >= items.length) {
      return { ok: false, error: 'Choose from the listed items only.' };
    }
    chosen.add(index);
  }
  const value = [...chosen].sort((a, b) => a - b).flatMap((index) => items.slice(index, index + 1));
  return { ok: true, value };
}

function readJson(field: FormField, state: StateValue | undefined): FieldResult {
  const text = state?.value?.trim() ?? '';
  if (text === '') return { ok: false, error: 'Enter a JSON value.' };
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return { ok: false, error: 'This is not valid JSON: check the quotes, commas and brackets.' };
  }
  const parsed = jsonValueSchema.safeParse(raw);
  if (!parsed.success) return { ok: false, error: 'This is not valid JSON.' };
  if (field.template !== undefined) {
    const mismatch = shapeMismatch(field.template, parsed.data);
    if (mismatch !== undefined) return { ok: false, error: `${mismatch}.` };
  }
  return { ok: true, value: parsed.data };
}

function readField(field: FormField, values: ViewStateValues): FieldResult {
  const state = values[field.blockId]?.[INPUT_ACTION_ID];
  switch (field.kind) {
    case 'number':
      return readNumber(field, state);
    case 'boolean':
      return {
        ok: true,
        value: (state?.selected_options ?? []).some(({ value }) => value === 'true'),
      };
    case 'string':
      return { ok: true, value: state?.value ?? '' };
    case 'list':
      return readList(field, state);
    case 'json':
      return readJson(field, state);
    case 'fixed':
      return { ok: true, value: field.template ?? null };
  }
}

/** Reads the submitted form back into a payload of the template's shape, or errors by block id. */
export function parseForm(form: readonly FormField[], values: ViewStateValues): FormResult {
  const errors: Record<string, string> = {};
  // Entries, then `Object.fromEntries`: a key like `__proto__` stays an ordinary own key.
  const entries: [string, JsonValue][] = [];
  let root: JsonValue = null;
  for (const field of form) {
    const result = readField(field, values);
    if (!result.ok) {
      errors[field.blockId] = escapeLine(result.error, 300);
    } else if (field.key === undefined) {
      root = result.value;
    } else {
      entries.push([field.key, result.value]);
    }
  }
  if (Object.keys(errors).length > 0) return { ok: false, errors };
  const isObjectForm = form.some((field) => field.key !== undefined);
  return { ok: true, payload: isObjectForm ? Object.fromEntries(entries) : root };
}
