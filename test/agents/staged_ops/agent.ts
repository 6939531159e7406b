import { FunctionTool, LlmAgent, SequentialAgent } from '@google/adk';
import { z } from 'zod';
import { ScriptedLlm } from '../scripted-model/scripted-llm.js';

/**
 * App `staged_ops`: a SequentialAgent whose first step runs an ungated tool and whose second step
 * calls a gated one, so the first step's work is done before anyone is asked.
 *
 * `migrate <service>` → step `snapshotter` calls `take_snapshot({service})` (no confirmation),
 * then step `migrator`, reading the snapshot's result from the context ADK hands it, calls
 * `apply_migration({service})`, which needs confirmation. Each tool answers with the service, so
 * a test can count how many times each ran.
 */

const parameters = z.object({ service: z.string() });

const takeSnapshot = new FunctionTool({
  name: 'take_snapshot',
  description: 'Snapshot a service database.',
  parameters,
  execute: async ({ service }) => ({ status: 'snapshot_taken', service }),
});

const applyMigration = new FunctionTool({
  name: 'apply_migration',
  description: 'Apply the pending migration to a service.',
  parameters,
  requireConfirmation: true,
  execute: async ({ service }) => ({ status: 'migrated', service }),
});

const snapshotter = new LlmAgent({
  name: 'snapshotter',
  description: 'Takes a snapshot first.',
  instruction: 'Use the tool to do what the user asks.',
  model: new ScriptedLlm([
    {
      pattern: /\bmigrate ([\w-]+)/gi,
      toCall: (match) => ({ name: 'take_snapshot', args: { service: String(match[1]) } }),
    },
  ]),
  tools: [takeSnapshot],
});

const migrator = new LlmAgent({
  name: 'migrator',
  description: 'Applies the migration once the snapshot exists.',
  instruction: 'Use the tool to do what the user asks.',
  model: new ScriptedLlm([
    {
      // The snapshot's result, as the context ADK gives the next step quotes it.
      pattern: /"status":"snapshot_taken","service":"([\w-]+)"/g,
      toCall: (match) => ({ name: 'apply_migration', args: { service: String(match[1]) } }),
    },
  ]),
  tools: [applyMigration],
});

export const rootAgent = new SequentialAgent({
  name: 'staged_ops',
  description: 'Snapshots a service, then migrates it once someone approves.',
  subAgents: [snapshotter, migrator],
});
