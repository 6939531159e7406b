import type { ApproverDirectory } from '../approvals/policy.js';
import type { Approver } from '../approvals/records.js';
import { errorMessage } from '../error-message.js';
import type { Log } from '../log.js';

/**
 * The user ids behind approvers: listed users, and the members of user groups (asked of Slack).
 * A group Slack cannot list is logged and left out: the people found are still worth telling.
 * `channel` approvers are not expanded (a channel may have thousands of members).
 */
export async function approverPeople(
  approvers: readonly Approver[],
  deps: { directory: ApproverDirectory; log: Log },
  purpose: string,
): Promise<Set<string>> {
  const people = new Set<string>();
  for (const approver of approvers) {
    if (approver.kind === 'user') people.add(approver.id);
    if (approver.kind !== 'usergroup') continue;
    try {
      for (const member of await deps.directory.usergroupMembers(approver.id)) people.add(member);
    } catch (error) {
      deps.log.warn(`could not list a user group ${purpose}`, {
        usergroup: approver.id,
        error: errorMessage(error),
      });
    }
  }
  return people;
}
