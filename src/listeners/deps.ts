import type { Log } from '../log.js';
import type { Metrics } from '../metrics.js';
import type { SlackPort } from '../slack/transport/port.js';
import type { ApprovalWorkflow } from '../workflow/approval-workflow.js';

/** What every listener is given. */
export interface ListenerDeps {
  workflow: ApprovalWorkflow;
  slack: SlackPort;
  log: Log;
  metrics: Metrics;
}
