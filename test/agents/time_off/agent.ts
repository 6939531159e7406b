import { FunctionTool, LlmAgent } from '@google/adk';
import { z } from 'zod';
import { ScriptedLlm } from '../scripted-model/scripted-llm.js';

/**
 * App `time_off`: advanced confirmation. `<days> days off` → `request_time_off({days})`, which
 * asks for confirmation itself with a payload template `{approved_days: <days>}` and reads the
 * approver's payload back:
 * - approved with `{approved_days: n}` → `{status: 'approved', requested_days, approved_days: n}`;
 * - approved without a payload → all requested days are approved;
 * - approved with a payload that has no whole `approved_days` → `{error}`;
 * - rejected → `{status: 'rejected', requested_days, approved_days: 0}`;
 * - timed out (`onExpiry: timeout`, the payload says `timedOut: true`) → `{status: 'timed_out', …}`.
 *
 * `leave plan <days>` → `plan_leave({days})`, the same with a nested payload template
 * `{approved_days, handover: {to, tasks}}` (which a Slack form can only offer as JSON); approved,
 * it returns the payload it received.
 *
 * `swap shift <n>` → `swap_shift({shift: n})`, which asks for confirmation itself but, unlike the
 * two above, does not say it requires one: ADK JS 2.0 stores the answer, then refuses it with
 * `confirmation_not_required` (the agent received the decision and refused it; nothing runs).
 */

const parameters = z.object({ days: z.number().int().positive() });
const timedOutSchema = z.object({ timedOut: z.literal(true) });
const approvedDaysSchema = z.object({ approved_days: z.number().int().min(0) });

/**
 * ADK JS 2.0.0 only accepts the answer to a confirmation the tool requested itself when the tool
 * says it requires confirmation; without this override every resume fails with
 * `confirmation_not_required`.
 */
class SelfConfirmingTool extends FunctionTool<typeof parameters> {
  override async checkRequireConfirmation(): Promise<boolean> {
    return true;
  }
}

const requestTimeOff = new SelfConfirmingTool({
  name: 'request_time_off',
  description: 'Request days off; a manager approves some or all of them.',
  parameters,
  execute: async ({ days }, context) => {
    if (!context) throw new Error('request_time_off needs a tool context');
    const confirmation = context.toolConfirmation;
    if (!confirmation) {
      context.requestConfirmation({
        hint: `Please approve or reject the request for ${days} days off. Put the number of approved days in payload.approved_days.`,
        payload: { approved_days: days },
      });
      return { status: 'Waiting for approval.' };
    }
    if (!confirmation.confirmed) {
      // `onExpiry: timeout` says so in the payload: nobody decided, which is not a refusal.
      const timedOut = timedOutSchema.safeParse(confirmation.payload).success;
      return {
        status: timedOut ? 'timed_out' : 'rejected',
        requested_days: days,
        approved_days: 0,
      };
    }
    if (confirmation.payload === undefined) {
      return { status: 'approved', requested_days: days, approved_days: days };
    }
    const payload = approvedDaysSchema.safeParse(confirmation.payload);
    if (!payload.success) return { error: 'payload.approved_days must be a whole number.' };
    return { status: 'approved', requested_days: days, approved_days: payload.data.approved_days };
  },
});

const planLeave = new SelfConfirmingTool({
  name: 'plan_leave',
  description: 'Plan days off with a handover; a manager approves the plan.',
  parameters,
  execute: async ({ days }, context) => {
    if (!context) throw new Error('plan_leave needs a tool context');
    const confirmation = context.toolConfirmation;
    if (!confirmation) {
      context.requestConfirmation({
        hint: `Approve the leave plan for ${days} days, and who takes over.`,
        payload: { approved_days: days, handover: { to: 'Bob', tasks: 3 } },
      });
      return { status: 'Waiting for approval.' };
    }
    if (!confirmation.confirmed) return { status: 'rejected', requested_days: days };
    return { status: 'approved', requested_days: days, plan: confirmation.payload ?? null };
  },
});

/** Asks on its own, without saying it requires confirmation: ADK JS 2.0 refuses its answers. */
const swapShift = new FunctionTool({
  name: 'swap_shift',
  description: 'Swap a shift with a colleague; a manager approves it.',
  parameters: z.object({ shift: z.number().int().positive() }),
  execute: async ({ shift }, context) => {
    if (!context) throw new Error('swap_shift needs a tool context');
    if (!context.toolConfirmation) {
      context.requestConfirmation({ hint: `Approve swapping shift ${shift}.` });
      return { status: 'Waiting for approval.' };
    }
    return { status: context.toolConfirmation.confirmed ? 'swapped' : 'rejected', shift };
  },
});

export const rootAgent = new LlmAgent({
  name: 'time_off',
  description: 'Files time-off requests that a manager approves.',
  instruction: 'Use the tools to do what the user asks.',
  model: new ScriptedLlm([
    {
      pattern: /\b(\d+) days? off\b/gi,
      toCall: (match) => ({ name: 'request_time_off', args: { days: Number(match[1]) } }),
    },
    {
      pattern: /\bleave plan (\d+)\b/gi,
      toCall: (match) => ({ name: 'plan_leave', args: { days: Number(match[1]) } }),
    },
    {
      pattern: /\bswap shift (\d+)\b/gi,
      toCall: (match) => ({ name: 'swap_shift', args: { shift: Number(match[1]) } }),
    },
  ]),
  tools: [requestTimeOff, planLeave, swapShift],
});
