import { LIMITS } from '@adk-slack-approvals/block-kit';
import { z } from 'zod';
import { type JsonValue, jsonValueSchema, parseJsonText } from '../json.js';
import { type InputBlock, type KnownBlock, type PlainTextOption, plain } from './block-kit.js';
import { escapeLine } from './escape.js';
import { optionLabel } from './list-choices.js';
import { fieldBlockId, MAX_FIELDS, ROOT_BLOCK_ID } from './payload-form.js';
import { INPUT_ACTION_ID, type StateValue, type ViewStateValues } from './view-state.js';

/**
 * The answer form of an input request, generated from its JSON Schema `response_schema`, and
 * read back. `inputForm` decides the fields; rendering and parsing both follow it.
 *
 * - an object schema with properties → one field per property (`required` ones required);
 *   any other schema → one field for the whole answer; no schema → free text
 * - `string` → text box (`minLength`, `maxLength`, `pattern`); `format: date-time` → date and
 *   time picker, `format: date` → date picker
 * - `number` / `integer` → number box (`minimum`, `maximum`, exclusive bounds)
 * - `boolean` → one checkbox
 * - `enum` of strings or numbers → a select; `array` of such an `enum` → a multi-select
 *   (`minItems`, `maxItems`)
 * - anything else → JSON in a text box
 * Every field is checked on its own (with errors a person can act on), then the whole answer
 * against the schema with the same JSON Schema reader ADK JS uses (`z.fromJSONSchema`), so an
 * answer this form accepts is one the agent server accepts.
 */

export type InputFieldKind =
  | 'string'
  | 'number'
  | 'integer'
  | 'boolean'
  | 'enum'
  | 'enum_list'
  | 'date_time'
  | 'date'
  | 'json';

/** The JSON Schema keywords the form understands; others are left to the final check. */
const propertySchema = z.looseObject({
  type: z.union([z.string(), z.array(z.string())]).optional(),
  title: z.string().optional(),
  description: z.string().optional(),
  format: z.string().optional(),
  enum: z.array(jsonValueSchema).optional(),
  default: jsonValueSchema.optional(),
  minimum: z.number().optional(),
  maximum: z.number().optional(),
  exclusiveMinimum: z.number().optional(),
  exclusiveMaximum: z.number().optional(),
  minLength: z.number().int().min(0).optional(),
  maxLength: z.number().int().min(0).optional(),
  pattern: z.string().optional(),
  minItems: z.number().int().min(0).optional(),
  maxItems: z.number().int().min(0).optional(),
  items: z.looseObject({ enum: z.array(jsonValueSchema).optional() }).optional(),
});
type PropertySchema = z.infer<typeof propertySchema>;

const objectSchema = z.looseObject({
  type: z.literal('object').optional(),
  properties: z.record(z.string(), jsonValueSchema),
  required: z.array(z.string()).optional(),
});

export interface InputField {
  blockId: string;
  /** The property this field answers; absent: the field is the whole answer. */
  key?: string;
  kind: InputFieldKind;
  required: boolean;
  schema: PropertySchema;
  /** The choices of an `enum` or `enum_list` field, by index. */
  options: (string | number)[];
}

const INPUT_MAX = LIMITS.plainTextInputLength;
const DECIMAL = /^-?\d+(\.\d+)?$/;

export function inputForm(responseSchema: JsonValue | undefined): InputField[] {
  if (responseSchema === undefined) {
    return [{ blockId: ROOT_BLOCK_ID, kind: 'string', required: true, schema: {}, options: [] }];
  }
  const object = objectSchema.safeParse(responseSchema);
  if (object.success) {
    const keys = Object.keys(object.data.properties);
    if (keys.length > 0 && keys.length <= MAX_FIELDS) {
      const required = new Set(object.data.required ?? []);
      return keys.map((key, index) =>
        field(fieldBlockId(key, index), object.data.properties[key], required.has(key), key),
      );
    }
  }
  return [field(ROOT_BLOCK_ID, responseSchema, true)];
}

function field(
  blockId: string,
  raw: JsonValue | undefined,
  required: boolean,
  key?: string,
): InputField {
  const parsed = propertySchema.safeParse(raw ?? {});
  const schema = parsed.success ? parsed.data : {};
  const base = { blockId, required, schema, ...(key === undefined ? {} : { key }) };
  if (!parsed.success) return { ...base, kind: 'json', options: [] };
  const choices = selectable(schema.enum);
  if (choices !== undefined) return { ...base, kind: 'enum', options: choices };
  const type = singleType(schema.type);
  if (type === 'array') {
    const items = selectable(schema.items?.enum);
    if (items !== undefined) return { ...base, kind: 'enum_list', options: items };
  }
  const kind = kindOfType(type, schema.format);
  return { ...base, kind, options: [] };
}

