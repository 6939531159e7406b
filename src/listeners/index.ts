import type { App } from '@slack/bolt';
import { registerApprovalActions } from './actions.js';
import { registerBatchViews } from './batch-views.js';
import { registerAgentCommand } from './commands.js';
import { registerDelegationViews } from './delegation-views.js';
import type { ListenerDeps } from './deps.js';
import { registerThreadEvents } from './events.js';
import { registerAppHome } from './home.js';
import { registerApprovalViews } from './views.js';

/** Every surface the app listens on. Listeners ack, parse, call the workflow, reply. */
export function registerListeners(app: App, deps: ListenerDeps): void {
  registerAgentCommand(app, deps);
  registerApprovalActions(app, deps);
  registerApprovalViews(app, deps);
  registerBatchViews(app, deps);
  registerDelegationViews(app, deps);
  registerThreadEvents(app, deps);
  registerAppHome(app, deps);
}
