import {
  LlmAgent,
  type LlmResponse,
  REQUEST_INPUT_FUNCTION_CALL_NAME,
  requestInputTool,
} from '@google/adk';
import { ScriptedLlm } from '../scripted-model/scripted-llm.js';

/**
 * App `ask_input`: `charge <item>` → the built-in `requestInputTool` asks which cost center to
 * charge, with a JSON Schema (a `CC-` code and a whole amount of at least 1). ADK JS 2.0 leaves
 * `adk_request_input` calls and answers out of what the model sees, so a `beforeModelCallback`
 * reads the answer from the session and replies `Charging <item> to <cost center> (<amount>)`:
 * that reply is the proof the agent received the answer.
 */

export const COST_CENTER_SCHEMA = {
  type: 'object',
  properties: {
    cost_center: { type: 'string', title: 'Cost center', pattern: '^CC-[0-9]{4}$' },
    amount: { type: 'integer', minimum: 1, maximum: 10000 },
  },
  required: ['cost_center', 'amount'],
};

function latestAnswer(
  events: readonly {
    author?: string;
    content?: { parts?: { functionResponse?: { name?: string; response?: unknown } }[] };
  }[],
): Record<string, unknown> | undefined {
  const last = events.at(-1);
  if (last?.author !== 'user') return undefined;
  for (const part of last.content?.parts ?? []) {
    const response = part.functionResponse;
    if (response?.name !== REQUEST_INPUT_FUNCTION_CALL_NAME) continue;
    const body = response.response;
    if (typeof body === 'object' && body !== null && !Array.isArray(body)) {
      return Object.fromEntries(Object.entries(body));
    }
  }
  return undefined;
}

export const rootAgent = new LlmAgent({
  name: 'ask_input',
  description: 'Asks which cost center to charge.',
  instruction: 'Ask for the cost center before charging.',
  model: new ScriptedLlm([
    {
      pattern: /\bcharge ([\w-]+)/gi,
      toCall: () => ({
        name: REQUEST_INPUT_FUNCTION_CALL_NAME,
        args: {
          message: 'Which cost center should be charged?',
          response_schema: COST_CENTER_SCHEMA,
        },
      }),
    },
  ]),
  tools: [requestInputTool],
  beforeModelCallback: ({ context }): LlmResponse | undefined => {
    const answer = latestAnswer(context.invocationContext.session.events);
    if (answer === undefined) return undefined;
    const text = `Charging to ${String(answer.cost_center)} (${String(answer.amount)})`;
    return { content: { role: 'model', parts: [{ text }] } };
  },
});
