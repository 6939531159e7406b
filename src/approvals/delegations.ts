import { z } from 'zod';

/**
 * Handing over while away (issue 36): a person (the delegator) lets another (the delegate)
 * decide what they may decide, from a start to an end time. Nothing is copied: who may decide is
 * worked out when approvers are looked up (`ApprovalChecks`), so a card already pending moves to
 * the delegate when the hand-over starts and back when it ends. The functions here are pure:
 * they take the delegations in force and the time.
 */

export const delegationSchema = z.object({
  delegator: z.string().min(1),
  delegate: z.string().min(1),
  startsAt: z.number().int(),
  endsAt: z.number().int(),
  /** When it was set (the audit's time). */
  setAt: z.number().int(),
});
export type Delegation = z.infer<typeof delegationSchema>;

/** One hop by default: Bob's approvals go to Carol, never on to whom Carol handed hers. */
export const DEFAULT_DELEGATION_MAX_HOPS = 1;

/** No hand-over lasts longer than this: a forgotten one should not outlive a long leave. */
export const DELEGATION_MAX_MS = 90 * 24 * 60 * 60 * 1000;

/**
 * Each person's hand-over, keyed by the delegator: one at a time (a new one replaces theirs).
 * A delegation is kept until it ends; reads leave ended ones out.
 */
export interface DelegationStore {
  /** The delegator's hand-over, current or upcoming; undefined when none or ended at `now`. */
  get(delegator: string, now: number): Promise<Delegation | undefined>;
  /** Every hand-over not ended at `now`. */
  list(now: number): Promise<Delegation[]>;
  /** Sets (or replaces) the delegator's hand-over; an audit entry says so. */
  set(delegation: Delegation): Promise<void>;
  /** Ends the delegator's hand-over at `now`; the one ended, undefined when there was none. */
  end(delegator: string, now: number): Promise<Delegation | undefined>;
  /** The hand-overs' audit entries, oldest first (the last `limit`). */
  history(limit?: number): Promise<DelegationAuditEntry[]>;
}

export const delegationAuditEntrySchema = z.object({
  at: z.number(),
  event: z.enum(['delegation_set', 'delegation_ended']),
  /** Who set or ended it: the delegator. */
  actor: z.string(),
  delegator: z.string(),
  delegate: z.string(),
  startsAt: z.number(),
  endsAt: z.number(),
});
export type DelegationAuditEntry = z.infer<typeof delegationAuditEntrySchema>;

/** How many audit entries are kept (oldest dropped first). */
export const DELEGATION_AUDIT_KEPT = 10_000;

export function delegationAudit(
  event: DelegationAuditEntry['event'],
  delegation: Delegation,
  at: number,
): DelegationAuditEntry {
  const { delegator, delegate, startsAt, endsAt } = delegation;
  return { at, event, actor: delegator, delegator, delegate, startsAt, endsAt };
}

export function isActive(delegation: Delegation, now: number): boolean {
  return delegation.startsAt <= now && now < delegation.endsAt;
}

/**
 * The people whose approvals `person` may give at `now`, nearest first: those who handed over
 * to them, and, up to `maxHops`, those who handed over to those. A loop ends the walk.
 */
export function actingFor(
  person: string,
  delegations: readonly Delegation[],
  now: number,
  maxHops: number,
): string[] {
  const active = delegations.filter((d) => isActive(d, now));
  const found: string[] = [];
  const seen = new Set([person]);
  let frontier = [person];
  for (let hop = 0; hop < maxHops && frontier.length > 0; hop++) {
    const next: string[] = [];
    for (const d of active) {
      if (!frontier.includes(d.delegate) || seen.has(d.delegator)) continue;
      seen.add(d.delegator);
      found.push(d.delegator);
      next.push(d.delegator);
    }
    frontier = next;
  }
  return found;
}

/**
 * Who stands in for `delegator` at `now`: the end of their chain of hand-overs within `maxHops`;
 * undefined when they have not handed over. What the card's "who may approve" line names.
 */
