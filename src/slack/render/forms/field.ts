import { createHash } from 'node:crypto';
import type { JsonValue } from '../../../json.js';

/**
 * The field model of the app's generated forms: the Edit & approve form (payload-form.ts, from a
 * tool's payload template and the rule's `payloadSchema`) and the answer form of an input request
 * (input-form.ts, from its `responseSchema`). A front end decides the fields; the engine renders
 * them (render-field.ts) and reads them back (read-field.ts, read-form.ts), so that a field's
 * block id means the same thing on the way out and on the way back.
 */

/** One choice of a select: what it gives, and the option value Slack sends back for it. */
export interface Choice {
  value: string | number;
  /** The option's `value` in Slack: the choice's index, or (payload selects) the text itself. */
  id: string;
}

/** What a field's input is, with what it starts with. */
export type Widget =
  | {
      kind: 'text';
      initial?: string;
      multiline: boolean;
      /** Given to Slack's input; capped at Slack's limit. */
      minLength?: number;
      maxLength?: number;
    }
  | {
      kind: 'number';
      /** Whole numbers only (no decimal point in Slack's input). */
      whole: boolean;
      initial?: number;
      /** Inclusive bounds, given to Slack's input (which refuses a number outside them). */
      minimum?: number;
      maximum?: number;
    }
  | { kind: 'boolean'; initial: boolean }
  | { kind: 'choice'; choices: Choice[]; initial?: Choice }
  | {
      kind: 'list';
      choices: Choice[];
      /** The choices selected at first. */
      initial: Choice[];
    }
  /** An ISO 8601 instant, read back as UTC (`2026-11-23T22:00:00Z`). */
  | { kind: 'datetime'; initial?: string }
  /** `YYYY-MM-DD`. */
  | { kind: 'date'; initial?: string }
  | {
      kind: 'json';
      /** The JSON text shown at first. */
      initial?: string;
      /** An example of the value's shape (the template's): another shape is refused. */
      shape?: JsonValue;
    }
  /** Too long to edit in Slack: shown as kept, and read back unchanged. */
  | { kind: 'fixed'; value: JsonValue };

export interface Field {
  blockId: string;
  /** The object key this field fills; absent: the field is the whole value. */
  key?: string;
  /** Words, not yet escaped. */
  label: string;
  /** What to say under the input (a description, the shape of JSON), not yet escaped. */
  hint?: string;
  /** Must be filled in: Slack asks for it, and an empty one is refused. */
  required: boolean;
  /**
   * What an optional field left empty gives; absent: its key is left out of the value. Never
   * used by a checkbox: unticked is an answer (false).
   */
  whenEmpty?: JsonValue;
  /** The front end's own check of the value read, in words; `undefined`: fine. */
  check?: (value: JsonValue) => string | undefined;
  widget: Widget;
}

/** Block id of the field that stands for the whole value. */
export const ROOT_BLOCK_ID = 'payload';
/** Slack's 100 blocks per modal, less the modal's own header blocks. */
export const MAX_FIELDS = 95;

/**
 * A key's block id: its position and a hash of the key. Keys can be any string (long, odd
 * characters), so they are not put in the id itself; the form maps the id back. Forms already
 * open in Slack are read back by it: keep it as it is.
 */
export function fieldBlockId(key: string, index: number): string {
  const hash = createHash('sha256').update(key).digest('base64url').slice(0, 10);
  return `field.${index}.${hash}`;
}

/**
 * A form's fields: one per key of an object value (when it has 1 to `MAX_FIELDS` keys), else one
 * for the whole value. Block ids are given out here alone, so that they read back the same.
 */
export function fieldsByKey(
  keys: readonly string[] | undefined,
  perKey: (key: string, blockId: string) => Field,
  whole: (blockId: string) => Field,
): Field[] {
  if (keys === undefined || keys.length === 0 || keys.length > MAX_FIELDS) {
    return [whole(ROOT_BLOCK_ID)];
  }
  return keys.map((key, index) => perKey(key, fieldBlockId(key, index)));
}

/** Choices whose option values are their positions (any string or number fits in one). */
export function indexedChoices(values: readonly (string | number)[]): Choice[] {
  return values.map((value, index) => ({ value, id: String(index) }));
}

/** The label of a key that is blank (nothing, or spaces): quoted, so that the field has one. */
export function blankKeyLabel(key: string): string {
  return `Key ${JSON.stringify(key)}`;
}

/** `number_input` takes plain decimal notation only (no exponent). */
export const DECIMAL = /^-?\d+(\.\d+)?$/;

/** Whether Slack's number input can show this number (`1e21` and `NaN` it cannot). */
export function isPlainDecimal(value: number): boolean {
  return Number.isFinite(value) && DECIMAL.test(String(value));
}

/** A hint from its parts, in order: `undefined` when there is nothing to say. */
export function hintOf(...parts: (string | undefined)[]): string | undefined {
  const text = parts.filter((part) => part !== undefined && part !== '').join(' · ');
  return text === '' ? undefined : text;
}
