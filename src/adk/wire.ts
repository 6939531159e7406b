import { z } from 'zod';
import { AdkError, type IntentMismatch } from './errors.js';
import {
  type Decision,
  type Gate,
  type JsonObject,
  type JsonValue,
  jsonObjectSchema,
  jsonValueSchema,
} from './gate.js';

/**
 * The ADK wire model: events as the API server streams and stores them, parsed once at the edge
 * into one camelCase shape whatever the flavour (JS: camelCase, epoch ms; Python: may send
 * snake_case keys and float-second timestamps; adk-rs: its own confirmation shape). Everything
 * here is pure.
 */

export const REQUEST_CONFIRMATION = 'adk_request_confirmation';
export const REQUEST_CREDENTIAL = 'adk_request_credential';
export const REQUEST_INPUT = 'adk_request_input';
/** Function names the framework reserves for pauses: never tool calls that ran. */
export const RESERVED_FUNCTION_NAMES: ReadonlySet<string> = new Set([
  REQUEST_CONFIRMATION,
  REQUEST_CREDENTIAL,
  REQUEST_INPUT,
]);

/** Only this author is the end user; role "user" is normal on agent-authored ADK events. */
const USER_AUTHOR = 'user';
/** Python ADK also emits this placeholder response for a gated call; it is not a tool result. */
const CONFIRMATION_PLACEHOLDER_ERROR =
  'This tool call requires confirmation, please approve or reject.';
const REJECTION_ERRORS: ReadonlySet<string> = new Set([
  'This tool call is rejected.', // JS and Python ADK
  'tool call was rejected by the user', // adk-rs
]);

// ---------------------------------------------------------------------------------------------
// Schemas

/** Copies snake_case keys to their camelCase names (camelCase wins when both are present). */
function withAliases<T extends z.ZodType>(aliases: Record<string, string>, schema: T) {
  return z.preprocess((input) => {
    if (typeof input !== 'object' || input === null || Array.isArray(input)) return input;
    let renamed: Record<string, unknown> | undefined;
    for (const [snake, camel] of Object.entries(aliases)) {
      if (Object.hasOwn(input, snake) && !Object.hasOwn(input, camel)) {
        renamed ??= { ...input };
        renamed[camel] = Reflect.get(input, snake);
      }
    }
    return renamed ?? input;
  }, schema);
}

/** Absent and `null` mean the same (Python omits `None`, other servers may send `null`). */
function absentable<T extends z.ZodType>(schema: T) {
  return schema.nullish().transform((value) => value ?? undefined);
}

/** Epoch milliseconds (JS) or float seconds (Python), always returned as epoch milliseconds. */
const epochMsSchema = z
  .number()
  .transform((value) => (value < 100_000_000_000 ? Math.round(value * 1000) : value));

const functionCallSchema = z.object({
  id: absentable(z.string()),
  name: z.string(),
  args: absentable(jsonObjectSchema).transform((args) => args ?? {}),
});

const functionResponseSchema = withAliases(
  { will_continue: 'willContinue' },
  z.object({
    id: absentable(z.string()),
    name: z.string(),
    response: absentable(jsonValueSchema),
    willContinue: absentable(z.boolean()),
  }),
);

/** Parts of kinds this app does not use (inline data, code execution…) parse as `{}`. */
const partSchema = withAliases(
  { function_call: 'functionCall', function_response: 'functionResponse' },
  z.object({
    text: absentable(z.string()),
    thought: absentable(z.boolean()),
    functionCall: absentable(functionCallSchema),
    functionResponse: absentable(functionResponseSchema),
  }),
);

const contentSchema = z.object({
  role: absentable(z.string()),
  parts: absentable(z.array(partSchema)).transform((parts) => parts ?? []),
});

const actionsSchema = withAliases(
  {
    state_delta: 'stateDelta',
    requested_tool_confirmations: 'requestedToolConfirmations',
    skip_summarization: 'skipSummarization',
    transfer_to_agent: 'transferToAgent',
  },
  z.object({
    stateDelta: absentable(jsonObjectSchema),
    /** Keyed by the original call id. For display only: gates are read from the parts. */
    requestedToolConfirmations: absentable(z.record(z.string(), jsonValueSchema)),
    skipSummarization: absentable(z.boolean()),
    transferToAgent: absentable(z.string()),
    escalate: absentable(z.boolean()),
  }),
);

export const adkEventSchema = withAliases(
  {
    invocation_id: 'invocationId',
    long_running_tool_ids: 'longRunningToolIds',
    turn_complete: 'turnComplete',
    error_code: 'errorCode',
    error_message: 'errorMessage',
  },
  z.object({
    id: absentable(z.string()),
    invocationId: absentable(z.string()),
    author: z.string(),
    branch: absentable(z.string()),
    content: absentable(contentSchema),
    actions: absentable(actionsSchema),
    longRunningToolIds: absentable(z.array(z.string())),
    partial: absentable(z.boolean()),
    turnComplete: absentable(z.boolean()),
    errorCode: absentable(z.union([z.string(), z.number()]).transform(String)),
    errorMessage: absentable(z.string()),
    timestamp: absentable(epochMsSchema),
  }),
);