/** `["string", "null"]` is a string that may be left out. */
function singleType(type: PropertySchema['type']): string | undefined {
  if (typeof type === 'string') return type;
  const types = (type ?? []).filter((name) => name !== 'null');
  return types.length === 1 ? types[0] : undefined;
}

function kindOfType(type: string | undefined, format: string | undefined): InputFieldKind {
  switch (type) {
    case 'string':
      if (format === 'date-time') return 'date_time';
      if (format === 'date') return 'date';
      return 'string';
    case 'number':
      return 'number';
    case 'integer':
      return 'integer';
    case 'boolean':
      return 'boolean';
    default:
      return 'json';
  }
}

/** Choices a select can show: strings or numbers, within Slack's option limits. */
function selectable(values: JsonValue[] | undefined): (string | number)[] | undefined {
  if (values === undefined || values.length === 0 || values.length > LIMITS.selectOptions) {
    return undefined;
  }
  const choices = values.flatMap((value) =>
    typeof value === 'string' || typeof value === 'number' ? [value] : [],
  );
  if (choices.length !== values.length) return undefined;
  return choices.every((choice) => optionLabel(choice) !== undefined) ? choices : undefined;
}

function options(field: InputField): PlainTextOption[] {
  return field.options.map((choice, index) => ({
    text: plain(optionLabel(choice) ?? String(index)),
    value: String(index),
  }));
}

// --- rendering -------------------------------------------------------------------------------

function label(field: InputField): string {
  const name = field.schema.title ?? field.key;
  if (name === undefined) return 'Answer';
  return name.trim() === '' ? `Key ${JSON.stringify(name)}` : escapeLine(name, 150);
}

/** What the schema asks, in words: its description, then the limits the field cannot show. */
function hint(field: InputField): string | undefined {
  const { schema } = field;
  const limits: string[] = [];
  if (schema.pattern !== undefined) limits.push(`matching ${schema.pattern}`);
  if (field.kind === 'json') limits.push('JSON');
  if (schema.minItems !== undefined) limits.push(`at least ${schema.minItems}`);
  if (schema.maxItems !== undefined) limits.push(`at most ${schema.maxItems}`);
  const parts = [schema.description, limits.length > 0 ? limits.join(', ') : undefined];
  const text = parts.filter((part) => part !== undefined && part !== '').join(' · ');
  return text === '' ? undefined : escapeLine(text, 1_900);
}

function block(field: InputField, element: InputBlock['element']): InputBlock {
  const help = hint(field);
  return {
    type: 'input',
    block_id: field.blockId,
    label: plain(label(field)),
    element,
    // A checkbox left empty is an answer (false), so Slack must not demand it.
    optional: !field.required || field.kind === 'boolean',
    ...(help === undefined ? {} : { hint: plain(help) }),
  };
}

function fieldBlock(field: InputField): KnownBlock {
  const action_id = INPUT_ACTION_ID;
  const { schema } = field;
  const preset = schema.default;
  switch (field.kind) {
    case 'string': {
      const min = schema.minLength;
      const max = Math.min(schema.maxLength ?? INPUT_MAX, INPUT_MAX);
      return block(field, {
        type: 'plain_text_input',
        action_id,
        multiline: field.key === undefined,
        max_length: max,
        ...(min !== undefined && min <= max ? { min_length: min } : {}),
        ...(typeof preset === 'string' && preset.length <= max ? { initial_value: preset } : {}),
      });
    }
    case 'number':
    case 'integer': {
      const min = schema.minimum ?? schema.exclusiveMinimum;
      const max = schema.maximum ?? schema.exclusiveMaximum;
      return block(field, {
        type: 'number_input',
        action_id,
        is_decimal_allowed: field.kind === 'number',
        ...(decimal(min) ? { min_value: String(min) } : {}),
        ...(decimal(max) ? { max_value: String(max) } : {}),
        ...(typeof preset === 'number' && decimal(preset) ? { initial_value: String(preset) } : {}),
      });
    }
    case 'boolean': {
      const yes = { text: plain('Yes'), value: 'true' };
      return block(field, {
        type: 'checkboxes',
        action_id,
        options: [yes],
        ...(preset === true ? { initial_options: [yes] } : {}),
      });
    }
    case 'enum':
      return block(field, {
        type: 'static_select',
        action_id,
        placeholder: plain('Choose one'),
        options: options(field),
      });
    case 'enum_list':
      return block(field, {
        type: 'multi_static_select',
        action_id,
        placeholder: plain('Choose'),
        options: options(field),
      });
    case 'date_time':
      return block(field, { type: 'datetimepicker', action_id });
    case 'date':
      return block(field, { type: 'datepicker', action_id });
    case 'json':
      return block(field, {
        type: 'plain_text_input',
        action_id,
        multiline: true,
        max_length: INPUT_MAX,
      });
  }
}

