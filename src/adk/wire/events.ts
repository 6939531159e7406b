import { z } from 'zod';
import { type JsonObject, type JsonValue, jsonObjectSchema, jsonValueSchema } from '../../json.js';
import { absentable, epochMsSchema, formatIssues, withAliases } from './tolerant-schema.js';

/**
 * ADK events and sessions as the API server streams and stores them, parsed once at the edge
 * into one camelCase shape whatever the flavour (JS: camelCase, epoch ms; Python: may send
 * snake_case keys and float-second timestamps).
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
export const USER_AUTHOR = 'user';

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

/**
 * Parts of kinds this app does not use (inline data, code execution…) parse as `{}`. adk-rs may
 * serialise a part as an externally tagged enum (`{"FunctionResponse": {…}}`, `{"Text": "…"}`):
 * read as the same part, so that a pause it raises is never missed.
 */
const partSchema = z.preprocess(
  untagPart,
  withAliases(
    { function_call: 'functionCall', function_response: 'functionResponse' },
    z.object({
      text: absentable(z.string()),
      thought: absentable(z.boolean()),
      functionCall: absentable(functionCallSchema),
      functionResponse: absentable(functionResponseSchema),
    }),
  ),
);

const TAGGED_PARTS: Readonly<Record<string, string>> = {
  FunctionCall: 'functionCall',
  FunctionResponse: 'functionResponse',
  Text: 'text',
};

/** `{"FunctionCall": x}` → `{"functionCall": x}`; `{"Text": {"text": t}}` → `{"text": t}`. */
function untagPart(input: unknown): unknown {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return input;
  const keys = Object.keys(input);
  const [tag] = keys;
  const key = tag === undefined || keys.length !== 1 ? undefined : TAGGED_PARTS[tag];
  if (key === undefined || tag === undefined) return input;
  const value: unknown = Reflect.get(input, tag);
  if (key === 'text' && typeof value === 'object' && value !== null && 'text' in value) {
    return { text: Reflect.get(value, 'text') };
  }
  return { [key]: value };
}

const contentSchema = z.object({
  role: absentable(z.string()),
  parts: absentable(z.array(partSchema)).transform((parts) => parts ?? []),
});

const actionsSchema = withAliases(
  {
    state_delta: 'stateDelta',
    requested_tool_confirmations: 'requestedToolConfirmations',
    requested_auth_configs: 'requestedAuthConfigs',
    skip_summarization: 'skipSummarization',
    transfer_to_agent: 'transferToAgent',
  },
  z.object({
    stateDelta: absentable(jsonObjectSchema),
    /**
     * Keyed by the original call id. Gates are read from the parts; an entry without a matching
     * `adk_request_confirmation` part is a confirmation ADK asked for but did not raise (ADK JS's
     * second confirmation of a resumed tool): see `pendingRequests`.
     */
    requestedToolConfirmations: absentable(z.record(z.string(), jsonValueSchema)),
    /** Keyed by the original call id: the tool asked for credentials; its response is a placeholder. */
    requestedAuthConfigs: absentable(z.record(z.string(), jsonValueSchema)),
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