export type FunctionCall = z.output<typeof functionCallSchema>;
export type FunctionResponse = z.output<typeof functionResponseSchema>;
export type EventActions = z.output<typeof actionsSchema>;
export type AdkEvent = z.output<typeof adkEventSchema>;

/** A genai part as this app sends it; events' parts are parsed into the same shape. */
export interface Part {
  text?: string;
  thought?: boolean;
  functionCall?: { id?: string; name: string; args: JsonObject };
  functionResponse?: { id?: string; name: string; response?: JsonValue; willContinue?: boolean };
}
/** A message: `newMessage` of a run, or an event's content. */
export interface Content {
  role?: string;
  parts: Part[];
}

// ---------------------------------------------------------------------------------------------
// Parsing events

export interface ParseFailure {
  /** The event's own id, when the input had a readable one. */
  eventId?: string;
  /** One line per problem: `<field path>: <what is wrong>`. Never contains values. */
  problems: string[];
  /** The problems in one sentence, naming the event. */
  message: string;
}
export type ParseResult<T> = { success: true; data: T } | { success: false; error: ParseFailure };

/** Parses one event (a `/run_sse` frame's JSON, or an entry of a session's `events`). */
export function parseEvent(json: unknown): ParseResult<AdkEvent> {
  const eventId = readEventId(json);
  let result: ReturnType<typeof adkEventSchema.safeParse>;
  try {
    result = adkEventSchema.safeParse(json);
  } catch (error) {
    // Nesting deep enough to exhaust the stack (JSON.parse itself copes) must not crash a reader.
    if (!(error instanceof RangeError)) throw error;
    return failure(eventId, ['(root): nested too deeply to read']);
  }
  if (result.success) return { success: true, data: result.data };
  return failure(eventId, formatIssues(result.error.issues));
}

function readEventId(json: unknown): string | undefined {
  if (typeof json !== 'object' || json === null) return undefined;
  const id = Reflect.get(json, 'id');
  return typeof id === 'string' && id !== '' ? id : undefined;
}

function failure(eventId: string | undefined, problems: string[]): ParseResult<never> {
  const subject = eventId === undefined ? 'event' : `event ${eventId}`;
  const message = `${subject} is not a valid ADK event: ${problems.join('; ')}`;
  return {
    success: false,
    error: eventId === undefined ? { problems, message } : { eventId, problems, message },
  };
}

/** `parts[0].functionCall.id: expected string, received number`: the path, never the value. */
function formatIssues(issues: readonly z.core.$ZodIssue[]): string[] {
  return issues.map((issue) => `${formatPath(issue.path) || '(root)'}: ${issue.message}`);
}

function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out === '' ? String(key) : `.${String(key)}`;
  }
  return out;
}

const sessionSchema = withAliases(
  { app_name: 'appName', user_id: 'userId', last_update_time: 'lastUpdateTime' },
  z.object({
    id: z.string().min(1),
    appName: z.string(),
    userId: z.string(),
    state: absentable(jsonObjectSchema).transform((state) => state ?? {}),
    events: absentable(z.array(z.unknown())).transform((events) => events ?? []),
    lastUpdateTime: absentable(epochMsSchema),
  }),
);

export interface AdkSession {
  id: string;
  appName: string;
  userId: string;
  state: JsonObject;
  /** Oldest first; partial events are never stored. */
  events: AdkEvent[];
  /** Epoch milliseconds. */
  lastUpdateTime?: number;
}

/** Parses a session as `GET`/`POST /apps/{app}/users/{user}/sessions/...` returns it. */
export function parseSession(json: unknown): ParseResult<AdkSession> {
  const result = sessionSchema.safeParse(json);
  if (!result.success) {
    const problems = formatIssues(result.error.issues);
    return {
      success: false,
      error: { problems, message: `not a valid ADK session: ${problems.join('; ')}` },
    };
  }
  const { events: rawEvents, lastUpdateTime, ...rest } = result.data;
  const events: AdkEvent[] = [];
  for (const [index, raw] of rawEvents.entries()) {
    const event = parseEvent(raw);
    if (!event.success) {
      const problems = event.error.problems.map((problem) => `events[${index}]: ${problem}`);
      const failure: ParseFailure = {
        problems,
        message: `session ${rest.id} holds an invalid event at index ${index}: ${event.error.message}`,
      };
      if (event.error.eventId !== undefined) failure.eventId = event.error.eventId;
      return { success: false, error: failure };
    }
    events.push(event.data);
  }
  const session: AdkSession = { ...rest, events };
  if (lastUpdateTime !== undefined) session.lastUpdateTime = lastUpdateTime;
  return { success: true, data: session };
}

