import type { Approver, GatePolicy } from '../records.js';
import { type ApproverDirectory, ApproverDirectoryError } from './approver-directory.js';

export interface AuthorizeInput {
  /** The Slack user who clicked. */
  voter: string;
  /** The Slack user who started the run. */
  requester: string;
  /** The live policy or the gate's snapshot: the caller decides which governs. */
  policy: GatePolicy;
  /** Whose members `channel` approvers are. */
  cardChannelId: string;
  /**
   * Whether the gate has been escalated (`isEscalated`): then `escalateTo` may approve too.
   * Absent: not escalated.
   */
  escalated?: boolean;
}

export type AuthorizeResult =
  | { ok: true }
  | {
      ok: false;
      reason: 'nobody_may_approve' | 'self_approval' | 'not_approver';
      /** Who may approve, for the refusal message. */
      approvers: Approver[];
    };

/**
 * May this person vote on this gate? Refusals are values; a membership lookup that fails throws
 * `ApproverDirectoryError` unless another approver entry already admits the voter, so a Slack
 * outage never lets anyone through. Users are checked before groups and channels, which cost
 * Web API calls.
 */
export async function authorize(
  { voter, requester, policy, cardChannelId, escalated }: AuthorizeInput,
  directory: ApproverDirectory,
): Promise<AuthorizeResult> {
  const approvers = eligibleApprovers(policy, escalated ?? false);
  if (approvers.length === 0) return { ok: false, reason: 'nobody_may_approve', approvers };
  // Whatever the approver list says: starting a run and approving it are two people's jobs.
  if (voter === requester && !policy.selfApproval) {
    return { ok: false, reason: 'self_approval', approvers };
  }
  if (approvers.some((a) => a.kind === 'user' && a.id === voter)) return { ok: true };

  let failure: ApproverDirectoryError | undefined;
  for (const approver of approvers) {
    if (approver.kind === 'user') continue;
    try {
      const members =
        approver.kind === 'usergroup'
          ? await directory.usergroupMembers(approver.id)
          : await directory.channelMembers(cardChannelId);
      if (members.includes(voter)) return { ok: true };
    } catch (error) {
      failure ??=
        error instanceof ApproverDirectoryError
          ? error
          : new ApproverDirectoryError(
              approver.kind === 'usergroup'
                ? { kind: 'usergroup', id: approver.id }
                : { kind: 'channel', id: cardChannelId },
              undefined,
              { cause: error },
            );
    }
  }
  if (failure) throw failure;
  return { ok: false, reason: 'not_approver', approvers };
}

/**
 * Whether a gate recorded at `createdAt` is escalated at `now` under `policy`: from
 * `escalateAfter` on, exactly. Time decides it, so every replica agrees without asking Redis.
 */
export function isEscalated(policy: GatePolicy, createdAt: number, now: number): boolean {
  const at = escalatedAt(policy, createdAt);
  return at !== undefined && now >= at;
}

/** When the gate escalates; undefined when its policy names no escalation. */
export function escalatedAt(policy: GatePolicy, createdAt: number): number | undefined {
  if (policy.escalateAfterMs === undefined || policy.escalateTo === undefined) return undefined;
  return createdAt + policy.escalateAfterMs;
}

/** The approvers, and once escalated those of `escalateTo` not already listed; copies. */
export function eligibleApprovers(policy: GatePolicy, escalated: boolean): Approver[] {
  const approvers = policy.approvers.map((approver) => ({ ...approver }));
  if (!escalated) return approvers;
  const key = (a: Approver) => (a.kind === 'channel' ? 'channel' : a.id);
  const listed = new Set(approvers.map(key));
  for (const approver of policy.escalateTo ?? []) {
    if (!listed.has(key(approver))) approvers.push({ ...approver });
    listed.add(key(approver));
  }
  return approvers;
}
