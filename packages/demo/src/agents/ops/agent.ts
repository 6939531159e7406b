import { LlmAgent } from '@google/adk';
import { demoModel } from '../../demo-model.js';
import { SERVICE_NAMES } from './fleet.js';
import { OPS_SCRIPT } from './script.js';
import {
  checkStatus,
  listServices,
  restartService,
  scaleDeployment,
  scheduleMaintenance,
  UNATTENDED_REPLICA_LIMIT,
} from './tools.js';

/**
 * Demo app `ops`: an ops runbook agent. Restarts always need approval, scaling needs it above
 * 10 replicas, and a maintenance window is approved with a payload the approvers may edit;
 * status checks and the service list run at once. Prompts the offline model understands:
 * `restart payments-api`, `restart payments-api and ledger`, `scale web to 20`, `scale web to 3`,
 * `schedule maintenance for payments-api tonight`, `status of payments-api`, `list services`.
 */
export const rootAgent = new LlmAgent({
  name: 'ops',
  description: 'Runs the ops runbook: restarts, scaling, maintenance windows and status checks.',
  instruction: `You are the on-call ops assistant for these services: ${SERVICE_NAMES.join(', ')}.
Use the tools to do what the user asks; call one tool per service when several are named.
Restarts always need a human's approval, and scaling does above ${UNATTENDED_REPLICA_LIMIT} replicas: the tools ask for it, so just call them.
After a tool result, answer in one or two friendly sentences that include the result.
If a call was rejected, acknowledge it and do not retry it.
When the user relays feedback from the approvers, acknowledge it and quote their reason.
If you cannot help, say briefly what you can do.`,
  model: demoModel(OPS_SCRIPT),
  tools: [restartService, scaleDeployment, scheduleMaintenance, checkStatus, listServices],
});
