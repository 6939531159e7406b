import type { JsonValue } from '../../../json.js';
import { escapeLine } from '../../codecs/escape.js';
import {
  INPUT_ACTION_ID,
  type ViewStateValues,
  viewStateValuesSchema,
} from '../../codecs/view-state.js';
import type { Field } from './field.js';
import { readField } from './read-field.js';

/**
 * A submitted form read back into one value: each field on its own first, then the front end's
 * check of the whole value. Errors are keyed by block id, as `ack({ response_action: 'errors' })`
 * shows them on their fields, and escaped (a message can quote a schema's pattern or a key).
 */

export type FormReading =
  | { ok: true; value: JsonValue }
  | { ok: false; errors: Record<string, string> };

/** A problem with the whole value: on the field of `key` when the form has one. */
export interface ValueProblem {
  key?: string;
  message: string;
}

export type ValueCheck = (value: JsonValue) => ValueProblem[];

const UNREADABLE = 'The form could not be read. Please close it and try again.';
const ERROR_MAX = 300;

/** `values` is `view.state.values` as Slack sent it: untrusted, parsed here. */
export function readSubmission(
  fields: readonly Field[],
  values: unknown,
  check?: ValueCheck,
): FormReading {
  const parsed = viewStateValuesSchema.safeParse(values);
  if (!parsed.success) {
    const first = firstEditable(fields);
    return { ok: false, errors: first === undefined ? {} : { [first.blockId]: UNREADABLE } };
  }
  return readForm(fields, parsed.data, check);
}

export function readForm(
  fields: readonly Field[],
  values: ViewStateValues,
  check?: ValueCheck,
): FormReading {
  const errors: Record<string, string> = {};
  // Entries, then `Object.fromEntries`: a key like `__proto__` stays an ordinary own key.
  const entries: [string, JsonValue][] = [];
  let root: JsonValue = null;
  for (const field of fields) {
    const reading = readField(field, values[field.blockId]?.[INPUT_ACTION_ID]);
    if (!reading.ok) errors[field.blockId] = escapeLine(reading.error, ERROR_MAX);
    else if ('absent' in reading) continue;
    else if (field.key === undefined) root = reading.value;
    else entries.push([field.key, reading.value]);
  }
  if (Object.keys(errors).length > 0) return { ok: false, errors };
  const value = fields.some((field) => field.key !== undefined)
    ? Object.fromEntries(entries)
    : root;
  const problems = placeProblems(fields, check?.(value) ?? []);
  return Object.keys(problems).length > 0 ? { ok: false, errors: problems } : { ok: true, value };
}

/**
 * Each problem on the field of its key, the first one per field; a problem no field shows goes
 * on the first field that can be edited, naming its key.
 */
function placeProblems(
  fields: readonly Field[],
  problems: readonly ValueProblem[],
): Record<string, string> {
  const errors: Record<string, string> = {};
  // With nothing editable, the first field still says it: the value must not pass unseen.
  const first = firstEditable(fields) ?? fields[0];
  for (const { key, message } of problems) {
    const own = key === undefined ? undefined : fields.find((field) => field.key === key);
    const target = own ?? first;
    if (target === undefined || errors[target.blockId] !== undefined) continue;
    const text = own === undefined && key !== undefined ? `${key}: ${message}` : message;
    errors[target.blockId] = escapeLine(text, ERROR_MAX);
  }
  return errors;
}

function firstEditable(fields: readonly Field[]): Field | undefined {
  return fields.find((field) => field.widget.kind !== 'fixed');
}
