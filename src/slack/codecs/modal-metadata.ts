import { LIMITS } from '@adk-slack-approvals/block-kit';
import { z } from 'zod';
import { parseJsonWith } from './action-ids.js';

/**
 * What a modal remembers between opening and submission, in `private_metadata` (at most 3,000
 * characters, JSON). Where the card lives (`channelId`, `messageTs`) lets the submission update
 * it; they are dropped first when the ids would not fit.
 */

const cardSchema = {
  channelId: z.string().min(1).optional(),
  messageTs: z.string().min(1).optional(),
};

/** Edit & approve: `{"pauseId":"p…","callId":"adk-…","channelId":"C…","messageTs":"1.2"}` */
export const editMetadataSchema = z.strictObject({
  pauseId: z.string().min(1),
  callId: z.string().min(1),
  ...cardSchema,
});
export type EditMetadata = z.infer<typeof editMetadataSchema>;

/**
 * Reject: `{"pauseId":"p…","callIds":["adk-…"],…}`. Without `callIds` (too many to fit), the
 * rejection is for every gate of the pause still pending.
 */
export const rejectMetadataSchema = z.strictObject({
  pauseId: z.string().min(1),
  callIds: z.array(z.string().min(1)).min(1).optional(),
  ...cardSchema,
});
export type RejectMetadata = z.infer<typeof rejectMetadataSchema>;

/** JSON within Slack's limit, or `undefined` when even the ids alone do not fit. */
function firstThatFits(candidates: object[]): string | undefined {
  for (const candidate of candidates) {
    const text = JSON.stringify(candidate);
    if (text.length <= LIMITS.privateMetadata) return text;
  }
  return undefined;
}

export function encodeEditMetadata(metadata: EditMetadata): string | undefined {
  const { pauseId, callId } = metadata;
  return firstThatFits([metadata, { pauseId, callId }]);
}

export function encodeRejectMetadata(metadata: RejectMetadata): string | undefined {
  const { pauseId, callIds, channelId, messageTs } = metadata;
  return firstThatFits([
    metadata,
    { pauseId, callIds },
    { pauseId, channelId, messageTs },
    { pauseId },
  ]);
}

export function parseEditMetadata(text: unknown): EditMetadata | undefined {
  return parseJsonWith(editMetadataSchema, text);
}

export function parseRejectMetadata(text: unknown): RejectMetadata | undefined {
  return parseJsonWith(rejectMetadataSchema, text);
}
