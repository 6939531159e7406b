import { LIMITS } from '@adk-slack-approvals/block-kit';
import {
  isDate,
  isDateTime,
  objectProblems,
  type PayloadSchema,
  payloadProblem,
} from '../../../approvals/policy/payload-schema.js';
import type { JsonValue } from '../../../json.js';
import { listChoices, optionLabel, selectable } from './choices.js';
import {
  blankKeyLabel,
  type Choice,
  type Field,
  fieldsByKey,
  hintOf,
  indexedChoices,
  isPlainDecimal,
  type Widget,
} from './field.js';
import { jsonTypeOf } from './json-shape.js';
import { humanLabel } from './key-label.js';
import {
  type FormReading,
  readSubmission,
  type ValueCheck,
  type ValueProblem,
} from './read-form.js';

/**
 * The Edit & approve form's front end: its fields from the payload template a tool sent and the
 * policy rule's `payloadSchema`, and the rule's check of the whole payload.
 *
 * - numbers → a number input (decimals allowed when the template's number is not whole)
 * - booleans → one checkbox
 * - ISO 8601 date-times (or `format: date-time` in the rule's schema) → a date and time picker;
 *   `format: date` → a date picker
 * - strings with an `enum` in the rule's schema → a select
 * - strings → a text box (multiline when long or holding line breaks)
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
 * not a choice; an optional one left empty gives back the template's empty value. The rule's
 * `payloadSchema` (min/max, enum, pattern, required…) is checked on submission, and its problems
 * are shown on their fields before anything is decided.
 */

const INPUT_MAX = LIMITS.plainTextInputLength;
/** Longer strings get a multiline box. */
const SINGLE_LINE_MAX = 150;

export function payloadForm(template: JsonValue | undefined, schema?: PayloadSchema): Field[] {
  const object = isObject(template) ? template : undefined;
  return fieldsByKey(
    object && Object.keys(object),
    (key, blockId) => {
      const own = Object.hasOwn(schema?.properties ?? {}, key)
        ? schema?.properties?.[key]
        : undefined;
      const required = (schema?.required ?? []).includes(key);
      return field(blockId, object?.[key] ?? null, own, required, key);
    },
    (blockId) =>
      template === undefined ? anyJson(blockId, schema) : field(blockId, template, schema, false),
  );
}

/** The whole payload as JSON, when the tool sent no template to go by. */
function anyJson(blockId: string, schema: PayloadSchema | undefined): Field {
  const hint = hintOf(schema?.description, 'Any JSON value.');
  return {
    blockId,
    label: schema?.title ?? 'Payload',
    hint,
    required: true,
    widget: { kind: 'json' },
  };
}

function field(
  blockId: string,
  value: JsonValue,
  schema: PayloadSchema | undefined,
  schemaRequires: boolean,
  key?: string,
): Field {
  const widget = widgetOf(value, schema);
  const hint = hintOf(schema?.description, widget.kind === 'json' ? shapeHint(value) : undefined);
  return {
    blockId,
    key,
    label: labelOf(key, schema),
    hint,
    // JSON left empty is no value at all, so a JSON field is always filled in.
    required: widget.kind === 'json' || schemaRequires || isPresent(value),
    whenEmpty: value,
    widget,
  };
}

function labelOf(key: string | undefined, schema: PayloadSchema | undefined): string {
  if (schema?.title !== undefined) return schema.title;
  if (key === undefined) return 'Payload';
  return key.trim() === '' ? blankKeyLabel(key) : humanLabel(key);
}

function widgetOf(value: JsonValue, schema: PayloadSchema | undefined): Widget {
  if (typeof value === 'number' && isPlainDecimal(value)) {
    return {
      kind: 'number',
      whole: schema?.type === 'integer' || Number.isInteger(value),
      initial: value,
      minimum: schema?.minimum,
      maximum: schema?.maximum,
    };
  }
  if (typeof value === 'boolean') return { kind: 'boolean', initial: value };
  if (typeof value === 'string') return stringWidget(value, schema);
  if (Array.isArray(value) && isListable(value)) {
    const choices = indexedChoices(listChoices(value, schema?.items?.enum));
    return { kind: 'list', choices, initial: choices.slice(0, value.length) };
  }
  const text = jsonText(value);
  return text === undefined
    ? { kind: 'fixed', value }
    : { kind: 'json', initial: text, shape: value };
}

