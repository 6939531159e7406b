import { createHash, createHmac } from 'node:crypto';
import type { JsonValue } from '../json.js';

/**
 * The attestation of a decided gate: an HMAC-SHA256, keyed with the posting API key's signing
 * secret, over what the decision allows: the pause, the gate, the tool, a hash of its exact
 * arguments, the answer, a hash of the approved payload, and an expiry. A plugin holding the
 * secret verifies it offline; a forged `{confirmed: true}` or a decision for other arguments
 * has no valid signature. HMAC rather than Ed25519 because Python's standard library verifies
 * HMAC and not Ed25519 (see docs/api.md).
 */

export const ATTESTATION_VERSION = 'adk-approvals/attestation/v1';

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

export interface GateAttestation {
  version: typeof ATTESTATION_VERSION;
  callId: string;
  originalCallId: string;
  tool: string;
  argsSha256: string;
  confirmed: boolean;
  /** Empty when the decision carries no payload. */
  payloadSha256: string;
  expiresAt: number;
  /** Hex HMAC-SHA256(signing secret, `attestationMessage`). */
  signature: string;
}

/**
 * JSON with object keys sorted and no whitespace, numbers and strings as `JSON.stringify` writes
 * them: the same value always gives the same text, whichever order its keys arrived in.
 */
export function canonicalJson(value: JsonValue): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const keys = Object.keys(value).sort();
  return `{${keys
    .map((key) => `${JSON.stringify(key)}:${canonicalJson(value[key] ?? null)}`)
    .join(',')}}`;
}

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** The signed text: a JSON array, so that no field can run into the next. */
export function attestationMessage(
  fields: Omit<GateAttestation, 'signature' | 'version'> & { pauseId: string },
): string {
  return JSON.stringify([
    ATTESTATION_VERSION,
    fields.pauseId,
    fields.callId,
    fields.originalCallId,
    fields.tool,
    fields.argsSha256,
    fields.confirmed,
    fields.payloadSha256,
    fields.expiresAt,
  ]);
}

export function attestGate(secret: string, gate: AttestedGate): GateAttestation {
  const fields = {
    pauseId: gate.pauseId,
    callId: gate.callId,
    originalCallId: gate.originalCallId,
    tool: gate.tool,
    argsSha256: sha256Hex(canonicalJson(gate.args)),
    confirmed: gate.confirmed,
    payloadSha256: gate.payload === undefined ? '' : sha256Hex(canonicalJson(gate.payload)),
    expiresAt: gate.expiresAt,
  };
  const signature = createHmac('sha256', secret).update(attestationMessage(fields)).digest('hex');
  const { pauseId: _, ...attested } = fields;
  return { version: ATTESTATION_VERSION, ...attested, signature };
}
