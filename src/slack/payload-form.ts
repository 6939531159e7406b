import { createHash } from 'node:crypto';
import { LIMITS } from '@adk-slack-approvals/block-kit';
import {
  isDateTime,
  objectProblems,
  type PayloadSchema,
  payloadProblem,
} from '../approvals/policy/payload-schema.js';
import { type JsonValue, jsonValueSchema, parseJsonText } from '../json.js';
import {
  type ContextBlock,
  type InputBlock,
  type KnownBlock,
  mrkdwn,
  type PlainTextOption,
  plain,
} from './block-kit.js';
import { escapeLine } from './escape.js';
import { jsonTypeOf, shapeMismatch } from './json-shape.js';
import { listChoices, optionLabel } from './list-choices.js';
import { INPUT_ACTION_ID, type StateValue, type ViewStateValues } from './view-state.js';

/**
 * The edit-and-approve form, generated from the payload template a tool sent, and read back.
 * One function decides the fields (`payloadForm`); rendering and parsing both follow it, so a
 * field's block id means the same thing on the way out and on the way back.
 *
 * - numbers → `number_input` (decimals allowed when the template's number is not whole)
 * - booleans → one checkbox
 * - ISO 8601 date-times (or `format: date-time` in the rule's schema) → `datetimepicker`
 * - strings with an `enum` in the rule's schema → a select
 * - strings → `plain_text_input` (multiline when long or holding line breaks)
 * - short lists (≤ 100 strings or numbers, each shown in ≤ 75 characters) → a multi-select with
 *   every item selected, then the schema's other allowed items (`items.enum`) unselected:
 *   unselecting leaves an item out, selecting adds one, and the list keeps its item type
 * - anything else (objects, nulls, mixed or long lists, odd numbers) → JSON in a text box,
 *   checked against the template's shape
 * A top-level object gets one field per key; any other template is one field for the whole.
 * A value too long for any input (over 3,000 characters) is kept as it is and said so.
 *
 * Labels are words (`durationMinutes` → "Duration (minutes)", or the schema's `title`). A field
 * whose template has a value is required: the tool proposed one, so leaving it empty is a mistake,
 * not a choice. The policy rule's `payloadSchema` (min/max, enum, pattern, required…) is checked
 * on submission, and its problems are shown on their fields before anything is decided.
 */

export type FieldKind =
  | 'number'
  | 'boolean'
  | 'string'
  | 'datetime'
  | 'choice'
  | 'list'
  | 'json'
  | 'fixed';