// ---------------------------------------------------------------------------------------------
// Finding gates

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
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const path = formatPath(issue.path);
      problems.push(`${at}.${field}${path === '' ? '' : `.${path}`}: ${issue.message}`);
    }
  }
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
 * The confirmation call ids a user has already answered in this history. A gate whose id is here
 * must not be answered again: ADK runs nothing the second time but still spends a model turn.
 */
export function answeredConfirmationIds(events: readonly AdkEvent[]): Set<string> {
  const answered = new Set<string>();
  for (const event of events) {
    if (event.author !== USER_AUTHOR) continue;
    for (const part of event.content?.parts ?? []) {
      const response = part.functionResponse;
      if (response?.name === REQUEST_CONFIRMATION && response.id !== undefined) {
        answered.add(response.id);
      }
    }
  }
  return answered;
}

// ---------------------------------------------------------------------------------------------
// Resuming

export interface ResumeMessage {
  newMessage: Content;
  /** Present only for resumable targets (Python apps with resumability; JS ignores it). */
  invocationId?: string;
}

/**
 * The message that answers every gate of one pause: one `functionResponse` per gate with the
 * bare `{confirmed, payload?}` body, the only shape every ADK flavour reads correctly (JS treats
 * `"true"`, wrappers and `{}` as a rejection). Throws `AdkError('invalid_resume')` unless the
 * decisions answer exactly these gates.
 */
export function buildResume(
  gates: readonly Gate[],
  decisions: ReadonlyMap<string, Decision> | Readonly<Record<string, Decision>>,
  options: { resumable: boolean },
): ResumeMessage {
  if (gates.length === 0) throw new AdkError('invalid_resume', 'a resume needs at least one gate');
  const byId: ReadonlyMap<string, Decision> =
    decisions instanceof Map ? decisions : new Map(Object.entries(decisions));

  const gateIds = new Set<string>();
  for (const gate of gates) {
    if (gateIds.has(gate.confirmationCallId)) {
      throw new AdkError('invalid_resume', `gate ${gate.confirmationCallId} is listed twice`);
    }
    gateIds.add(gate.confirmationCallId);
  }
  const undecided = [...gateIds].filter((id) => !byId.has(id));
  const unknown = [...byId.keys()].filter((id) => !gateIds.has(id));
  if (undecided.length > 0 || unknown.length > 0) {
    const problems = [
      ...(undecided.length > 0 ? [`no decision for gate ${undecided.join(', ')}`] : []),
      ...(unknown.length > 0
        ? [`a decision names no gate of this pause: ${unknown.join(', ')}`]
        : []),
    ];
    throw new AdkError(
      'invalid_resume',
      `a resume must answer every gate of the pause: ${problems.join('; ')}`,
    );
  }

  const parts: Part[] = gates.map((gate) => {
    const decision = byId.get(gate.confirmationCallId);
    if (decision === undefined || typeof decision.confirmed !== 'boolean') {
      throw new AdkError(
        'invalid_resume',
        `the decision for gate ${gate.confirmationCallId} has no boolean "confirmed"`,
      );
    }
    const response: JsonObject =
      decision.payload === undefined
        ? { confirmed: decision.confirmed }
        : { confirmed: decision.confirmed, payload: decision.payload };
    return {
      functionResponse: { id: gate.confirmationCallId, name: REQUEST_CONFIRMATION, response },
    };
  });
  const message: ResumeMessage = { newMessage: { role: 'user', parts } };
  if (!options.resumable) return message;

  const invocationIds = new Set(gates.map((gate) => gate.invocationId));
  const [invocationId] = invocationIds;
  if (invocationIds.size !== 1 || invocationId === undefined) {
    throw new AdkError(
      'invalid_resume',
      'a resumable target needs the one invocation id all gates of the pause share',
    );
  }
  message.invocationId = invocationId;
  return message;
}

// ---------------------------------------------------------------------------------------------
// Reading a run as it streams

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
 * the framework's reserved ones and Python's "requires confirmation" placeholder.
 */
export function toolResults(event: AdkEvent): ToolResult[] {
  if (isPartial(event) || event.author === USER_AUTHOR) return [];
  const results: ToolResult[] = [];
  for (const part of event.content?.parts ?? []) {
    const response = part.functionResponse;
    if (response === undefined || RESERVED_FUNCTION_NAMES.has(response.name)) continue;
    const error = errorOf(response.response);
    if (error === CONFIRMATION_PLACEHOLDER_ERROR) continue;
    const status =
      error === undefined
        ? 'ok'
        : typeof error === 'string' && REJECTION_ERRORS.has(error)
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
