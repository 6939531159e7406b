import { z } from 'zod';

/**
 * The parts of Slack's payloads the listeners use, parsed once at the edge. Bolt's own types
 * describe what Slack may send; these schemas check what actually arrived.
 */

export const agentCommandSchema = z.object({
  team_id: z.string().optional(),
  channel_id: z.string().min(1),
  user_id: z.string().min(1),
  text: z.string(),
});

export const blockActionSchema = z.object({
  user: z.object({ id: z.string().min(1) }),
  trigger_id: z.string().min(1),
  channel: z.object({ id: z.string().min(1) }).optional(),
  message: z.object({ ts: z.string().min(1), thread_ts: z.string().optional() }).optional(),
  /** Present on clicks in a view: `home` for the App Home tab. */
  view: z.object({ type: z.string() }).optional(),
  actions: z
    .array(
      z.object({
        action_id: z.string(),
        value: z.string().optional(),
        selected_option: z.object({ value: z.string() }).optional(),
      }),
    )
    .min(1),
});
export type BlockAction = z.infer<typeof blockActionSchema>;

export const viewSubmissionSchema = z.object({
  user: z.object({ id: z.string().min(1) }),
  view: z.object({
    /** The modal's id, for `views.update` after the ack. */
    id: z.string().min(1).optional(),
    private_metadata: z.string(),
    state: z.object({ values: z.unknown() }),
  }),
});

/** The envelope of an Events API delivery: the id Slack keeps on every retry of one event. */
export const eventEnvelopeSchema = z.object({
  event_id: z.string().min(1),
  team_id: z.string().optional(),
});

/**
 * A `message` or `app_mention` event. `subtype` and `bot_id` are read only to leave out what is
 * not a person's new message: the app's own posts, other bots, edits, deletions, joins.
 */
export const messageEventSchema = z.object({
  type: z.enum(['message', 'app_mention']),
  subtype: z.string().optional(),
  bot_id: z.string().optional(),
  user: z.string().min(1).optional(),
  channel: z.string().min(1),
  text: z.string().optional(),
  ts: z.string().min(1),
  thread_ts: z.string().optional(),
});

export const appHomeOpenedSchema = z.object({
  user: z.string().min(1),
  /** `home` or `messages`: only the Home tab has a view to publish. */
  tab: z.string().optional(),
});
