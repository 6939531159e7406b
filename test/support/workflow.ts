import type { Policy } from '../../src/approvals/policy/policy.js';
import { parsePolicy } from '../../src/approvals/policy/policy-file.js';
import { createLog } from '../../src/log.js';
import type { WorkflowDeps } from '../../src/workflow/approval-workflow.js';

/** A policy from its YAML text; throws on a policy the parser refuses. */
export function policyOf(yaml: string): Policy {
  const parsed = parsePolicy(yaml, 'policy.yml');
  if (!parsed.ok) throw new Error(parsed.errors.join('\n'));
  return parsed.policy;
}

/** What a workflow unit test does not vary: a silent log, one owner, no retries. */
export const workflowTestDefaults = {
  log: createLog('error', 'test', () => {}),
  options: {
    owner: 'test',
    leaseMs: 60_000,
    resumable: 'auto',
    retryDelaysMs: [],
    defaultApp: undefined,
  },
} satisfies Pick<WorkflowDeps, 'log' | 'options'>;
