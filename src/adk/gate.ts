import { z } from 'zod';
import { type JsonValue, jsonObjectSchema, jsonValueSchema } from '../json.js';

/**
 * One pending confirmation: a gated tool call waiting for a human decision. Several gates raised
 * by one ADK event form one pause, and are answered together in one message.
 */
export const gateSchema = z.object({
  /**
   * The id to answer with: the `adk_request_confirmation` function call's own id (JS, Python),
   * or, for adk-rs, the original call's id carried by its `adk_request_confirmation` response.
   */
  confirmationCallId: z.string().min(1),
  /** The tool call that waits: what the approver is asked to allow. */
  originalCall: z.object({
    id: z.string().min(1),
    name: z.string().min(1),
    args: jsonObjectSchema,
  }),
  hint: z.string().optional(),
  /** The structured payload the tool expects back (advanced confirmation), if it asked for one. */
  payloadTemplate: jsonValueSchema.optional(),
  /** The paused invocation; sent back on resume only to targets configured as resumable. */
  invocationId: z.string().optional(),
  /** The agent that raised the gate. */
  author: z.string().optional(),
});
export type Gate = z.infer<typeof gateSchema>;

/** The answer to one gate, sent as the bare `{confirmed, payload?}` that every ADK accepts. */
export interface Decision {
  confirmed: boolean;
  payload?: JsonValue;
}
