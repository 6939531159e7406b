import type { Decision } from '../adk/gate.js';
import type { GateRecord, PauseView } from '../approvals/records.js';
import type { JsonValue } from '../json.js';

/**
 * Turns decided gates into the answers ADK receives. Pure.
 *
 * ADK drops a text part sent beside the function responses, so a reject reason reaches the model
 * twice over: inside the payload, for tools that asked for one (they read it from
 * `toolContext.toolConfirmation.payload`), and as a follow-up user message after the resume.
 */
export function decisionsFor(view: PauseView): Map<string, Decision> {
  const decisions = new Map<string, Decision>();
  for (const gate of view.gates) decisions.set(gate.confirmationCallId, decisionFor(gate));
  return decisions;
}

export function decisionFor(gate: GateRecord): Decision {
  switch (gate.state) {
    case 'approved': {
      // Approving without editing accepts the template as the tool proposed it.
      const payload = gate.decision?.payload ?? gate.payloadTemplate;
      return payload === undefined ? { confirmed: true } : { confirmed: true, payload };
    }
    case 'rejected':
    case 'expired': {
      const reason = rejectionReason(gate);
      const payload = withReason(gate.payloadTemplate, reason);
      return payload === undefined ? { confirmed: false } : { confirmed: false, payload };
    }
    case 'withdrawn':
      return { confirmed: false, payload: withdrawalPayload(gate) };
    case 'pending':
    case 'cancelled':
      throw new Error(`gate ${gate.confirmationCallId} is ${gate.state}: it has no answer to send`);
  }
}

/**
 * What a withdrawn gate's refusal carries, so that the agent can tell it from a rejection (ADK
 * reads `confirmed: false` either way): `{withdrawn: true, withdrawnBy, reason?}` beside the
 * template's fields, if the tool proposed an object. Documented in docs/api.md.
 */
export function withdrawalPayload(gate: GateRecord): { [key: string]: JsonValue } {
  const template = gate.payloadTemplate;
  const base =
    template !== undefined &&
    template !== null &&
    typeof template === 'object' &&
    !Array.isArray(template)
      ? template
      : {};
  const reason = gate.decision?.reason?.trim();
  return {
    ...base,
    withdrawn: true,
    withdrawnBy: gate.decision?.by ?? 'unknown',
    ...(reason ? { reason } : {}),
  };
}

/** Why a gate was refused, in words for the model; undefined when the approver gave no reason. */
export function rejectionReason(gate: GateRecord): string | undefined {
  if (gate.state === 'expired') return 'Nobody decided in time, so it was rejected automatically.';
  if (gate.state !== 'rejected') return undefined;
  const reason = gate.decision?.reason?.trim();
  return reason ? reason : undefined;
}

/** A withdrawn gate's line for the model: ADK shows it only "This tool call is rejected." */
function withdrawalNote(gate: GateRecord): string | undefined {
  if (gate.state !== 'withdrawn') return undefined;
  const reason = gate.decision?.reason?.trim();
  return `not rejected by an approver: the person who asked for it withdrew the request${reason ? ` (${reason})` : ''}.`;
}

function withReason(template: JsonValue | undefined, reason: string | undefined) {
  if (reason === undefined) return undefined;
  if (template === undefined || template === null) return undefined;
  if (typeof template !== 'object' || Array.isArray(template)) return undefined;
  return { ...template, rejectionReason: reason };
}

/**
 * The user message sent after the resume so that the model sees why it was refused, or
 * undefined when no gate of the pause carries a reason.
 */
export function rejectionFollowUp(view: PauseView): string | undefined {
  const lines = view.gates.flatMap((gate) => {
    const reason = rejectionReason(gate) ?? withdrawalNote(gate);
    return reason === undefined ? [] : [`- ${gate.originalCall.name}: ${reason}`];
  });
  if (lines.length === 0) return undefined;
  return [
    'Feedback from the human approvers on the tool calls that were not approved:',
    ...lines,
  ].join('\n');
}
