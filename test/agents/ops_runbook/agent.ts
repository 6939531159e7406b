import { FunctionTool, LlmAgent } from '@google/adk';
import { z } from 'zod';
import { ScriptedLlm } from '../scripted-model/scripted-llm.js';

/**
 * App `ops_runbook`: the remediation an alert starts (docs/runbooks.md).
 *
 * `restart <service>` → `restart_service({service})`, which needs confirmation. The tool answers
 * with the service it restarted, so a test can count how many times it ran (never, once a run
 * is stood down).
 */

const restartService = new FunctionTool({
  name: 'restart_service',
  description: 'Restart a stuck service.',
  parameters: z.object({ service: z.string() }),
  requireConfirmation: true,
  execute: async ({ service }) => ({ status: 'restarted', service }),
});

export const rootAgent = new LlmAgent({
  name: 'ops_runbook',
  description: 'Runs the remediation an alert asks for.',
  instruction: 'Use the tool to do what the alert asks.',
  model: new ScriptedLlm([
    {
      pattern: /\brestart ([\w-]+)/gi,
      toCall: (match) => ({ name: 'restart_service', args: { service: String(match[1]) } }),
    },
  ]),
  tools: [restartService],
});
