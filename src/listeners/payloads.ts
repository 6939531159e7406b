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
    private_metadata: z.string(),
    state: z.object({ values: z.unknown() }),
  }),
});

export const appHomeOpenedSchema = z.object({
  user: z.string().min(1),
  /** `home` or `messages`: only the Home tab has a view to publish. */
  tab: z.string().optional(),
});