export interface FormField {
  blockId: string;
  /** The template key this field edits; absent: the field is the whole payload. */
  key?: string;
  kind: FieldKind;
  /** The template's value here; absent only when there is no template at all (any JSON). */
  template?: JsonValue;
  /** What the policy rule's schema says about this field. */
  schema?: PayloadSchema;
  /** Must be filled in: the template has a value here, or the schema requires it. */
  required: boolean;
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

function kindOf(value: JsonValue, schema: PayloadSchema | undefined): FieldKind {
  if (typeof value === 'number') {
    if (Number.isFinite(value) && DECIMAL.test(String(value))) return 'number';
  } else if (typeof value === 'boolean') {
    return 'boolean';
  } else if (typeof value === 'string') {
    if (choicesOf(schema, value) !== undefined) return 'choice';
    if (schema?.format === 'date-time' || (schema?.format === undefined && isDateTime(value))) {
      return value === '' || isDateTime(value) ? 'datetime' : 'string';
    }
    return value.length <= INPUT_MAX ? 'string' : 'fixed';
  } else if (Array.isArray(value) && isListable(value)) {
    return 'list';
  }
  return jsonText(value) === undefined ? 'fixed' : 'json';
}

/** A string field's options: the schema's `enum`, when every one (and the value) can be shown. */
function choicesOf(schema: PayloadSchema | undefined, value: string): string[] | undefined {
  const options = schema?.enum;
  if (options === undefined || options.length > LIMITS.selectOptions) return undefined;
  const strings = options.filter((option): option is string => typeof option === 'string');
  if (strings.length !== options.length || strings.some((o) => optionLabel(o) === undefined)) {
    return undefined;
  }
  return value === '' || strings.includes(value) ? strings : undefined;
}

function isPresent(value: JsonValue | undefined): boolean {
  return value !== undefined && value !== null && value !== '' && !isEmptyList(value);
}

function isEmptyList(value: JsonValue): boolean {
  return Array.isArray(value) && value.length === 0;
}

export function payloadForm(template: JsonValue | undefined, schema?: PayloadSchema): FormField[] {
  if (template === undefined) {
    return [{ blockId: ROOT_BLOCK_ID, kind: 'json', required: true, ...withSchema(schema) }];
  }
  if (isObject(template)) {
    const keys = Object.keys(template);
    if (keys.length > 0 && keys.length <= MAX_FIELDS) {
      return keys.map((key, index) => {
        const value = template[key] ?? null;
        const own = Object.hasOwn(schema?.properties ?? {}, key)
          ? schema?.properties?.[key]
          : undefined;
        const required = isPresent(value) || (schema?.required ?? []).includes(key);
        return {
          blockId: fieldBlockId(key, index),
          key,
          kind: kindOf(value, own),
          template: value,
          required,
          ...withSchema(own),
        };
      });
    }
  }
  return [
    {
      blockId: ROOT_BLOCK_ID,
      kind: kindOf(template, schema),
      template,
      required: isPresent(template),
      ...withSchema(schema),
    },
  ];
}

function withSchema(schema: PayloadSchema | undefined): { schema?: PayloadSchema } {
  return schema === undefined ? {} : { schema };
}

/** Words for the common units at the end of a key: `durationMinutes` → "Duration (minutes)". */
const UNITS = new Set([
  'ms',
  'seconds',
  'secs',
  'minutes',
  'mins',
  'hours',
  'days',
  'weeks',
  'months',
  'years',
  'percent',
  'pct',
  'bytes',
  'kb',
  'mb',
  'gb',
  'usd',
  'eur',
  'gbp',
  'cents',
]);

/** `durationMinutes`, `duration_minutes` and `duration-minutes` → "Duration (minutes)". */
export function humanLabel(key: string): string {
  const words = key
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .split(/[\s_.-]+/)
    .filter((word) => word !== '')
    .map((word) => (/^[A-Z0-9]+$/.test(word) && word.length > 1 ? word : word.toLowerCase()));
  if (words.length === 0) return key;
  const last = words.at(-1) ?? '';
  const unit = words.length > 1 && UNITS.has(last.toLowerCase()) ? last.toLowerCase() : undefined;
  const main = unit === undefined ? words : words.slice(0, -1);
  const text = main.join(' ');
  const sentence = text.charAt(0).toUpperCase() + text.slice(1);
  return unit === undefined ? sentence : `${sentence} (${unit})`;
}

function label(field: FormField): string {
  if (field.schema?.title !== undefined) return escapeLine(field.schema.title, 150);
  if (field.key === undefined) return 'Payload';
  return field.key.trim() === ''
    ? `Key ${JSON.stringify(field.key)}`
    : escapeLine(humanLabel(field.key), 150);
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
  const described = field.schema?.description;
  return {
    type: 'input',
    block_id: field.blockId,
    label: plain(label(field)),
    element,
    optional: !field.required,
    ...(described === undefined ? {} : { hint: plain(escapeLine(described, 300)) }),
    ...extra,
  };
}

/** Unix seconds, as `datetimepicker` takes and gives them. */
function unixSeconds(iso: string): number {
  return Math.floor(Date.parse(iso) / 1000);
}

function isoFromSeconds(seconds: number): string {
  return new Date(seconds * 1000).toISOString().replace('.000Z', 'Z');
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
      const whole = isWhole(field);
      const { minimum, maximum } = field.schema ?? {};
      return input(
        field,
        {
          type: 'number_input',
          action_id,
          is_decimal_allowed: !whole,
          ...(typeof value === 'number' ? { initial_value: String(value) } : {}),
          ...(minimum === undefined ? {} : { min_value: String(minimum) }),
          ...(maximum === undefined ? {} : { max_value: String(maximum) }),
        },
        { hint: plain(numberHint(whole, minimum, maximum)) },
      );
    }
    case 'datetime':
      return input(
        field,
        {
          type: 'datetimepicker',
          action_id,
          ...(typeof value === 'string' && isDateTime(value)
            ? { initial_date_time: unixSeconds(value) }
            : {}),
        },
        field.schema?.description === undefined ? { hint: plain('Shown in your time zone.') } : {},
      );
    case 'choice': {
      const options = (choicesOf(field.schema, typeof value === 'string' ? value : '') ?? []).map(
        (option) => ({ text: plain(optionLabel(option) ?? option), value: option }),
      );
      const chosen = options.find((option) => option.value === value);
      return input(field, {
        type: 'static_select',
        action_id,
        placeholder: plain('Choose one'),
        options,
        ...(chosen === undefined ? {} : { initial_option: chosen }),
      });
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
        // Unticked is an answer (no), never a missing one.
        { optional: true },
      );
    case 'string': {
      const text = typeof value === 'string' ? value : '';
      return input(field, {
        type: 'plain_text_input',
        action_id,
        multiline: text.length > SINGLE_LINE_MAX || /[\r\n]/.test(text),
        max_length: INPUT_MAX,
        ...(text === '' ? {} : { initial_value: text }),
      });
    }
    case 'list': {
      const items = Array.isArray(value) && isListable(value) ? value : [];
      const options = listOptions(listChoices(items, field.schema?.items?.enum));
      const more = options.length > items.length;
      return input(
        field,
        {
          type: 'multi_static_select',
          action_id,
          placeholder: plain('Choose items'),
          options,
          initial_options: options.slice(0, items.length),
        },
        {
          hint: plain(
            more
              ? 'Unselect an item to leave it out, or add one.'
              : 'Unselect an item to leave it out.',
          ),
        },
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

function isWhole(field: FormField): boolean {
  return (
    field.schema?.type === 'integer' ||
    (typeof field.template === 'number' && Number.isInteger(field.template))
  );
}

function numberHint(whole: boolean, minimum?: number, maximum?: number): string {
  const what = whole ? 'A whole number' : 'A number';
  if (minimum !== undefined && maximum !== undefined)
    return `${what} from ${minimum} to ${maximum}.`;
  if (minimum !== undefined) return `${what}, at least ${minimum}.`;
  if (maximum !== undefined) return `${what}, at most ${maximum}.`;
  return `${what}.`;
}

function readDateTime(field: FormField, state: StateValue | undefined): FieldResult {
  const seconds = state?.selected_date_time;
  if (seconds === undefined || seconds === null) {
    return field.required
      ? { ok: false, error: 'Choose a date and time.' }
      : { ok: true, value: '' };
  }
  return { ok: true, value: isoFromSeconds(seconds) };
}

function readChoice(field: FormField, state: StateValue | undefined): FieldResult {
  const chosen = state?.selected_option?.value;
  if (chosen === undefined) {
    return field.required ? { ok: false, error: 'Choose one.' } : { ok: true, value: '' };
  }
  const options = choicesOf(field.schema, '') ?? [];
  return options.includes(chosen)
    ? { ok: true, value: chosen }
    : { ok: false, error: 'Choose from the listed options only.' };
}

function readString(field: FormField, state: StateValue | undefined): FieldResult {
  const value = state?.value ?? '';
  if (field.required && value.trim() === '') return { ok: false, error: 'Required.' };
  return { ok: true, value };
}

function readNumber(field: FormField, state: StateValue | undefined): FieldResult {
  const text = state?.value?.trim() ?? '';
  const whole = isWhole(field);
  const ask = whole ? 'Enter a whole number, like 12.' : 'Enter a number, like 12 or 0.5.';
  if (text === '' || !DECIMAL.test(text)) return { ok: false, error: ask };
  const value = Number(text);
  if (!Number.isFinite(value) || (whole && !Number.isInteger(value)))
    return { ok: false, error: ask };
  return { ok: true, value };
}

function readList(field: FormField, state: StateValue | undefined): FieldResult {
  const proposed =
    Array.isArray(field.template) && isListable(field.template) ? field.template : [];
  const items = listChoices(proposed, field.schema?.items?.enum);
  const chosen = new Set<number>();
  for (const option of state?.selected_options ?? []) {
    const index = /^\d+$/.test(option.value) ? Number(option.value) : -1;
    if (index < 0 || index >= items.length) {
      return { ok: false, error: 'Choose from the listed items only.' };
    }
    chosen.add(index);
  }
  const value = [...chosen].sort((a, b) => a - b).flatMap((index) => items.slice(index, index + 1));
  if (field.required && value.length === 0) return { ok: false, error: 'Choose at least one.' };
  return { ok: true, value };
}

function readJson(field: FormField, state: StateValue | undefined): FieldResult {
  const text = state?.value?.trim() ?? '';
  if (text === '') return { ok: false, error: 'Enter a JSON value.' };
  const raw = parseJsonText(text);
  if (!raw.ok) {
    return { ok: false, error: 'This is not valid JSON: check the quotes, commas and brackets.' };
  }
  const parsed = jsonValueSchema.safeParse(raw.value);
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
      return readString(field, state);
    case 'datetime':
      return readDateTime(field, state);
    case 'choice':
      return readChoice(field, state);
    case 'list':
      return readList(field, state);
    case 'json':
      return readJson(field, state);
    case 'fixed':
      return { ok: true, value: field.template ?? null };
  }
}

/**
 * Reads the submitted form back into a payload of the template's shape, or errors by block id:
 * first each field's own reading, then the rule's schema over the whole payload.
 */
export function parseForm(
  form: readonly FormField[],
  values: ViewStateValues,
  schema?: PayloadSchema,
): FormResult {
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
  const payload = isObjectForm ? Object.fromEntries(entries) : root;
  const problems = schema === undefined ? {} : schemaErrors(form, schema, payload);
  if (Object.keys(problems).length > 0) return { ok: false, errors: problems };
  return { ok: true, payload };
}

/** The schema's problems on the fields they are about; a problem no field shows goes on the first. */
function schemaErrors(
  form: readonly FormField[],
  schema: PayloadSchema,
  payload: JsonValue,
): Record<string, string> {
  const errors: Record<string, string> = {};
  const first = form.find((field) => field.kind !== 'fixed') ?? form[0];
  const put = (blockId: string | undefined, message: string) => {
    if (blockId !== undefined && errors[blockId] === undefined) {
      errors[blockId] = escapeLine(message, 300);
    }
  };
  if (!isObject(payload) || !form.some((field) => field.key !== undefined)) {
    const problem = payloadProblem(schema, payload);
    if (problem) put(first?.blockId, problem);
    return errors;
  }
  const typeProblem =
    schema.type === undefined ? undefined : payloadProblem({ type: schema.type }, payload);
  if (typeProblem) put(first?.blockId, typeProblem);
  for (const [key, problem] of Object.entries(objectProblems(schema, payload))) {
    const field = form.find((candidate) => candidate.key === key);
    put(field?.blockId ?? first?.blockId, field ? problem : `${key}: ${problem}`);
  }
  return errors;
}
