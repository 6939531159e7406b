import type { App } from '@slack/bolt';
import type { SlackPort } from '../approvals/ports.js';
import type { ApprovalWorkflow } from '../workflow/approval-workflow.js';
import type { Log } from '../log.js';
import { registerApprovalActions } from './actions.js';
import { registerAgentCommand } from './commands.js';
import { registerApprovalViews } from './views.js';

export interface ListenerDeps {
  workflow: ApprovalWorkflow;
  slack: SlackPort;
  log: Log;
}

/** Every surface the app listens on. Listeners ack, parse, call the workflow, reply. */
export function registerListeners(app: App, deps: ListenerDeps): void {
  registerAgentCommand(app, deps);
  registerApprovalActions(app, deps);
  registerApprovalViews(app, deps);
}
