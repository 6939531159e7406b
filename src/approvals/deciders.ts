import { grantIdOf } from './grant-actors.js';
import { policyRuleOf, SYSTEM_ACTOR } from './records.js';

/**
 * Who moved a gate out of `pending`, read from its decision's `by`. One reading for every place
 * that says it (cards, threads, the App Home, the API's `decidedBy`), so that each fact has one
 * word: a person's reject is not a policy's deny, an agent's cancel is not a requester's
 * withdrawal.
 *
 * - `person`: a Slack user id (an approver, or the requester who withdrew);
 * - `policy`: a rule's `decision: allow | deny` (`policy:<rule>`); `id` is the rule's name;
 * - `grant`: a person's scoped grant (`grant:<id>`); `id` is the grant's;
 * - `agent`: the agent's own call-off, `POST /v1/pauses/{id}/cancel` (`api:<key>`); `id` is the
 *   key's name;
 * - `expiry`: nobody decided in time (the sweeper, `system`);
 * - `stand_down`: the run's alert resolved (`standdown:<runId>`); `id` is the run's.
 */
export const DECIDER_KINDS = [
  'person',
  'policy',
  'grant',
  'agent',
  'expiry',
  'stand_down',
] as const;
export type DeciderKind = (typeof DECIDER_KINDS)[number];

export interface Decider {
  kind: DeciderKind;
  id: string;
}

/** The actor an API key's calls are recorded under: `api:<key name>` (the audit's `agent`). */
export const API_ACTOR_PREFIX = 'api:';

export function apiActor(keyName: string): string {
  return `${API_ACTOR_PREFIX}${keyName}`;
}

/** The actor a run's stand-down closes its pending approvals under (never a person's reject). */
export const STAND_DOWN_ACTOR_PREFIX = 'standdown:';

export function standDownActor(runId: string): string {
  return `${STAND_DOWN_ACTOR_PREFIX}${runId}`;
}

export function deciderOf(by: string): Decider {
  if (by === SYSTEM_ACTOR) return { kind: 'expiry', id: SYSTEM_ACTOR };
  if (by.startsWith(STAND_DOWN_ACTOR_PREFIX)) {
    return { kind: 'stand_down', id: by.slice(STAND_DOWN_ACTOR_PREFIX.length) };
  }
  const rule = policyRuleOf(by);
  if (rule !== undefined) return { kind: 'policy', id: rule };
  const grant = grantIdOf(by);
  if (grant !== undefined) return { kind: 'grant', id: grant };
  if (by.startsWith(API_ACTOR_PREFIX)) {
    return { kind: 'agent', id: by.slice(API_ACTOR_PREFIX.length) };
  }
  return { kind: 'person', id: by };
}
