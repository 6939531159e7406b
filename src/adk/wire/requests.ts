import type { JsonObject, JsonValue } from '../../json.js';
import type { Gate } from '../gate.js';
import {
  type AdkEvent,
  REQUEST_CREDENTIAL,
  REQUEST_INPUT,
  RESERVED_FUNCTION_NAMES,
  USER_AUTHOR,
} from './events.js';

/**
 * What else an event asks of a person, besides the confirmations `parseGates` reads: credentials,
 * structured input, and confirmations a tool asked for that ADK did not raise as a request call.
 *
 * ADK JS ships `getPendingUserInputRequests` for the same purpose; this app keeps its own reader
 * because that helper needs ADK's `Event` class (this app parses the wire with zod, whatever the
 * flavour), does not know adk-rs's response-shaped requests, and cannot see a confirmation that
 * exists only in `actions.requestedToolConfirmations` (ADK JS's second confirmation of a resumed
 * tool), which is exactly the one that must not pass for a tool that ran.
 */

export interface CredentialRequest {
  /** The `adk_request_credential` call's id. */
  requestId?: string;
  /** The tool call that waits for the credential. */
  callId?: string;
}

export interface InputRequest {
  /** The id to answer with (`adk_request_input` call id; a Workflow's interrupt id). */
  id: string;
  /** The agent or Workflow node that asked. */
  author: string;
  message?: string;
  payload?: JsonValue;
  /** JSON Schema the answer must satisfy, when the request declared one. */
  responseSchema?: JsonValue;
  invocationId?: string;
}

/** A confirmation a tool asked for (`requestedToolConfirmations`), keyed by its call. */
export interface RequestedConfirmation {
  callId: string;
  hint?: string;
}

export interface EventRequests {
  credentials: CredentialRequest[];
  inputs: InputRequest[];
  requestedConfirmations: RequestedConfirmation[];
  /** Function calls the agent made in this event, by id: to name the tool a request is for. */
  calls: Map<string, string>;
}

export function scanRequests(event: AdkEvent): EventRequests {
  const found: EventRequests = {
    credentials: [],
    inputs: [],
    requestedConfirmations: [],
    calls: new Map(),
  };
  if (event.partial === true || event.author === USER_AUTHOR) return found;
  for (const part of event.content?.parts ?? []) {
    const call = part.functionCall;
    if (call === undefined) continue;
    if (call.name === REQUEST_CREDENTIAL) {
      found.credentials.push(credentialRequest(call.id, call.args));
    } else if (call.name === REQUEST_INPUT) {
      const input = inputRequest(call.id, call.args, event.author, event.invocationId);
      if (input !== undefined) found.inputs.push(input);
    } else if (call.id !== undefined && !RESERVED_FUNCTION_NAMES.has(call.name)) {
      found.calls.set(call.id, call.name);
    }
  }
  for (const part of event.content?.parts ?? []) {
    const response = part.functionResponse;
    if (response?.id !== undefined && !RESERVED_FUNCTION_NAMES.has(response.name)) {
      found.calls.set(response.id, response.name);
    }
  }
  for (const [callId, confirmation] of Object.entries(
    event.actions?.requestedToolConfirmations ?? {},
  )) {
    const hint = stringField(confirmation, 'hint');
    found.requestedConfirmations.push(hint === undefined ? { callId } : { callId, hint });
  }
  return found;
}

/** JS sends `function_call_id`; Python (camelCase by alias) `functionCallId`. */
function credentialRequest(id: string | undefined, args: JsonObject): CredentialRequest {
  const callId = stringField(args, 'functionCallId') ?? stringField(args, 'function_call_id');
  return {
    ...(id === undefined ? {} : { requestId: id }),
    ...(callId === undefined ? {} : { callId }),
  };
}

function inputRequest(
  id: string | undefined,
  args: JsonObject,
  author: string,
  invocationId: string | undefined,
): InputRequest | undefined {
  const answerId = id ?? stringField(args, 'interruptId');
  if (answerId === undefined) return undefined;
  const request: InputRequest = { id: answerId, author };
  if (invocationId !== undefined) request.invocationId = invocationId;
  const message = stringField(args, 'message');
  if (message !== undefined) request.message = message;
  if (args.payload !== undefined && args.payload !== null) request.payload = args.payload;
  const schema = args.response_schema ?? args.responseSchema;
  if (schema !== undefined && schema !== null) request.responseSchema = schema;
  return request;
}

/**
 * An input request as a gate of its own kind: answered with its own id, and its "call" is the
 * `adk_request_input` request itself (policies match it as the tool `adk_request_input`).
 */
export function inputGate(request: InputRequest): Gate {
  const { id, author, invocationId, message, payload, responseSchema } = request;
  return {
    kind: 'input',
    confirmationCallId: id,
    originalCall: { id, name: REQUEST_INPUT, args: {} },
    author,
    ...(invocationId === undefined ? {} : { invocationId }),
    input: {
      ...(message === undefined ? {} : { message }),
      ...(payload === undefined ? {} : { payload }),
      ...(responseSchema === undefined ? {} : { responseSchema }),
    },
  };
}

function stringField(value: JsonValue | undefined, key: string): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const field = value[key];
  return typeof field === 'string' && field !== '' ? field : undefined;
}
