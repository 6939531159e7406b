import { z } from 'zod';

/**
 * `view.state.values` of a submitted modal: `{ [block_id]: { [action_id]: ViewStateValue } }`.
 * Parsed here because it comes from Slack, over the network; only the fields the forms read are
 * kept (Bolt's `ViewStateValue` has more).
 */
const selectedOptionSchema = z.looseObject({ value: z.string() });

export const viewStateValueSchema = z.looseObject({
  type: z.string(),
  value: z.string().nullish(),
  selected_option: selectedOptionSchema.nullish(),
  selected_options: z.array(selectedOptionSchema).nullish(),
  /** A `datepicker`'s `YYYY-MM-DD`. */
  selected_date: z.string().nullish(),
  /** A `datetimepicker`'s instant, in Unix seconds. */
  selected_date_time: z.number().int().nullish(),
  /** A `users_select`'s user id. */
  selected_user: z.string().nullish(),
});
export type StateValue = z.infer<typeof viewStateValueSchema>;

export const viewStateValuesSchema = z.record(
  z.string(),
  z.record(z.string(), viewStateValueSchema),
);
export type ViewStateValues = z.infer<typeof viewStateValuesSchema>;

/** The action id of every input the app builds. */
export const INPUT_ACTION_ID = 'value';
