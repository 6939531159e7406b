import { z } from 'zod';
import { ATTESTATION_VERSION, type JsonValue } from './attestation.js';

/**
 * What the approvals API answers, parsed at the plugin's edge: nothing past these schemas
 * handles `unknown`. Unknown fields are allowed, so a newer service does not break an older
 * plugin; the fields the plugin acts on are checked.
 */

export const jsonValueSchema: z.ZodType<JsonValue> = z.lazy(() =>
  z.union([
    z.null(),
    z.boolean(),
    z.number(),
    z.string(),
    z.array(jsonValueSchema),
    z.record(z.string(), jsonValueSchema),
  ]),
);

const hex64 = z.string().regex(/^[0-9a-f]{64}$/, 'expected 64 lowercase hex digits');

export const gateAttestationSchema = z.object({
  version: z.literal(ATTESTATION_VERSION),
  callId: z.string().min(1),
  originalCallId: z.string().min(1),
  tool: z.string().min(1),
  argsSha256: hex64,
  confirmed: z.boolean(),
  payloadSha256: z.union([hex64, z.literal('')]),
  expiresAt: z.number().int(),
  signature: hex64,
});

/** The one kind of part a decision's `newMessage` holds: the answer to a confirmation or input request. */
const functionResponsePartSchema = z.object({
  functionResponse: z.object({
    id: z.string().min(1),
    name: z.string().min(1),
    response: z.record(z.string(), jsonValueSchema),
  }),
});

/**
 * Who decided a gate, in the one shape the service uses everywhere (docs/api.md): `kind` is
 * `person`, `policy`, `grant`, `agent` (the agent's own cancel) or `expiry`; `id` the Slack user
 * id, the rule's name, the grant's id, the API key's name, or `system`. Any `kind` string is
 * accepted, so that a newer service's kind does not make an older plugin refuse a decision.
 */
export const decidedBySchema = z.object({
  kind: z.string(),
  id: z.string(),
  /** A person's Slack display name. */
  name: z.string().optional(),
  /** The SHA-256 of the policy file whose rule decided. */
  policyVersion: z.string().optional(),
  /** A person who decided under a hand-over while away: the Slack user id they decided for. */
  onBehalfOf: z.string().optional(),
});
export type DecidedBy = z.infer<typeof decidedBySchema>;

export const decisionSchema = z.object({
  id: z.string().min(1),
  status: z.enum(['decided', 'cancelled']),
  gates: z.array(
    z.object({
      callId: z.string(),
      tool: z.string(),
      confirmed: z.boolean(),
      payload: jsonValueSchema.optional(),
      reason: z.string().optional(),
      /** Absent from services older than the one shape. */
      decidedBy: decidedBySchema.optional(),
    }),
  ),
  newMessage: z
    .object({ role: z.literal('user'), parts: z.array(functionResponsePartSchema).min(1) })
    .optional(),
  attestation: z.object({ keyName: z.string(), gates: z.array(gateAttestationSchema) }),
});
export type Decision = z.infer<typeof decisionSchema>;

export const createdPauseSchema = z.object({
  id: z.string().min(1),
  status: z.string(),
  gates: z.array(z.object({ callId: z.string().min(1), tool: z.string() })),
  card: z.object({ channel: z.string(), ts: z.string().nullable() }),
});
export type CreatedPause = z.infer<typeof createdPauseSchema>;

/** `POST /v1/pauses` for events that ask only what nobody can answer in Slack: a notice, no pause. */
export const unsupportedAnswerSchema = z.object({
  status: z.literal('unsupported'),
  channel: z.string(),
  unsupported: z.array(z.object({ kind: z.string(), tool: z.string() })),
});
export type UnsupportedAnswer = z.infer<typeof unsupportedAnswerSchema>;

export const pendingSchema = z.object({ id: z.string(), status: z.literal('pending') });

/**
 * Decided, but held back until `holdUntil` (ISO time): the rule's undo window runs and the
 * approval may still be taken back. Not a decision: keep waiting.
 */
export const heldSchema = z.object({
  id: z.string(),
  status: z.literal('held'),
  holdUntil: z.iso.datetime(),
});

/** What `…/decision` answers with 202: nothing to act on yet. */
export const notYetSchema = z.discriminatedUnion('status', [pendingSchema, heldSchema]);

export const apiErrorSchema = z.object({
  error: z.string(),
  problems: z.array(z.string()).optional(),
});