function stringWidget(value: string, schema: PayloadSchema | undefined): Widget {
  const initial = value === '' ? {} : { initial: value };
  const choices = choicesOf(schema, value);
  if (choices !== undefined) {
    const chosen = choices.find((choice) => choice.value === value);
    return { kind: 'choice', choices, initial: chosen };
  }
  const format = schema?.format;
  if (format === 'date-time' || (format === undefined && isDateTime(value))) {
    if (value === '' || isDateTime(value)) return { kind: 'datetime', ...initial };
  }
  if (format === 'date' && (value === '' || isDate(value))) return { kind: 'date', ...initial };
  if (value.length > INPUT_MAX) return { kind: 'fixed', value };
  const multiline = value.length > SINGLE_LINE_MAX || /[\r\n]/.test(value);
  return { kind: 'text', multiline, ...initial };
}

/**
 * A string field's options: the schema's `enum`, when every one (and the value) can be shown.
 * Each option carries its own text as its value in Slack, as forms open before the engine did.
 */
function choicesOf(schema: PayloadSchema | undefined, value: string): Choice[] | undefined {
  const options = schema?.enum ?? [];
  const strings = options.filter((option): option is string => typeof option === 'string');
  if (strings.length !== options.length || (value !== '' && !strings.includes(value))) {
    return undefined;
  }
  return selectable(strings)?.map((choice) => ({ value: choice.value, id: String(choice.value) }));
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

function shapeHint(template: JsonValue): string {
  if (isObject(template)) {
    const keys = Object.keys(template);
    if (keys.length === 0) return 'JSON: an empty object.';
    return `JSON: an object with the keys ${keys.join(', ')}, each value of the same type as now.`;
  }
  if (Array.isArray(template)) return 'JSON: a list whose items have the same types as now.';
  if (template === null) return 'JSON: any value.';
  const type = jsonTypeOf(template);
  return `JSON: ${type === 'string' ? 'a string in quotes' : `a ${type}`}.`;
}

function isObject(value: JsonValue | undefined): value is { [key: string]: JsonValue } {
  return value !== undefined && jsonTypeOf(value) === 'object';
}

function isPresent(value: JsonValue): boolean {
  return value !== null && value !== '' && !(Array.isArray(value) && value.length === 0);
}

/** The rule's schema over the whole payload: a problem of a key goes on that key's field. */
function schemaCheck(form: readonly Field[], schema: PayloadSchema): ValueCheck {
  return (payload) => {
    if (!isObject(payload) || !form.some((field) => field.key !== undefined)) {
      const problem = payloadProblem(schema, payload);
      return problem ? [{ message: problem }] : [];
    }
    const problems: ValueProblem[] = [];
    const typeProblem =
      schema.type === undefined ? undefined : payloadProblem({ type: schema.type }, payload);
    if (typeProblem) problems.push({ message: typeProblem });
    for (const [key, message] of Object.entries(objectProblems(schema, payload))) {
      problems.push({ key, message });
    }
    return problems;
  };
}

export type PayloadReading =
  | { ok: true; payload: JsonValue }
  | { ok: false; errors: Record<string, string> };

/**
 * The payload from a submitted Edit & approve form, typed like the template, or errors by block
 * id; `values` is `view.state.values`, untrusted.
 */
export function readPayloadForm(
  template: JsonValue | undefined,
  values: unknown,
  schema?: PayloadSchema,
): PayloadReading {
  const form = payloadForm(template, schema);
  const reading: FormReading = readSubmission(
    form,
    values,
    schema === undefined ? undefined : schemaCheck(form, schema),
  );
  return reading.ok ? { ok: true, payload: reading.value } : reading;
}
