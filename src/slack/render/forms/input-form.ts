import type { JsonValue } from '../../../json.js';
import { selectable } from './choices.js';
import { blankKeyLabel, type Field, fieldsByKey, hintOf, type Widget } from './field.js';
import { answerCheck, propertyCheck } from './input-checks.js';
import { type FormReading, readSubmission } from './read-form.js';
import { objectSchema, type PropertySchema, propertySchema } from './response-schema.js';

/**
 * The answer form's front end for an input request: its fields from the request's JSON Schema
 * `response_schema`.
 *
 * - an object schema with properties → one field per property (`required` ones required);
 *   any other schema → one field for the whole answer; no schema → free text
 * - `string` → a text box (`minLength`, `maxLength`, `pattern`); `format: date-time` → a date and
 *   time picker, `format: date` → a date picker
 * - `number` / `integer` → a number input (`minimum`, `maximum`, exclusive bounds)
 * - `boolean` → one checkbox
 * - `enum` of strings or numbers → a select; `array` of such an `enum` → a multi-select
 *   (`minItems`, `maxItems`)
 * - anything else → JSON in a text box
 * A `default` the input can show is filled in. Labels are the schema's `title`, else the property
 * name as the agent wrote it. Every field is checked on its own (input-checks.ts), then the whole
 * answer against the schema as the agent server will check it. An optional field left empty is
 * left out of the answer.
 */

export function inputForm(responseSchema: JsonValue | undefined): Field[] {
  const object = objectSchema.safeParse(responseSchema);
  const properties = object.success ? object.data.properties : undefined;
  const required = new Set(object.success ? object.data.required : []);
  return fieldsByKey(
    properties && Object.keys(properties),
    (key, blockId) => field(blockId, properties?.[key], required.has(key), key),
    (blockId) =>
      responseSchema === undefined
        ? { blockId, label: 'Answer', required: true, widget: { kind: 'text', multiline: true } }
        : field(blockId, responseSchema, true),
  );
}

function field(
  blockId: string,
  raw: JsonValue | undefined,
  required: boolean,
  key?: string,
): Field {
  const parsed = propertySchema.safeParse(raw ?? {});
  const schema: PropertySchema = parsed.success ? parsed.data : {};
  const widget: Widget = parsed.success ? widgetOf(schema, key) : { kind: 'json' };
  const hint = hintOf(schema.description, limitWords(schema, widget));
  return {
    blockId,
    key,
    label: labelOf(schema.title ?? key),
    hint,
    required,
    check: propertyCheck(schema),
    widget,
  };
}

function labelOf(name: string | undefined): string {
  if (name === undefined) return 'Answer';
  return name.trim() === '' ? blankKeyLabel(name) : name;
}

/** What the schema asks that the input itself does not show. */
function limitWords(schema: PropertySchema, widget: Widget): string | undefined {
  const limits: string[] = [];
  if (schema.pattern !== undefined) limits.push(`matching ${schema.pattern}`);
  if (widget.kind === 'json') limits.push('JSON');
  if (schema.minItems !== undefined) limits.push(`at least ${schema.minItems}`);
  if (schema.maxItems !== undefined) limits.push(`at most ${schema.maxItems}`);
  return limits.length > 0 ? limits.join(', ') : undefined;
}

function widgetOf(schema: PropertySchema, key: string | undefined): Widget {
  const preset = schema.default;
  const choices = selectable(schema.enum);
  if (choices !== undefined) {
    const initial = choices.find((choice) => choice.value === preset);
    return { kind: 'choice', choices, initial };
  }
  const type = singleType(schema.type);
  if (type === 'array') {
    const items = selectable(schema.items?.enum);
    if (items !== undefined) {
      const presets = Array.isArray(preset) ? preset : [];
      return {
        kind: 'list',
        choices: items,
        initial: items.filter((c) => presets.includes(c.value)),
      };
    }
  }
  switch (type) {
    case 'string':
      if (schema.format === 'date-time') return { kind: 'datetime', ...stringPreset(preset) };
      if (schema.format === 'date') return { kind: 'date', ...stringPreset(preset) };
      return {
        kind: 'text',
        multiline: key === undefined,
        ...stringPreset(preset),
        minLength: schema.minLength,
        maxLength: schema.maxLength,
      };
    case 'number':
    case 'integer':
      // Exclusive bounds are not Slack's input's (it allows the bound): the check refuses them.
      return {
        kind: 'number',
        whole: type === 'integer',
        ...(typeof preset === 'number' ? { initial: preset } : {}),
        minimum: schema.minimum,
        maximum: schema.maximum,
      };
    case 'boolean':
      return { kind: 'boolean', initial: preset === true };
    default:
      return { kind: 'json' };
  }
}

function stringPreset(preset: JsonValue | undefined): { initial?: string } {
  return typeof preset === 'string' ? { initial: preset } : {};
}

/** `["string", "null"]` is a string that may be left out. */
function singleType(type: PropertySchema['type']): string | undefined {
  if (typeof type === 'string') return type;
  const types = (type ?? []).filter((name) => name !== 'null');
  return types.length === 1 ? types[0] : undefined;
}

/** The answer from a submitted answer form, or errors by block id; `values` is untrusted. */
export function readInputForm(responseSchema: JsonValue | undefined, values: unknown): FormReading {
  return readSubmission(inputForm(responseSchema), values, answerCheck(responseSchema));
}
