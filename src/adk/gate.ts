import { z } from 'zod';
import { type JsonValue, jsonObjectSchema, jsonValueSchema } from '../json.js';

/** What a gate waits for: a yes or no on a tool call, or a person's structured answer. */
export const GATE_KINDS = ['confirmation', 'input'] as const;
export type GateKind = (typeof GATE_KINDS)[number];

/**
 * An input request's content (`adk_request_input`, from `requestInputTool` or a Workflow
 * `RequestInput` node): what to ask, and the JSON Schema the answer must satisfy.
 */
export const inputRequestSchema = z.object({
  message: z.string().optional(),
  payload: jsonValueSchema.optional(),
  responseSchema: jsonValueSchema.optional(),
});

/**
 * One pending request to people: a gated tool call waiting for a decision, or an input request
 * waiting for an answer. The gates one stream leaves pending form one pause, answered together in
 * one message.
 */
export const gateSchema = z.object({
  /** Absent: a confirmation (every record written before input requests became gates). */
  kind: z.enum(GATE_KINDS).optional(),
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
  /** Only on input gates, whose `originalCall` is the `adk_request_input` call itself. */
  input: inputRequestSchema.optional(),
});
export type Gate = z.infer<typeof gateSchema>;

/**
 * The hint ADK gives a `requireConfirmation` tool's confirmation when the tool gives none: the
 * same words in ADK JS and Python, with the tool's name.
 */
export function adkDefaultHint(toolName: string): string {
  return `Please approve or reject the tool call ${toolName}() by responding with a FunctionResponse with an expected ToolConfirmation payload.`;
}

export function gateKind(gate: Pick<Gate, 'kind'>): GateKind {
  return gate.kind ?? 'confirmation';
}

/**
 * The answer to one gate. A confirmation is sent as the bare `{confirmed, payload?}` that every
 * ADK accepts; an input gate is answered by an approval whose payload is the person's answer.
 */
export interface Decision {
  confirmed: boolean;
  payload?: JsonValue;
}