function decimal(value: number | undefined): value is number {
  return value !== undefined && Number.isFinite(value) && DECIMAL.test(String(value));
}

export function inputFormBlocks(form: readonly InputField[]): KnownBlock[] {
  return form.map(fieldBlock);
}

// --- reading back ----------------------------------------------------------------------------

export type InputFormResult =
  | { ok: true; answer: JsonValue }
  | { ok: false; errors: Record<string, string> };

/** `absent`: an optional field left empty, which the answer leaves out. */
type FieldResult =
  | { ok: true; value: JsonValue }
  | { ok: true; absent: true }
  | { ok: false; error: string };

const absent: FieldResult = { ok: true, absent: true };

function readText(field: InputField, state: StateValue | undefined): FieldResult {
  const text = state?.value ?? '';
  if (text === '') return field.required ? { ok: false, error: 'Enter an answer.' } : absent;
  const { minLength, maxLength, pattern } = field.schema;
  if (minLength !== undefined && text.length < minLength) {
    return { ok: false, error: `Enter at least ${minLength} characters.` };
  }
  if (maxLength !== undefined && text.length > maxLength) {
    return { ok: false, error: `Enter at most ${maxLength} characters.` };
  }
  if (pattern !== undefined && !matches(pattern, text)) {
    return { ok: false, error: `The answer must match the pattern ${pattern}.` };
  }
  return { ok: true, value: text };
}

/** JSON Schema patterns are unanchored ECMAScript expressions; one that does not compile fails. */
function matches(pattern: string, text: string): boolean {
  try {
    return new RegExp(pattern, 'u').test(text);
  } catch {
    return false;
  }
}

function readNumber(field: InputField, state: StateValue | undefined): FieldResult {
  const text = state?.value?.trim() ?? '';
  if (text === '') return field.required ? { ok: false, error: 'Enter a number.' } : absent;
  const whole = field.kind === 'integer';
  const ask = whole ? 'Enter a whole number, like 12.' : 'Enter a number, like 12 or 0.5.';
  const value = Number(text);
  if (!DECIMAL.test(text) || !Number.isFinite(value) || (whole && !Number.isInteger(value))) {
    return { ok: false, error: ask };
  }
  const { minimum, maximum, exclusiveMinimum, exclusiveMaximum } = field.schema;
  if (minimum !== undefined && value < minimum) {
    return { ok: false, error: `Enter ${minimum} or more.` };
  }
  if (maximum !== undefined && value > maximum) {
    return { ok: false, error: `Enter ${maximum} or less.` };
  }
  if (exclusiveMinimum !== undefined && value <= exclusiveMinimum) {
    return { ok: false, error: `Enter more than ${exclusiveMinimum}.` };
  }
  if (exclusiveMaximum !== undefined && value >= exclusiveMaximum) {
    return { ok: false, error: `Enter less than ${exclusiveMaximum}.` };
  }
  return { ok: true, value };
}

function chosenIndexes(
  field: InputField,
  values: readonly { value: string }[],
): number[] | undefined {
  const chosen: number[] = [];
  for (const { value } of values) {
    const index = /^\d+$/.test(value) ? Number(value) : -1;
    if (index < 0 || index >= field.options.length) return undefined;
    if (!chosen.includes(index)) chosen.push(index);
  }
  return chosen.sort((a, b) => a - b);
}

function readChoice(field: InputField, state: StateValue | undefined): FieldResult {
  const selected = state?.selected_option;
  if (selected === undefined || selected === null) {
    return field.required ? { ok: false, error: 'Choose one.' } : absent;
  }
  const [index] = chosenIndexes(field, [selected]) ?? [];
  const choice = index === undefined ? undefined : field.options[index];
  if (choice === undefined) return { ok: false, error: 'Choose one of the listed answers.' };
  return { ok: true, value: choice };
}

function readChoices(field: InputField, state: StateValue | undefined): FieldResult {
  const indexes = chosenIndexes(field, state?.selected_options ?? []);
  if (indexes === undefined) return { ok: false, error: 'Choose from the listed answers only.' };
  if (indexes.length === 0 && !field.required) return absent;
  const { minItems, maxItems } = field.schema;
  if (minItems !== undefined && indexes.length < minItems) {
    return { ok: false, error: `Choose at least ${minItems}.` };
  }
  if (maxItems !== undefined && indexes.length > maxItems) {
    return { ok: false, error: `Choose at most ${maxItems}.` };
  }
  return { ok: true, value: indexes.flatMap((index) => field.options.slice(index, index + 1)) };
}

