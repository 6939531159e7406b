import {
  attestationSignedBy,
  canonicalJson,
  type GateAttestation,
  type JsonValue,
  payloadSha256,
  sha256Hex,
} from './attestation.js';

/**
 * What the plugin does with a tool call that carries a confirmation. ADK checks nothing about
 * who confirmed (anyone who can reach the runner may send `{confirmed: true}`, adk-python
 * #6461) and does not stop a custom tool that ignores a deny (#7148); this decides instead.
 *
 * - `attested` (default): the call runs only on a decision the service signed for this call id,
 *   this tool, these exact arguments and this exact answer, not expired and not used before;
 * - `deny-only`: any `{confirmed: false}` is refused, whoever sent it; approvals are trusted;
 * - `off`: ADK's own behaviour.
 */
export type EnforcementMode = 'attested' | 'deny-only' | 'off';

export type RefusalReason =
  /** The service attested no decision for this call: forged, or sent before anyone decided. */
  | 'no_decision'
  /** The decision (or the answer sent) is a deny. */
  | 'denied'
  | 'bad_signature'
  | 'expired'
  | 'tool_mismatch'
  /** The decision was made for other arguments than the call carries. */
  | 'arguments_mismatch'
  /** The answer the runner received differs from the decision (confirmed or payload). */
  | 'answer_mismatch'
  /** The decision was already used to run this call once. */
  | 'already_used'
  /** Another process claimed the decision on the service first: it runs the call, not this one. */
  | 'claimed_elsewhere'
  /** The service could not record the claim, so single use cannot be checked (fail closed). */
  | 'claim_unavailable'
  | 'arguments_not_json';

export type CallVerdict =
  | { kind: 'run'; attested?: { pauseId: string; callId: string } }
  | { kind: 'refuse'; reason: RefusalReason; pause?: { pauseId: string; callId: string } };

export interface AttestedDecision {
  pauseId: string;
  attestation: GateAttestation;
}

export interface ConfirmedCall {
  /** The gated call's id (ADK's `functionCallId`). */
  id: string;
  tool: string;
  /** `undefined` when the arguments are not JSON. */
  args: JsonValue | undefined;
  confirmation: { confirmed: boolean; payload: JsonValue | undefined };
}

/** Pure: the verdict on one confirmed call, from the decisions the plugin holds for it. */
export function judgeConfirmedCall(input: {
  mode: EnforcementMode;
  call: ConfirmedCall;
  decisions: readonly AttestedDecision[];
  secret: string;
  /** Unix seconds. */
  now: number;
  used: boolean;
}): CallVerdict {
  const { mode, call } = input;
  if (mode === 'off') return { kind: 'run' };
  if (mode === 'deny-only') {
    return call.confirmation.confirmed ? { kind: 'run' } : { kind: 'refuse', reason: 'denied' };
  }
  if (call.args === undefined) return { kind: 'refuse', reason: 'arguments_not_json' };
  const argsSha256 = sha256Hex(canonicalJson(call.args));
  let first: CallVerdict | undefined;
  // Several decisions may name this call id (a tampered post, a replay); one that fits is enough.
  for (const { pauseId, attestation } of input.decisions) {
    if (attestation.originalCallId !== call.id) continue;
    const pause = { pauseId, callId: attestation.callId };
    const verdict = ((): CallVerdict => {
      if (!attestationSignedBy(input.secret, pauseId, attestation))
        return { kind: 'refuse', reason: 'bad_signature', pause };
      if (attestation.expiresAt <= input.now) return { kind: 'refuse', reason: 'expired', pause };
      if (attestation.tool !== call.tool) return { kind: 'refuse', reason: 'tool_mismatch', pause };
      if (attestation.argsSha256 !== argsSha256)
        return { kind: 'refuse', reason: 'arguments_mismatch', pause };
      if (!attestation.confirmed) return { kind: 'refuse', reason: 'denied', pause };
      if (
        !call.confirmation.confirmed ||
        attestation.payloadSha256 !== payloadSha256(call.confirmation.payload)
      )
        return { kind: 'refuse', reason: 'answer_mismatch', pause };
      if (input.used) return { kind: 'refuse', reason: 'already_used', pause };
      return { kind: 'run', attested: pause };
    })();
    if (verdict.kind === 'run') return verdict;
    first ??= verdict;
  }
  return first ?? { kind: 'refuse', reason: 'no_decision' };
}
