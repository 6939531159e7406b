import { type JsonValue, jsonValueSchema, parseJsonText } from '../../../json.js';
import type { StateValue } from '../../codecs/view-state.js';
import { type Choice, DECIMAL, type Field } from './field.js';
import { shapeMismatch } from './json-shape.js';

/**
 * One field of a submitted form read back from Slack's `view.state.values`: the value its input
 * holds, typed as the field says, or what is wrong with it in words a person can act on. An
 * optional field left empty gives the field's `whenEmpty`, or nothing (`absent`: its key is left
 * out). The front end's own check runs last, on a value read.
 */

export type FieldReading =
  | { ok: true; value: JsonValue }
  | { ok: true; absent: true }
  | { ok: false; error: string };

export function readField(field: Field, state: StateValue | undefined): FieldReading {
  const reading = readWidget(field, state);
  if (!reading.ok || 'absent' in reading || field.check === undefined) return reading;
  const problem = field.check(reading.value);
  return problem === undefined ? reading : { ok: false, error: problem };
}

function readWidget(field: Field, state: StateValue | undefined): FieldReading {
  const { widget } = field;
  switch (widget.kind) {
    case 'text':
      return readText(field, state);
    case 'number':
      return readNumber(field, state, widget.whole);
    case 'boolean':
      return {
        ok: true,
        value: (state?.selected_options ?? []).some(({ value }) => value === 'true'),
      };
    case 'choice':
      return readChoice(field, state, widget.choices);
    case 'list':
      return readList(field, state, widget.choices);
    case 'datetime':
      return readDateTime(field, state);
    case 'date':
      return readDate(field, state);
    case 'json':
      return readJson(field, state, widget.shape);
    case 'fixed':
      return { ok: true, value: widget.value };
  }
}

/** An empty input: refused when required, else the field's empty value or nothing. */
function empty(field: Field, ask: string): FieldReading {
  if (field.required) return { ok: false, error: ask };
  return field.whenEmpty === undefined
    ? { ok: true, absent: true }
    : { ok: true, value: field.whenEmpty };
}

/** Spaces alone are no answer to a required field; an optional one keeps what was typed. */
function readText(field: Field, state: StateValue | undefined): FieldReading {
  const text = state?.value ?? '';
  if (text === '' || (field.required && text.trim() === '')) return empty(field, 'Required.');
  return { ok: true, value: text };
}

function readNumber(field: Field, state: StateValue | undefined, whole: boolean): FieldReading {
  const text = state?.value?.trim() ?? '';
  const ask = whole ? 'Enter a whole number, like 12.' : 'Enter a number, like 12 or 0.5.';
  if (text === '') return empty(field, ask);
  const value = Number(text);
  if (!DECIMAL.test(text) || !Number.isFinite(value) || (whole && !Number.isInteger(value))) {
    return { ok: false, error: ask };
  }
  return { ok: true, value };
}

function readChoice(
  field: Field,
  state: StateValue | undefined,
  choices: readonly Choice[],
): FieldReading {
  const selected = state?.selected_option;
  if (selected === undefined || selected === null) return empty(field, 'Choose one.');
  const choice = choices.find(({ id }) => id === selected.value);
  return choice === undefined
    ? { ok: false, error: 'Choose from the listed options only.' }
    : { ok: true, value: choice.value };
}

/** The chosen items in the order offered, each once. */
function readList(
  field: Field,
  state: StateValue | undefined,
  choices: readonly Choice[],
): FieldReading {
  const chosen = new Set<number>();
  for (const { value } of state?.selected_options ?? []) {
    const index = choices.findIndex(({ id }) => id === value);
    if (index < 0) return { ok: false, error: 'Choose from the listed items only.' };
    chosen.add(index);
  }
  if (chosen.size === 0) return empty(field, 'Choose at least one.');
  const value = choices.flatMap((choice, index) => (chosen.has(index) ? [choice.value] : []));
  return { ok: true, value };
}

/** Slack sends the chosen instant as Unix seconds; JSON Schema's date-time is RFC 3339. */
function readDateTime(field: Field, state: StateValue | undefined): FieldReading {
  const seconds = state?.selected_date_time;
  if (seconds === undefined || seconds === null) return empty(field, 'Choose a date and time.');
  return { ok: true, value: new Date(seconds * 1000).toISOString().replace('.000Z', 'Z') };
}

function readDate(field: Field, state: StateValue | undefined): FieldReading {
  const date = state?.selected_date;
  if (date === undefined || date === null || date === '') return empty(field, 'Choose a date.');
  return { ok: true, value: date };
}

function readJson(
  field: Field,
  state: StateValue | undefined,
  shape: JsonValue | undefined,
): FieldReading {
  const text = state?.value?.trim() ?? '';
  if (text === '') return empty(field, 'Enter a JSON value.');
  const raw = parseJsonText(text);
  if (!raw.ok) {
    return { ok: false, error: 'This is not valid JSON: check the quotes, commas and brackets.' };
  }
  const parsed = jsonValueSchema.safeParse(raw.value);
  if (!parsed.success) return { ok: false, error: 'This is not valid JSON.' };
  if (shape !== undefined) {
    const mismatch = shapeMismatch(shape, parsed.data);
    if (mismatch !== undefined) return { ok: false, error: `${mismatch}.` };
  }
  return { ok: true, value: parsed.data };
}
