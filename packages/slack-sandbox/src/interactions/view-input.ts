import { type BlockElement, type InputBlock, inputBlocks, optionsOf } from '../blocks.js';
import { isJsonObject, type Json, type JsonObject } from '../json.js';
import { optionJson } from './payloads.js';

/**
 * What a person entered in a modal, keyed by input block id: text (plain text, number, email,
 * URL, date inputs; Unix seconds for a date-time picker), an option value (select, radio buttons), several option values (checkboxes,
 * multi-select), or null to clear. Inputs left out keep what they hold, else their initial value.
 */
export type InputValue = string | readonly string[] | null;
export type InputValues = Readonly<Record<string, InputValue>>;

export type ViewInputResult =
  | { ok: true; values: JsonObject; errors: Record<string, string> }
  | { ok: false; reason: string };

/**
 * Builds `view.state.values` like the Slack client, and the errors the client itself shows
 * before sending anything (a required input left empty, a number out of range, text too short).
 */
export function readViewInput(
  blocks: readonly Json[],
  current: JsonObject,
  given: InputValues,
): ViewInputResult {
  const inputs = inputBlocks(blocks);
  const unknown = Object.keys(given).filter((id) => !inputs.some((i) => i.blockId === id));
  if (unknown.length > 0)
    return { ok: false, reason: `no input block with block_id ${unknown.join(', ')}` };
  const values: JsonObject = {};
  const errors: Record<string, string> = {};
  for (const input of inputs) {
    const actionId = input.element.action_id;
    const held = current[input.blockId];
    const kept = isJsonObject(held) ? held[actionId] : undefined;
    const givenValue = given[input.blockId];
    let value: JsonObject;
    if (givenValue !== undefined) {
      const built = stateValue(input.element, givenValue);
      if (!built.ok) return { ok: false, reason: `${input.blockId}: ${built.reason}` };
      value = built.value;
    } else if (isJsonObject(kept)) {
      value = kept;
    } else {
      value = initialStateValue(input.element);
    }
    values[input.blockId] = { [actionId]: value };
    const problem = clientSideProblem(input, value);
    if (problem !== undefined) errors[input.blockId] = problem;
  }
  return { ok: true, values, errors };
}

type Built = { ok: true; value: JsonObject } | { ok: false; reason: string };

const SINGLE_TEXT: Record<string, string> = {
  plain_text_input: 'value',
  number_input: 'value',
  email_text_input: 'value',
  url_text_input: 'value',
  datepicker: 'selected_date',
  timepicker: 'selected_time',
  users_select: 'selected_user',
  conversations_select: 'selected_conversation',
  channels_select: 'selected_channel',
};

const MANY_TEXT: Record<string, string> = {
  multi_users_select: 'selected_users',
  multi_conversations_select: 'selected_conversations',
  multi_channels_select: 'selected_channels',
};

function stateValue(element: BlockElement, given: InputValue): Built {
  const type = element.type;
  if (type === 'datetimepicker') {
    if (given === null || given === '')
      return { ok: true, value: { type, selected_date_time: null } };
    if (typeof given !== 'string' || !/^\d+$/.test(given)) {
      return { ok: false, reason: 'datetimepicker takes Unix seconds' };
    }
    return { ok: true, value: { type, selected_date_time: Number(given) } };
  }
  const field = SINGLE_TEXT[type];
  if (field !== undefined) {
    if (given !== null && typeof given !== 'string')
      return { ok: false, reason: `${type} takes one value` };
    return { ok: true, value: { type, [field]: given === '' ? null : given } };
  }
  const manyField = MANY_TEXT[type];
  if (manyField !== undefined) {
    return { ok: true, value: { type, [manyField]: given === null ? [] : asList(given) } };
  }
  if (type === 'static_select' || type === 'radio_buttons') {
    if (given !== null && typeof given !== 'string') {
      return { ok: false, reason: `${type} takes one option value` };
    }
    if (given === null || given === '') return { ok: true, value: { type, selected_option: null } };
    const option = optionsOf(element).find((o) => o.value === given);
    if (!option) return { ok: false, reason: `no option with value ${String(given)}` };
    return { ok: true, value: { type, selected_option: optionJson(option) } };
  }
  if (type === 'checkboxes' || type === 'multi_static_select') {
    const wanted = given === null ? [] : asList(given);
    const all = optionsOf(element);
    const missing = wanted.filter((v) => !all.some((o) => o.value === v));
    if (missing.length > 0)
      return { ok: false, reason: `no option with value ${missing.join(', ')}` };
    const chosen = all.filter((o) => wanted.includes(o.value));
    return { ok: true, value: { type, selected_options: chosen.map(optionJson) } };
  }
  return { ok: false, reason: `the sandbox cannot fill a ${type} input` };
}

function asList(given: string | readonly string[]): string[] {
  return typeof given === 'string' ? [given] : [...given];
}

function initialStateValue(element: BlockElement): JsonObject {
  const type = element.type;
  const raw: { [key: string]: unknown } = element;
  const initial = (key: string): Json => {
    const value = raw[key];
    return typeof value === 'string' ? value : null;
  };
  switch (type) {
    case 'static_select':
    case 'radio_buttons':
      return {
        type,
        selected_option: element.initial_option ? optionJson(element.initial_option) : null,
      };
    case 'checkboxes':
    case 'multi_static_select':
      return { type, selected_options: (element.initial_options ?? []).map(optionJson) };
    case 'datepicker':
      return { type, selected_date: initial('initial_date') };
    case 'timepicker':
      return { type, selected_time: initial('initial_time') };
    case 'datetimepicker': {
      const seconds = raw.initial_date_time;
      return { type, selected_date_time: typeof seconds === 'number' ? seconds : null };
    }
    case 'users_select':
      return { type, selected_user: initial('initial_user') };
    case 'conversations_select':
      return { type, selected_conversation: initial('initial_conversation') };
    case 'channels_select':
      return { type, selected_channel: initial('initial_channel') };
    default:
      return { type, value: element.initial_value ?? null };
  }
}

function isEmpty(value: JsonObject): boolean {
  return Object.entries(value).every(
    ([key, v]) => key === 'type' || v === null || v === '' || (Array.isArray(v) && v.length === 0),
  );
}

function clientSideProblem(input: InputBlock, value: JsonObject): string | undefined {
  if (isEmpty(value)) return input.optional ? undefined : 'Please complete this required field.';
  const text = typeof value.value === 'string' ? value.value : undefined;
  const element = input.element;
  if (text === undefined) return undefined;
  if (element.type === 'plain_text_input') {
    if (element.min_length !== undefined && text.length < element.min_length) {
      return `Please enter at least ${element.min_length} characters.`;
    }
    if (element.max_length !== undefined && text.length > element.max_length) {
      return `Please enter no more than ${element.max_length} characters.`;
    }
  }
  if (element.type === 'number_input') return numberProblem(element, text);
  return undefined;
}

function numberProblem(element: BlockElement, text: string): string | undefined {
  const decimal = element.is_decimal_allowed === true;
  if (!(decimal ? /^-?\d+(\.\d+)?$/ : /^-?\d+$/).test(text.trim())) {
    return decimal ? 'Please enter a number.' : 'Please enter a whole number.';
  }
  const number = Number(text);
  const min = element.min_value === undefined ? undefined : Number(element.min_value);
  const max = element.max_value === undefined ? undefined : Number(element.max_value);
  if (min !== undefined && number < min)
    return `Please enter a number no less than ${element.min_value}.`;
  if (max !== undefined && number > max)
    return `Please enter a number no more than ${element.max_value}.`;
  return undefined;
}