function readDateTime(field: InputField, state: StateValue | undefined): FieldResult {
  const seconds = state?.selected_date_time;
  if (seconds === undefined || seconds === null) {
    return field.required ? { ok: false, error: 'Choose a date and time.' } : absent;
  }
  // Slack sends the chosen instant as Unix seconds; JSON Schema's date-time is RFC 3339.
  return { ok: true, value: new Date(seconds * 1000).toISOString().replace('.000Z', 'Z') };
}

function readDate(field: InputField, state: StateValue | undefined): FieldResult {
  const date = state?.selected_date;
  if (date === undefined || date === null || date === '') {
    return field.required ? { ok: false, error: 'Choose a date.' } : absent;
  }
  return { ok: true, value: date };
}

function readJson(field: InputField, state: StateValue | undefined): FieldResult {
  const text = state?.value?.trim() ?? '';
  if (text === '') return field.required ? { ok: false, error: 'Enter a JSON value.' } : absent;
  const raw = parseJsonText(text);
  if (!raw.ok) {
    return { ok: false, error: 'This is not valid JSON: check the quotes, commas and brackets.' };
  }
  const parsed = jsonValueSchema.safeParse(raw.value);
  return parsed.success ? { ok: true, value: parsed.data } : { ok: false, error: 'Not JSON.' };
}

function readField(field: InputField, values: ViewStateValues): FieldResult {
  const state = values[field.blockId]?.[INPUT_ACTION_ID];
  switch (field.kind) {
    case 'string':
      return readText(field, state);
    case 'number':
    case 'integer':
      return readNumber(field, state);
    case 'boolean':
      return {
        ok: true,
        value: (state?.selected_options ?? []).some(({ value }) => value === 'true'),
      };
    case 'enum':
      return readChoice(field, state);
    case 'enum_list':
      return readChoices(field, state);
    case 'date_time':
      return readDateTime(field, state);
    case 'date':
      return readDate(field, state);
    case 'json':
      return readJson(field, state);
  }
}

/**
 * Reads a submitted answer form into the answer, or errors by block id (shown on the fields by
 * `response_action: errors`). The answer is checked against the whole schema last.
 */
export function parseInputForm(
  responseSchema: JsonValue | undefined,
  values: ViewStateValues,
): InputFormResult {
  const form = inputForm(responseSchema);
  const errors: Record<string, string> = {};
  // Entries, then `Object.fromEntries`: a key like `__proto__` stays an ordinary own key.
  const entries: [string, JsonValue][] = [];
  let root: JsonValue = null;
  for (const field of form) {
    const result = readField(field, values);
    if (!result.ok) errors[field.blockId] = escapeLine(result.error, 300);
    else if ('absent' in result) continue;
    else if (field.key === undefined) root = result.value;
    else entries.push([field.key, result.value]);
  }
  if (Object.keys(errors).length > 0) return { ok: false, errors };
  const isObjectForm = form.some((field) => field.key !== undefined);
  const answer = isObjectForm ? Object.fromEntries(entries) : root;
  const mismatch = schemaMismatch(responseSchema, answer, form);
  return mismatch === undefined ? { ok: true, answer } : { ok: false, errors: mismatch };
}

/** The whole answer against the schema, as ADK JS will check it; issues land on their field. */
function schemaMismatch(
  responseSchema: JsonValue | undefined,
  answer: JsonValue,
  form: readonly InputField[],
): Record<string, string> | undefined {
  const validator = compile(responseSchema);
  if (validator === undefined) return undefined;
  const result = validator.safeParse(answer);
  if (result.success) return undefined;
  const errors: Record<string, string> = {};
  for (const issue of result.error.issues) {
    const [first] = issue.path;
    const field = form.find((entry) => entry.key !== undefined && entry.key === first) ?? form[0];
    if (field === undefined || errors[field.blockId] !== undefined) continue;
    errors[field.blockId] = escapeLine(issue.message, 300);
  }
  return errors;
}

/** ADK JS reads the schema with `z.fromJSONSchema` and skips the check when that fails. */
function compile(responseSchema: JsonValue | undefined): z.ZodType | undefined {
  if (typeof responseSchema !== 'object' || responseSchema === null) return undefined;
  if (Array.isArray(responseSchema)) return undefined;
  try {
    return z.fromJSONSchema(responseSchema);
  } catch {
    return undefined;
  }
}
