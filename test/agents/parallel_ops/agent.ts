import { FunctionTool, LlmAgent, ParallelAgent } from '@google/adk';
import { z } from 'zod';
import { ScriptedLlm } from '../scripted-model/scripted-llm.js';

/**
 * App `parallel_ops`: a ParallelAgent whose two branches each call a gated tool on the same
 * prompt, so one run pauses in two events of one invocation.
 *
 * `restart <service>` → branch `restarter` calls `restart_service({service})` and branch
 * `notifier` calls `notify_team({service})`; both need confirmation. Each tool answers with the
 * service it acted on, so a test can count how many times each ran.
 */

const parameters = z.object({ service: z.string() });

const restartService = new FunctionTool({
  name: 'restart_service',
  description: 'Restart a service.',
  parameters,
  requireConfirmation: true,
  execute: async ({ service }) => ({ status: 'restarted', service }),
});

const notifyTeam = new FunctionTool({
  name: 'notify_team',
  description: 'Tell the owning team about a restart.',
  parameters,
  requireConfirmation: true,
  execute: async ({ service }) => ({ status: 'notified', service }),
});

const branch = (name: string, tool: FunctionTool<typeof parameters>) =>
  new LlmAgent({
    name,
    description: `Calls ${tool.name}.`,
    instruction: 'Use the tool to do what the user asks.',
    model: new ScriptedLlm([
      {
        pattern: /\brestart ([\w-]+)/gi,
        toCall: (match) => ({ name: tool.name, args: { service: String(match[1]) } }),
      },
    ]),
    tools: [tool],
  });

export const rootAgent = new ParallelAgent({
  name: 'parallel_ops',
  description: 'Restarts a service and tells its team, at once.',
  subAgents: [branch('restarter', restartService), branch('notifier', notifyTeam)],
});
