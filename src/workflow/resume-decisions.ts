import type { Decision } from '../adk/gate.js';
import { type GateRecord, type PauseView, policyRuleOf } from '../approvals/records.js';
import type { JsonObject, JsonValue } from '../json.js';

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
    case 'expired':
      if (timedOut(gate)) return { confirmed: false, payload: timedOutPayload(gate) };
      return refusal(gate);
    case 'rejected':
      return refusal(gate);
    case 'withdrawn':
      return { confirmed: false, payload: withdrawalPayload(gate) };
    case 'pending':
    case 'cancelled':
      throw new Error(`gate ${gate.confirmationCallId} is ${gate.state}: it has no answer to send`);
  }
}

function refusal(gate: GateRecord): Decision {
  const payload = withReason(gate.payloadTemplate, rejectionReason(gate));
  return payload === undefined ? { confirmed: false } : { confirmed: false, payload };
}

/** Whether the gate expired under `onExpiry: timeout`: answered as timed out, not rejected. */
export function timedOut(gate: GateRecord): boolean {
  return gate.state === 'expired' && gate.policy.onExpiry === 'timeout';
}

/**
 * `onExpiry: timeout`: still `confirmed: false` (the only "no" ADK has), but the payload always
 * says why, so a tool that reads `toolConfirmation.payload`, and an agent elsewhere, can tell a
 * time-out from a rejection: an object template's fields, plus `timedOut: true` and `expiredAt`
 * (epoch ms). The exact shape is documented in docs/api.md.
 */
export function timedOutPayload(gate: GateRecord): JsonObject {
  return {
    ...templateFields(gate),
    timedOut: true,
    expiredAt: gate.decision?.at ?? gate.expiresAt ?? 0,
  };
}

export const TIMED_OUT_REASON =
  'Nobody decided in time: the request timed out. It was not rejected; ask again if it is still needed.';

/**
 * What a withdrawn gate's refusal carries, so that the agent can tell it from a rejection (ADK
 * reads `confirmed: false` either way): `{withdrawn: true, withdrawnBy, reason?}` beside the
 * template's fields, if the tool proposed an object. Documented in docs/api.md.
 */
export function withdrawalPayload(gate: GateRecord): JsonObject {
  const reason = gate.decision?.reason?.trim();
  return {
    ...templateFields(gate),
    withdrawn: true,
    withdrawnBy: gate.decision?.by ?? 'unknown',
    ...(reason ? { reason } : {}),
  };
}

/** Why a gate was refused, in words for the model; undefined when the approver gave no reason. */
export function rejectionReason(gate: GateRecord): string | undefined {
  if (timedOut(gate)) return TIMED_OUT_REASON;
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

/** The fields of the payload the tool proposed, when it proposed an object; none otherwise. */
function templateFields(gate: GateRecord): JsonObject {
  const template = gate.payloadTemplate;
  return typeof template === 'object' && template !== null && !Array.isArray(template)
    ? template
    : {};
}

function withReason(template: JsonValue | undefined, reason: string | undefined) {
  if (reason === undefined) return undefined;
  if (template === undefined || template === null) return undefined;
  if (typeof template !== 'object' || Array.isArray(template)) return undefined;
  return { ...template, rejectionReason: reason };
}

/**
 * The user message sent after the resume so that the model sees why it was refused, or
 * undefined when no gate of the pause carries a reason. Each refusal is credited to who made it:
 * only people's rejections are "feedback from the human approvers"; a policy's denial, an expiry
 * and a withdrawal say what they are, so the agent never thanks approvers for a rule.
 */
export function rejectionFollowUp(view: PauseView): string | undefined {
  const refusals = view.gates.flatMap((gate) => {
    const reason = rejectionReason(gate) ?? withdrawalNote(gate);
    if (reason === undefined) return [];
    const rule = gate.state === 'rejected' ? policyRuleOf(gate.decision?.by ?? '') : undefined;
    const byPerson = gate.state === 'rejected' && rule === undefined;
    return [{ tool: gate.originalCall.name, reason, rule, byPerson }];
  });
  if (refusals.length === 0) return undefined;
  if (refusals.every(({ byPerson }) => byPerson)) {
    return [
      'Feedback from the human approvers on the tool calls that were not approved:',
      ...refusals.map(({ tool, reason }) => `- ${tool}: ${reason}`),
    ].join('\n');
  }
  const lines = refusals.map(({ tool, reason, rule, byPerson }) => {
    if (rule !== undefined) {
      return `- ${tool}: denied by the approval policy (rule ${rule}), not by a person: ${reason}`;
    }
    return `- ${tool}: ${byPerson ? `rejected by an approver: ${reason}` : reason}`;
  });
  return ['Why these tool calls were not approved:', ...lines].join('\n');
}
