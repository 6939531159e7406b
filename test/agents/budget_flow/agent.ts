import { FunctionNode, RequestInput, START, Workflow } from '@google/adk';
import { z } from 'zod';

/**
 * App `budget_flow`: a 2.0 Workflow whose `ask_budget` node pauses with a `RequestInput` (a
 * message, a payload, and a JSON Schema: an amount between 1 and 5000 and a priority from a
 * list); once answered, `approve_budget` receives the answer as its input and replies
 * `Budget approved: <amount> USD, <priority>`.
 */

const askBudget = new FunctionNode(
  'ask_budget',
  () =>
    new RequestInput({
      interruptId: 'budget-q',
      message: 'What budget should I approve?',
      payload: { currency: 'USD' },
      responseSchema: z.strictObject({
        amount: z.number().min(1).max(5000),
        priority: z.enum(['low', 'normal', 'urgent']),
      }),
    }),
);

const approveBudget = new FunctionNode('approve_budget', (_ctx, input: unknown) => {
  const answer = typeof input === 'object' && input !== null ? Object.entries(input) : [];
  const fields = Object.fromEntries(answer);
  const text = `Budget approved: ${String(fields.amount)} USD, ${String(fields.priority)}`;
  return { role: 'model', parts: [{ text }] };
});

export const rootAgent = new Workflow({
  name: 'budget_flow',
  edges: [[START, askBudget, approveBudget]],
});
