import type { Log } from '../log.js';
import type { Metrics } from '../metrics.js';
import type { SlackPort } from '../slack/transport/port.js';
import type { AppHomes } from '../workflow/app-homes.js';
import type { ApprovalWorkflow } from '../workflow/approval-workflow.js';
import type { Delegations } from '../workflow/delegations.js';
import type { GrantDecisions } from '../workflow/grant-decisions.js';

/** What every listener is given: the workflow's entry points it calls, and Slack to reply. */
export interface ListenerDeps {
  /** Clicks, modal submissions, `/agent` and thread replies. */
  workflow: ApprovalWorkflow;
  /** The App Home: drawn when opened, redrawn after a click on it, its batch candidates. */
  homes: Pick<AppHomes, 'opened' | 'refresh' | 'decidableBy'>;
  /** A grant revoked from the App Home. */
  grants: Pick<GrantDecisions, 'revoke'>;
  /** Hand-overs while away, set and ended from the App Home. */
  delegations: Pick<Delegations, 'modal' | 'set' | 'end'>;
  slack: SlackPort;
  log: Log;
  metrics: Metrics;
}
