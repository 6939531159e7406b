import type { AdkClient, RunItem, RunRequest } from '../../src/adk/client.js';
import { adkEventSchema } from '../../src/adk/wire/events.js';
import type { Policy } from '../../src/approvals/policy/policy.js';
import { parsePolicy } from '../../src/approvals/policy/policy-file.js';
import { createLog } from '../../src/log.js';
import type { WorkflowDeps } from '../../src/workflow/compose.js';

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

/**
 * An approver directory whose usergroups' members come when the test gives them
 * (`answerMembers`): a click through a group waits for Slack until then. No channel members.
 */
export function heldUsergroupDirectory(): {
  directory: WorkflowDeps['directory'];
  answerMembers: (members: string[]) => void;
} {
  let answer: (members: string[]) => void = () => {};
  const members = new Promise<string[]>((resolve) => {
    answer = resolve;
  });
  return {
    directory: { usergroupMembers: () => members, channelMembers: async () => [] },
    answerMembers: (given) => answer(given),
  };
}

/** An ADK server whose runs answer one line at once; it keeps each run's session id. */
export function quietAdk() {
  const sessions: string[] = [];
  const adk: Pick<AdkClient, 'listApps' | 'createSession' | 'getSession' | 'runSse'> = {
    listApps: async () => [],
    createSession: async () => {
      throw new Error('no new sessions here');
    },
    getSession: async () => {
      throw new Error('no sessions here');
    },
    async *runSse(request: RunRequest): AsyncGenerator<RunItem, void> {
      sessions.push(request.sessionId);
      const content = { role: 'model', parts: [{ text: 'Done.' }] };
      yield { type: 'event', event: adkEventSchema.parse({ author: 'agent', content }) };
    },
  };
  return { adk, sessions };
}
