import { FunctionTool, LlmAgent, START, Workflow } from '@google/adk';
import { z } from 'zod';
import { ScriptedLlm } from '../scripted-model/scripted-llm.js';

/**
 * App `pay_flow`: a 2.0 Workflow whose only node is an LlmAgent with a gated tool: `pay <n>` →
 * `pay_vendor({amount: n})` (`requireConfirmation`), which returns `{status: 'paid', amount}`.
 * ADK JS 2.0 re-runs the node's input when the approval resumes it, so the model asks for the
 * same call again (a new call id, a new `adk_request_confirmation`) instead of running it.
 */

const payVendor = new FunctionTool({
  name: 'pay_vendor',
  description: 'Pay a vendor.',
  parameters: z.object({ amount: z.number() }),
  requireConfirmation: true,
  execute: async ({ amount }) => ({ status: 'paid', amount }),
});

const payer = new LlmAgent({
  name: 'payer',
  description: 'Pays vendors.',
  instruction: 'Use the tool to do what the user asks.',
  model: new ScriptedLlm([
    {
      pattern: /\bpay (\d+)/gi,
      toCall: (match) => ({ name: 'pay_vendor', args: { amount: Number(match[1]) } }),
    },
  ]),
  tools: [payVendor],
});

export const rootAgent = new Workflow({ name: 'pay_flow', edges: [[START, payer]] });
