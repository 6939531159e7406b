/**
 * The actor a scoped grant's decisions are recorded under: `grant:<grant id>` (grants.ts), beside
 * a person's user id, a rule's `policy:<rule>` (records.ts) and an API key's `api:<key>`
 * (deciders.ts). One spelling for the workflow that applies a grant, the readers of a decision's
 * `by`, and the audit, which files such a line under the initiator `grant`.
 */
export const GRANT_ACTOR_PREFIX = 'grant:';

export function grantActor(grantId: string): string {
  return `${GRANT_ACTOR_PREFIX}${grantId}`;
}

/** The grant that decided, from a decision's `by`; `undefined` when no grant did. */
export function grantIdOf(actor: string): string | undefined {
  return actor.startsWith(GRANT_ACTOR_PREFIX) ? actor.slice(GRANT_ACTOR_PREFIX.length) : undefined;
}
