import { z } from 'zod';
import type { JsonObject, JsonValue } from '../../json.js';
import type { Gate } from '../gate.js';
import {
  type AdkEvent,
  type Part,
  REQUEST_CONFIRMATION,
  REQUEST_INPUT,
  USER_AUTHOR,
} from './events.js';
import { absentable, formatIssues, withAliases } from './tolerant-schema.js';

/**
 * Finding the pending confirmations an event raises, in the JS/Python shape (a function call)
 * and the adk-rs shape (a function response), and never guessing at a malformed one.
 */

export type GateScan =
  | { kind: 'none' }
  /** One pause: every gate raised by this event, to be answered together in one message. */
  | { kind: 'pause'; gates: Gate[] }
  /** The event asks for confirmation in a shape that cannot be answered safely. */
  | { kind: 'invalid'; eventId?: string; problems: string[] };

// Gates are read from an event that was already parsed, so its values are known to be JSON:
// only their kind is checked here, not every nested value again (arguments may be megabytes).
const parsedJsonObject = z.custom<JsonObject>(
  (value) => typeof value === 'object' && value !== null && !Array.isArray(value),
  'expected an object',
);
const parsedJsonValue = z.custom<JsonValue>((value) => value !== undefined);

const originalCallSchema = z.object({
  id: z.string().min(1),
  name: z.string().min(1),
  // genai omits `args` for a call without arguments.
  args: absentable(parsedJsonObject).transform((args) => args ?? {}),
});

const toolConfirmationSchema = z.object({
  hint: absentable(z.string()),
  confirmed: absentable(z.boolean()),
  payload: absentable(parsedJsonValue),
});

const confirmationRequestSchema = withAliases(
  { original_function_call: 'originalFunctionCall', tool_confirmation: 'toolConfirmation' },
  z.object({
    originalFunctionCall: originalCallSchema,
    toolConfirmation: toolConfirmationSchema,
  }),
);

/**
 * Finds every pending confirmation an event raises:
 * - JS and Python: a `functionCall` named `adk_request_confirmation`, answered with its own id,
 *   with `args.originalFunctionCall` and `args.toolConfirmation`;
 * - adk-rs: a `functionResponse` of that name whose id is the original call's and whose
 *   `response` carries the same two objects; answered with that id.
 * Partial events and user-authored events never raise gates. If any request in the event is
 * malformed the whole event is `invalid`: a pause is answered as a whole, so it is not split.
 */
export function parseGates(event: AdkEvent): GateScan {
  if (event.partial === true || event.author === USER_AUTHOR) return { kind: 'none' };
  const gates: Gate[] = [];
  const problems: string[] = [];
  const parts = event.content?.parts ?? [];
  parts.forEach((part, index) => {
    const found = gateFromPart(part, `parts[${index}]`);
    if (found === undefined) return;
    if ('problems' in found) problems.push(...found.problems);
    else gates.push(withCoordinates(found.gate, event));
  });
  const seen = new Set<string>();
  for (const gate of gates) {
    if (seen.has(gate.confirmationCallId)) {
      problems.push(`two requests share the confirmation call id ${gate.confirmationCallId}`);
    }
    seen.add(gate.confirmationCallId);
  }
  if (problems.length > 0) {
    return event.id === undefined
      ? { kind: 'invalid', problems }
      : { kind: 'invalid', eventId: event.id, problems };
  }
  return gates.length === 0 ? { kind: 'none' } : { kind: 'pause', gates };
}

type PartGate = { gate: Gate } | { problems: string[] };

function gateFromPart(part: Part, at: string): PartGate | undefined {
  const call = part.functionCall;
  if (call?.name === REQUEST_CONFIRMATION) {
    return gateFromRequest(call.id, call.args, `${at}.functionCall`, 'args');
  }
  const response = part.functionResponse;
  if (response?.name === REQUEST_CONFIRMATION) {
    const found = gateFromRequest(
      response.id,
      response.response,
      `${at}.functionResponse`,
      'response',
    );
    if ('gate' in found && found.gate.originalCall.id !== found.gate.confirmationCallId) {
      return {
        problems: [
          `${at}.functionResponse.response.originalFunctionCall.id: differs from the response id it should repeat`,
        ],
      };
    }
    return found;
  }
  return undefined;
}

function gateFromRequest(
  id: string | undefined,
  request: JsonValue | undefined,
  at: string,
  field: 'args' | 'response',
): PartGate {
  const problems: string[] = [];
  if (id === undefined || id === '') {
    problems.push(`${at}.id: missing (it is the id to answer with)`);
  }
  const parsed = confirmationRequestSchema.safeParse(request);
  if (!parsed.success) problems.push(...formatIssues(parsed.error.issues, `${at}.${field}`));
  if (problems.length > 0 || id === undefined || !parsed.success) return { problems };
  const { originalFunctionCall, toolConfirmation } = parsed.data;
  const gate: Gate = {
    confirmationCallId: id,
    originalCall: {
      id: originalFunctionCall.id,
      name: originalFunctionCall.name,
      args: originalFunctionCall.args,
    },
  };
  if (toolConfirmation.hint !== undefined) gate.hint = toolConfirmation.hint;
  if (toolConfirmation.payload !== undefined) gate.payloadTemplate = toolConfirmation.payload;
  return { gate };
}

function withCoordinates(gate: Gate, event: AdkEvent): Gate {
  const located: Gate = { ...gate, author: event.author };
  if (event.invocationId !== undefined) located.invocationId = event.invocationId;
  return located;
}

/**
 * The gate ids (confirmations and input requests) a user has already answered in this history.
 * A gate whose id is here
 * must not be answered again: ADK runs nothing the second time but still spends a model turn.
 */
export function answeredConfirmationIds(events: readonly AdkEvent[]): Set<string> {
  const answered = new Set<string>();
  for (const event of events) {
    if (event.author !== USER_AUTHOR) continue;
    for (const part of event.content?.parts ?? []) {
      const response = part.functionResponse;
      const answersGate =
        response?.name === REQUEST_CONFIRMATION || response?.name === REQUEST_INPUT;
      if (answersGate && response?.id !== undefined) {
        answered.add(response.id);
      }
    }
  }
  return answered;
}
