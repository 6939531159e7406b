import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The attestation of a decided gate, shared by the service that signs it and the plugin that
 * checks it: one module, so the signed text cannot drift between the two. An HMAC-SHA256, keyed
 * with the API key's signing secret, over the pause, the gate, the tool, a hash of its exact
 * arguments, the answer, a hash of the approved payload and an expiry. HMAC rather than a
 * public-key signature because Python's standard library verifies HMAC and not Ed25519, and the
 * agent side already holds a per-key secret for webhook signatures.
 */

export type JsonValue =
  | null
  | boolean
  | number
  | string
  | JsonValue[]
  | { [key: string]: JsonValue };

export const ATTESTATION_VERSION = 'adk-approvals/attestation/v1';

export interface GateAttestation {
  version: typeof ATTESTATION_VERSION;
  /** The `adk_request_confirmation` call id the decision answers. */
  callId: string;
  /** The gated tool call's own id: what the plugin sees in `beforeToolCallback`. */
  originalCallId: string;
  tool: string;
  argsSha256: string;
  confirmed: boolean;
  /** Empty when the decision carries no payload. */
  payloadSha256: string;
  /** Unix seconds. */
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

/** The hash an attestation carries for a payload: empty for none. */
export function payloadSha256(payload: JsonValue | undefined): string {
  return payload === undefined ? '' : sha256Hex(canonicalJson(payload));
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

export function attestationSignature(
  secret: string,
  fields: Omit<GateAttestation, 'signature' | 'version'> & { pauseId: string },
): string {
  return createHmac('sha256', secret).update(attestationMessage(fields)).digest('hex');
}

/** Whether the service signed this attestation for this pause; compared in constant time. */
export function attestationSignedBy(
  secret: string,
  pauseId: string,
  attestation: GateAttestation,
): boolean {
  const expected = Buffer.from(attestationSignature(secret, { pauseId, ...attestation }), 'hex');
  const given = Buffer.from(attestation.signature, 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}