export function standInFor(
  delegator: string,
  delegations: readonly Delegation[],
  now: number,
  maxHops: number,
): string | undefined {
  const byDelegator = new Map(
    delegations.filter((d) => isActive(d, now)).map((d) => [d.delegator, d.delegate]),
  );
  let current = delegator;
  const seen = new Set([delegator]);
  for (let hop = 0; hop < maxHops; hop++) {
    const next = byDelegator.get(current);
    if (next === undefined || seen.has(next)) break;
    seen.add(next);
    current = next;
  }
  return current === delegator ? undefined : current;
}

/** Every delegator standing in for whom someone does at `now`: delegator → stand-in. */
export function standIns(
  delegations: readonly Delegation[],
  now: number,
  maxHops: number,
): Map<string, string> {
  const found = new Map<string, string>();
  for (const { delegator } of delegations) {
    const standIn = standInFor(delegator, delegations, now, maxHops);
    if (standIn !== undefined) found.set(delegator, standIn);
  }
  return found;
}

/** Which field of the hand-over form a problem is about. */
export type DelegationField = 'delegate' | 'startsAt' | 'endsAt';

export interface DelegationProblem {
  field: DelegationField;
  message: string;
}

/**
 * Why a proposed hand-over cannot be set, or undefined: to oneself, an end not after the start
 * or already past, too long, or a loop with the hand-overs it would overlap (Carol has handed
 * hers to Bob for that time, and Bob would hand his to Carol). `others` may hold the
 * delegator's own current one, which the proposal replaces.
 */
export function delegationProblem(
  proposed: Pick<Delegation, 'delegator' | 'delegate' | 'startsAt' | 'endsAt'>,
  others: readonly Delegation[],
  now: number,
): DelegationProblem | undefined {
  const { delegator, delegate, startsAt, endsAt } = proposed;
  if (delegate === delegator) {
    return { field: 'delegate', message: 'Pick someone else: you cannot hand over to yourself.' };
  }
  if (endsAt <= now) return { field: 'endsAt', message: 'The end is in the past.' };
  if (endsAt <= startsAt) return { field: 'endsAt', message: 'The end must be after the start.' };
  if (endsAt - Math.max(startsAt, now) > DELEGATION_MAX_MS) {
    return { field: 'endsAt', message: 'A hand-over lasts at most 90 days.' };
  }
  const overlapping = others.filter(
    (d) => d.delegator !== delegator && d.startsAt < endsAt && startsAt < d.endsAt,
  );
  const next = new Map(overlapping.map((d) => [d.delegator, d.delegate]));
  const seen = new Set<string>();
  for (let person: string | undefined = delegate; person !== undefined; person = next.get(person)) {
    if (person === delegator) {
      return {
        field: 'delegate',
        message:
          person === next.get(delegate)
            ? 'They have handed their approvals to you for that time: handing yours to them would make a loop.'
            : 'Their approvals are handed on to you for that time: handing yours to them would make a loop.',
      };
    }
    if (seen.has(person)) break;
    seen.add(person);
  }
  return undefined;
}

/** The in-process twin (`npm start` without `REDIS_URL`): one process, lost on restart. */
export class MemoryDelegationStore implements DelegationStore {
  private readonly byDelegator = new Map<string, Delegation>();
  private readonly audit: DelegationAuditEntry[] = [];

  async get(delegator: string, now: number): Promise<Delegation | undefined> {
    const found = this.byDelegator.get(delegator);
    return found !== undefined && found.endsAt > now ? { ...found } : undefined;
  }

  async list(now: number): Promise<Delegation[]> {
    return [...this.byDelegator.values()].filter((d) => d.endsAt > now).map((d) => ({ ...d }));
  }

  async set(delegation: Delegation): Promise<void> {
    this.byDelegator.set(delegation.delegator, { ...delegation });
    this.note(delegationAudit('delegation_set', delegation, delegation.setAt));
  }

  async end(delegator: string, now: number): Promise<Delegation | undefined> {
    const found = await this.get(delegator, now);
    this.byDelegator.delete(delegator);
    if (found === undefined) return undefined;
    this.note(delegationAudit('delegation_ended', found, now));
    return found;
  }

  async history(limit = 100): Promise<DelegationAuditEntry[]> {
    return this.audit.slice(-limit).map((entry) => ({ ...entry }));
  }

  private note(entry: DelegationAuditEntry): void {
    this.audit.push(entry);
    if (this.audit.length > DELEGATION_AUDIT_KEPT) this.audit.shift();
  }
}
