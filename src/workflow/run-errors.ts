import type { AdkError } from '../adk/errors.js';
import type { RunError } from '../approvals/outcomes.js';

/** What the thread says about a failed ADK call. */
export function runErrorOf(error: AdkError): RunError {
  switch (error.reason) {
    case 'network':
    case 'aborted':
      return { kind: 'unreachable' };
    case 'timeout':
      return { kind: 'timeout' };
    case 'http':
      return {
        kind: 'http',
        status: error.status ?? 0,
        ...(error.serverMessage === undefined ? {} : { message: error.serverMessage }),
      };
    case 'stream_error':
      return error.intentMismatch
        ? { kind: 'not_applied', reason: error.intentMismatch.reason }
        : { kind: 'error_frame', message: error.serverMessage ?? error.message };
    case 'protocol':
    case 'invalid_resume':
      return { kind: 'unreadable', message: error.message };
    case 'ended_early':
      return { kind: 'ended_early' };
  }
}
