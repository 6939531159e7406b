import type { Delivery } from './delivery.js';
import type { InteractionResult } from './inputs.js';

/** How a delivery to the app reads to a test, to Slack's slash command errors, and to a person. */

export function outcomeOf(delivery: Delivery): InteractionResult {
  switch (delivery.kind) {
    case 'answered':
      return { answered: true, status: delivery.status, body: delivery.body };
    case 'timeout':
      return { answered: false, reason: 'timeout: the app did not answer within the ack deadline' };
    case 'unreachable':
      return { answered: false, reason: `unreachable: ${delivery.detail}` };
  }
}

/** The error Slack names when a slash command's request fails. */
export function commandError(delivery: Delivery): string {
  switch (delivery.kind) {
    case 'answered':
      return delivery.status >= 500 ? 'http_service_error' : 'http_client_error';
    case 'timeout':
      return 'operation_timeout';
    case 'unreachable':
      return 'dispatch_failed';
  }
}

export function problemText(delivery: Delivery, deadlineMs: number): string {
  switch (delivery.kind) {
    case 'answered':
      return `it answered HTTP ${delivery.status}`;
    case 'timeout':
      return `it did not answer within ${deadlineMs} ms`;
    case 'unreachable':
      return `it could not be reached (${delivery.detail})`;
  }
}
