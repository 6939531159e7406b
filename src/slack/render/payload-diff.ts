import type { JsonValue } from '../../json.js';
import { escapeLine } from '../codecs/escape.js';

/**
 * What an approver changed in the payload a tool proposed, as lines a person reads at a glance:
 * "`durationMinutes`: 60 → 90". Objects are compared key by key, one level deep (what the edit
 * form edits); anything else as a whole.
 */

export interface PayloadChange {
  /** Absent: the payload as a whole. */
  key?: string;
  before?: JsonValue;
  after?: JsonValue;
}

type JsonObject = { [key: string]: JsonValue };

function isObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function sameJson(a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  return canonical(a) === canonical(b);
}

function canonical(value: JsonValue | undefined): string {
  if (value === undefined) return 'undefined';
  if (isObject(value)) {
    const keys = Object.keys(value).sort();
    return `{${keys.map((key) => `${JSON.stringify(key)}:${canonical(value[key])}`).join(',')}}`;
  }
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  return JSON.stringify(value);
}

export function payloadChanges(proposed: JsonValue | undefined, sent: JsonValue): PayloadChange[] {
  if (!isObject(proposed) || !isObject(sent)) {
    if (sameJson(proposed, sent)) return [];
    return [{ ...(proposed === undefined ? {} : { before: proposed }), after: sent }];
  }
  const keys = [...new Set([...Object.keys(proposed), ...Object.keys(sent)])];
  return keys.flatMap((key): PayloadChange[] => {
    const before = Object.hasOwn(proposed, key) ? proposed[key] : undefined;
    const after = Object.hasOwn(sent, key) ? sent[key] : undefined;
    if (sameJson(before, after)) return [];
    return [
      {
        key,
        ...(before === undefined ? {} : { before }),
        ...(after === undefined ? {} : { after }),
      },
    ];
  });
}

/** One mrkdwn line per change, each value escaped and cut to `valueMax`. */
export function changeLines(changes: readonly PayloadChange[], valueMax: number): string[] {
  const shown = (value: JsonValue | undefined) =>
    value === undefined ? '(none)' : escapeLine(JSON.stringify(value), valueMax);
  return changes.map(({ key, before, after }) => {
    const name = key === undefined ? 'payload' : escapeLine(key, 60);
    return `• ${name}: ~${shown(before)}~ → *${shown(after)}*`;
  });
}
