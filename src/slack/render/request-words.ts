import { type Gate, gateKind } from '../../adk/gate.js';

/**
 * The words a card and its thread lines use for what waits on people: tool calls to approve,
 * questions to answer (`adk_request_input`), or both on one card. A card whose only gate is a
 * question must not read "Approval needed" or "Approved by".
 */
export type Asking = 'approval' | 'input' | 'both';

export function askingOf(gates: readonly Pick<Gate, 'kind'>[]): Asking {
  const input = gates.filter((gate) => gateKind(gate) === 'input').length;
  if (input === 0) return 'approval';
  return input === gates.length ? 'input' : 'both';
}

const HEADINGS: Record<Asking, { needed: string; request: string; emoji: string }> = {
  approval: { needed: 'Approval needed', request: 'Approval request', emoji: ':raised_hand:' },
  input: { needed: 'Input needed', request: 'Input request', emoji: ':speech_balloon:' },
  both: {
    needed: 'Approval and input needed',
    request: 'Approval and input request',
    emoji: ':raised_hand:',
  },
};

/** "Approval needed", "Input needed", "Approval and input needed". */
export function neededHeading(asking: Asking): string {
  return HEADINGS[asking].needed;
}

/** The heading once nothing waits: "Approval request", "Input request"… */
export function requestHeading(asking: Asking): string {
  return HEADINGS[asking].request;
}

export function askingEmoji(asking: Asking): string {
  return HEADINGS[asking].emoji;
}

/** "2 of 3 tool calls wait for a decision." and its input and mixed forms. */
export function waitingLine(asking: Asking, waiting: number, total: number): string {
  switch (asking) {
    case 'approval':
      return `${waiting} of ${total} tool calls wait for a decision.`;
    case 'input':
      return `${waiting} of ${total} questions wait for an answer.`;
    case 'both':
      return `${waiting} of ${total} requests wait for a decision or an answer.`;
  }
}

/** "Every call is decided", "Every question is answered", "Every request is decided". */
export function allDecided(asking: Asking): string {
  switch (asking) {
    case 'approval':
      return 'Every call is decided';
    case 'input':
      return 'Every question is answered';
    case 'both':
      return 'Every request is decided';
  }
}

/** "approve", "answer", "approve or answer": what the people a card names may do. */
export function mayVerb(asking: Asking): string {
  switch (asking) {
    case 'approval':
      return 'approve';
    case 'input':
      return 'answer';
    case 'both':
      return 'approve or answer';
  }
}
