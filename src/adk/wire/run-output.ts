import type { JsonValue } from '../../json.js';
import type { IntentMismatch } from '../errors.js';
import { type AdkEvent, RESERVED_FUNCTION_NAMES, USER_AUTHOR } from './events.js';

/** What a run's events mean for the people watching it: text to post, tools that ran. */

/** Python ADK also emits this placeholder response for a gated call; it is not a tool result. */
const CONFIRMATION_PLACEHOLDER_ERROR =
  'This tool call requires confirmation, please approve or reject.';
/** ADK Go's placeholder: `error tool "<name>" requires confirmation, please approve or reject`. */
const GO_CONFIRMATION_PLACEHOLDER =
  /^error tool ".*" requires confirmation, please approve or reject\.?$/s;
const REJECTION_ERRORS: ReadonlySet<string> = new Set([
  'This tool call is rejected.', // JS and Python ADK
  'tool call was rejected by the user', // adk-rs
]);
/** ADK Go's rejection: `error tool "<name>" call is rejected`. */
const GO_REJECTION = /^error tool ".*" call is rejected\.?$/s;

export function isPartial(event: AdkEvent): boolean {
  return event.partial === true;
}

/**
 * The text the agent said in this event, for posting: the non-thought text parts of a final
 * (non-partial) agent event, joined. Undefined when there is none.
 */
export function eventText(event: AdkEvent): string | undefined {
  if (isPartial(event) || event.author === USER_AUTHOR || event.content?.role === 'user') {
    return undefined;
  }
  const text = (event.content?.parts ?? [])
    .flatMap((part) => (part.text !== undefined && part.thought !== true ? [part.text] : []))
    .join('');
  return text.trim() === '' ? undefined : text;
}

export interface ToolResult {
  /** The original call's id. */
  callId?: string;
  name: string;
  /** `rejected`: a human said no; `failed`: the tool answered `{error: ...}`. */
  status: 'ok' | 'failed' | 'rejected';
}

/**
 * The tool calls that ran (or were refused) in this event: its function responses, leaving out
 * the framework's reserved ones and every placeholder a tool answers while it waits for a person:
 * Python's and Go's "requires confirmation" errors, and any response whose call the same event
 * marks as waiting for a confirmation or a credential (`requestedToolConfirmations`,
 * `requestedAuthConfigs`): that tool has not run.
 */
export function toolResults(event: AdkEvent): ToolResult[] {
  if (isPartial(event) || event.author === USER_AUTHOR) return [];
  const waiting = new Set([
    ...Object.keys(event.actions?.requestedToolConfirmations ?? {}),
    ...Object.keys(event.actions?.requestedAuthConfigs ?? {}),
  ]);
  const results: ToolResult[] = [];
  for (const part of event.content?.parts ?? []) {
    const response = part.functionResponse;
    if (response === undefined || RESERVED_FUNCTION_NAMES.has(response.name)) continue;
    if (response.id !== undefined && waiting.has(response.id)) continue;
    const error = errorOf(response.response);
    if (typeof error === 'string' && isConfirmationPlaceholder(error)) continue;
    const status =
      error === undefined
        ? 'ok'
        : typeof error === 'string' && isRejection(error)
          ? 'rejected'
          : 'failed';
    results.push(
      response.id === undefined
        ? { name: response.name, status }
        : { callId: response.id, name: response.name, status },
    );
  }
  return results;
}

function isConfirmationPlaceholder(error: string): boolean {
  return error === CONFIRMATION_PLACEHOLDER_ERROR || GO_CONFIRMATION_PLACEHOLDER.test(error);
}

function isRejection(error: string): boolean {
  return REJECTION_ERRORS.has(error) || GO_REJECTION.test(error);
}

function errorOf(response: JsonValue | undefined): JsonValue | undefined {
  if (typeof response !== 'object' || response === null || Array.isArray(response))
    return undefined;
  const error = response.error;
  return error === null ? undefined : error;
}

const INTENT_MISMATCH = /^Tool confirmation rejected for function call '([^']+)': (\w+)\.$/;

/** Reads ADK's IntentMismatchError message; undefined for any other message. */
export function parseIntentMismatch(message: string): IntentMismatch | undefined {
  const match = INTENT_MISMATCH.exec(message);
  if (!match?.[1] || !match[2]) return undefined;
  return { callId: match[1], reason: match[2] };
}

/**
 * Whether an event may end a run: ADK's own `isFinalResponse` (the same in JS, Python and Java):
 * a call left waiting (`longRunningToolIds`), a result the model is not asked to summarise
 * (`skipSummarization`), a credential request, or an event with no function call or response
 * that is not partial; and an event that marks the turn complete. A run whose last event is
 * none of these was cut off: its tool answered and the model's turn never came.
 */
export function isFinalResponse(event: AdkEvent): boolean {
  if (event.turnComplete === true) return true;
  if (event.actions?.skipSummarization === true) return true;
  if ((event.longRunningToolIds ?? []).length > 0) return true;
  if (Object.keys(event.actions?.requestedAuthConfigs ?? {}).length > 0) return true;
  const parts = event.content?.parts ?? [];
  return (
    !isPartial(event) &&
    parts.every((part) => part.functionCall === undefined && part.functionResponse === undefined)
  );
}
