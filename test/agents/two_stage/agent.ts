import { FunctionTool, LlmAgent } from '@google/adk';
import { z } from 'zod';
import { ScriptedLlm } from '../scripted-model/scripted-llm.js';

/**
 * App `two_stage`: `deploy <service>` → `deploy_service({service})`, which asks for two
 * approvals: the framework's (`requireConfirmation`), then, once resumed with that approval, a
 * second one the tool requests itself (a change-board sign-off) before it deploys.
 * Approved twice it returns `{status: 'deployed', service, approvals: 2}`.
 */

const parameters = z.object({ service: z.string() });

const deployService = new FunctionTool({
  name: 'deploy_service',
  description: 'Deploy a service to production; needs the on-call and the change board.',
  parameters,
  requireConfirmation: true,
  execute: async ({ service }, context) => {
    if (!context) throw new Error('deploy_service needs a tool context');
    const confirmation = context.toolConfirmation;
    if (!confirmation?.confirmed) return { error: 'This tool call is rejected.' };
    const stage = isRecord(confirmation.payload) ? confirmation.payload.stage : undefined;
    if (stage !== 'change-board') {
      context.requestConfirmation({
        hint: `Change board: sign off the production deploy of ${service}.`,
        payload: { stage: 'change-board' },
      });
      return { status: 'Waiting for the change board.' };
    }
    return { status: 'deployed', service, approvals: 2 };
  },
});

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export const rootAgent = new LlmAgent({
  name: 'two_stage',
  description: 'Deploys after two approvals.',
  instruction: 'Use the tool to do what the user asks.',
  model: new ScriptedLlm([
    {
      pattern: /\bdeploy ([\w-]+)/gi,
      toCall: (match) => ({ name: 'deploy_service', args: { service: String(match[1]) } }),
    },
  ]),
  tools: [deployService],
});
