import type { AdkError } from './errors.js';

/**
 * The two known ways an ADK server refuses a resume's `invocationId`, both before the message is
 * stored (so resending without it cannot answer anything twice):
 * - Python, for an app without resumability: `invocation_id: <id> is provided but the app is not
 *   resumable.` (a ValueError, streamed as an error frame);
 * - Go, whose API server decodes the request strictly: HTTP 400 naming the unknown field.
 */
const PYTHON_NOT_RESUMABLE = /is provided but the app is not resumable/i;
const GO_UNKNOWN_FIELD = /unknown field "?invocationId"?/i;

export function isResumabilityRefusal(error: AdkError): boolean {
  const message = error.serverMessage ?? error.message;
  switch (error.reason) {
    case 'stream_error':
      return PYTHON_NOT_RESUMABLE.test(message);
    case 'http':
      return (
        PYTHON_NOT_RESUMABLE.test(message) ||
        (error.status === 400 && GO_UNKNOWN_FIELD.test(message))
      );
    default:
      return false;
  }
}
