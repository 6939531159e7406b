import {
  ATTESTATION_VERSION,
  attestationSignature,
  canonicalJson,
  type GateAttestation,
  payloadSha256,
  sha256Hex,
} from '@adk-slack-approvals/adk-approvals/attestation';
import type { JsonValue } from '../json.js';

/**
 * Signs the decision of a gate for the agent that posted it. The signed text and its hashes live
 * in the plugin package (`@adk-slack-approvals/adk-approvals/attestation`), the one definition
 * the service and the plugins that verify it share. HMAC rather than Ed25519 because Python's
 * standard library verifies HMAC and not Ed25519 (see docs/api.md).
 */

export type { GateAttestation };

export interface AttestedGate {
  pauseId: string;
  /** The `adk_request_confirmation` call id the decision answers. */
  callId: string;
  /** The gated tool call's own id: what the plugin sees in `beforeToolCallback`. */
  originalCallId: string;
  tool: string;
  args: JsonValue;
  confirmed: boolean;
  payload: JsonValue | undefined;
  /** Unix seconds. */
  expiresAt: number;
}

export function attestGate(secret: string, gate: AttestedGate): GateAttestation {
  const fields = {
    pauseId: gate.pauseId,
    callId: gate.callId,
    originalCallId: gate.originalCallId,
    tool: gate.tool,
    argsSha256: sha256Hex(canonicalJson(gate.args)),
    confirmed: gate.confirmed,
    payloadSha256: payloadSha256(gate.payload),
    expiresAt: gate.expiresAt,
  };
  const signature = attestationSignature(secret, fields);
  const { pauseId: _, ...attested } = fields;
  return { version: ATTESTATION_VERSION, ...attested, signature };
}
