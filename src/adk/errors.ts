/**
 * Why a call to the ADK API server, or the preparation of one, failed:
 * - `http`: the server answered with a non-2xx status (`status` is set);
 * - `network`: no answer (connection refused or reset, DNS, a broken stream);
 * - `timeout`: one of the client's time limits ran out;
 * - `aborted`: the caller's `AbortSignal` fired;
 * - `protocol`: the server answered something this client cannot read (bad JSON, wrong shape,
 *   an SSE frame over the size limit);
 * - `stream_error`: a `data: {"error": ...}` frame inside an HTTP 200 stream, which ADK sends
 *   when the run fails after the headers went out (`intentMismatch` is set when the message is
 *   ADK's IntentMismatchError: the decision was not applied);
 * - `invalid_resume`: a resume that would not answer exactly the gates of one pause; nothing was
 *   sent;
 * - `ended_early`: an HTTP 200 stream that ended before the agent's final event, with no error
 *   frame: ADK Java's api_server fails a run so (its `SseEmitter.completeWithError` closes a
 *   committed stream and writes nothing).
 */
export type AdkErrorReason =
  | 'http'
  | 'network'
  | 'timeout'
  | 'aborted'
  | 'protocol'
  | 'stream_error'
  | 'invalid_resume'
  | 'ended_early';

/** ADK's refusal to apply a confirmation: `Tool confirmation rejected for function call '<id>': <reason>.` */
export interface IntentMismatch {
  /**
   * The confirmation call id or the original call id, depending on `reason`: ADK JS 2.0 names
   * the gate for `untrusted_request` and `malformed_request`, the original call otherwise.
   */
  callId: string;
  /** e.g. `confirmation_not_required`, `unknown_original_call`, `arguments_mismatch`. */
  reason: string;
}

export interface AdkErrorOptions {
  status?: number;
  /** The server's own message, already truncated. */
  serverMessage?: string;
  intentMismatch?: IntentMismatch;
  cause?: unknown;
}

/**
 * The one error type of the ADK client. Messages carry the server's message (truncated) and
 * never a request body, tool arguments or payloads.
 */
export class AdkError extends Error {
  override readonly name = 'AdkError';
  readonly reason: AdkErrorReason;
  readonly status?: number;
  readonly serverMessage?: string;
  readonly intentMismatch?: IntentMismatch;

  constructor(reason: AdkErrorReason, message: string, options: AdkErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.reason = reason;
    if (options.status !== undefined) this.status = options.status;
    if (options.serverMessage !== undefined) this.serverMessage = options.serverMessage;
    if (options.intentMismatch !== undefined) this.intentMismatch = options.intentMismatch;
  }
}

const MAX_SERVER_MESSAGE = 500;

/** Shortens a message from the server so that an error never carries a whole response. */
export function truncateServerMessage(message: string, max = MAX_SERVER_MESSAGE): string {
  const oneLine = message.replace(/\s+/g, ' ').trim();
  return oneLine.length <= max ? oneLine : `${oneLine.slice(0, max - 1)}…`;
}
