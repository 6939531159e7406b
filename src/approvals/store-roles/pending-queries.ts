/** Which gates are waiting, by where they wait and for whom. */
export interface PendingQueries {
  /** Explicit user approvers only: user groups and channel members are known only to Slack. */
  listPendingByApprover(userId: string, limit?: number): Promise<GateRef[]>;
  /**
   * Pending gates by one index (see `PendingIndex`), oldest first. Candidates only: who may
   * decide a gate is settled by the policy as it is now, when the listing is used.
   */
  listPending(index: PendingIndex, limit?: number): Promise<GateRef[]>;
  /**
   * Gates still pending, by ADK app name: each pause's own count, which its transitions keep
   * exact; reads every live pause (O(pauses)), so callers cache it (the metrics gauge does).
   */
  countPendingByApp(): Promise<Map<string, number>>;
}

/**
 * The pending indexes a gate is in while pending: each user approver, each user-group approver,
 * its requester, and — when its card channel's members may approve — the one store-wide list of
 * such gates (channel membership is known only to Slack).
 */
export type PendingIndex =
  | { kind: 'user'; id: string }
  | { kind: 'usergroup'; id: string }
  | { kind: 'requester'; id: string }
  | { kind: 'channel_members' };

export interface GateRef {
  pauseId: string;
  callId: string;
}
