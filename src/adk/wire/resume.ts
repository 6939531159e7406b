import type { JsonObject, JsonValue } from '../../json.js';
import { AdkError } from '../errors.js';
import { type Decision, type Gate, gateKind } from '../gate.js';
import { type Content, type Part, REQUEST_CONFIRMATION, REQUEST_INPUT } from './events.js';

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
    if (gateKind(gate) === 'input') return inputAnswer(gate, decision);
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

/**
 * An input request is answered with `adk_request_input` and the answer as the response: an object
 * as it is (ADK JS checks it against the request's schema), any other value wrapped as
 * `{result: value}`, which ADK unwraps (`unwrapResponse` in its workflow rehydration). There is no
 * "no" to an input request: without an approved answer nothing can be sent.
 */
function inputAnswer(gate: Gate, decision: Decision): Part {
  const answer = decision.payload;
  if (!decision.confirmed || answer === undefined) {
    throw new AdkError(
      'invalid_resume',
      `input request ${gate.confirmationCallId} has no answer: an input request can only be answered`,
    );
  }
  return {
    functionResponse: {
      id: gate.confirmationCallId,
      name: REQUEST_INPUT,
      response: answerResponse(answer),
    },
  };
}

function answerResponse(answer: JsonValue): JsonObject {
  return typeof answer === 'object' && answer !== null && !Array.isArray(answer)
    ? answer
    : { result: answer };
}
