import { canonicalJson, sha256Hex } from '@adk-slack-approvals/adk-approvals/attestation';
import { z } from 'zod';
import type { JsonValue } from '../json.js';
import { formatDuration } from './policy/duration.js';

/**
 * Scoped grants (issue 19): an approver's click that also covers later calls of the same app and
 * tool by the same requester, within a scope the rule offers (`grants:` in the policy file):
 *
 * - `session`: the same ADK session (until it has been idle for the grant's life);
 * - a duration (`1h`): any session, until it ends;
 * - `exactArgs`: calls with the very same arguments (canonical JSON, SHA-256).
 *
 * Every grant expires, at most `GRANT_MAX_MS` after it was given. A grant decides only a call
 * its own rule would have asked a person about, under a policy that still offers its scope: a
 * `deny` (or any earlier rule) wins, and a rule made stricter (a quorum, `risk: critical`, the
 * scope taken off) stops matching.
 */

/** What a rule offers: `session`, `exactArgs`, or a duration in ms. */
export type GrantOffer = 'session' | 'exactArgs' | number;
export const grantOfferSchema = z.union([
  z.literal('session'),
  z.literal('exactArgs'),
  z.number().int().positive(),
]);

export const GRANT_SCOPES = ['session', 'time', 'exactArgs'] as const;
export type GrantScope = (typeof GRANT_SCOPES)[number];

/** No grant outlives a working day; `session` and `exactArgs` grants last this long. */
export const GRANT_MAX_MS = 8 * 60 * 60 * 1000;

export function scopeOfOffer(offer: GrantOffer): GrantScope {
  return typeof offer === 'number' ? 'time' : offer;
}

/** How long a grant of this offer lasts. */
export function offerLifetimeMs(offer: GrantOffer): number {
  return typeof offer === 'number' ? Math.min(offer, GRANT_MAX_MS) : GRANT_MAX_MS;
}

/** The card's button: it names the scope it gives, so that nobody grants more than they read. */
export function offerLabel(offer: GrantOffer): string {
  if (offer === 'session') return 'Approve for this session';
  if (offer === 'exactArgs') {
    return `Always for these exact arguments (${hoursText(GRANT_MAX_MS)})`;
  }
  return `Approve for ${durationWords(offer)}`;
}

/** "for this session", "for 1 hour", "for these exact arguments": after a verb. */
export function scopeWords(grant: Pick<Grant, 'scope' | 'durationMs'>): string {
  switch (grant.scope) {
    case 'session':
      return 'for this session';
    case 'exactArgs':
      return 'for these exact arguments';
    case 'time':
      return `for ${durationWords(grant.durationMs ?? GRANT_MAX_MS)}`;
  }
}

/** `3600000` → "1 hour", `5400000` → "1h30m". */
function durationWords(ms: number): string {
  const units: [number, string][] = [
    [86_400_000, 'day'],
    [3_600_000, 'hour'],
    [60_000, 'minute'],
    [1_000, 'second'],
  ];
  for (const [size, word] of units) {
    if (ms % size === 0 && ms >= size) {
      const count = ms / size;
      return `${count} ${word}${count === 1 ? '' : 's'}`;
    }
  }
  return formatDuration(ms);
}

function hoursText(ms: number): string {
  return `${Math.round(ms / 3_600_000)} h`;
}

/** The arguments as the grant compares them: the audit's `argsSha256`. */
export function argsDigest(args: Record<string, unknown>): string {
  return sha256Hex(canonicalJson(args as JsonValue));
}

/** An ADK session, as one string: the user id and the session id. */
export function sessionKeyOf(adk: { userId: string; sessionId: string }): string {
  return `${adk.userId}/${adk.sessionId}`;
}

/** `gr_` and 12 hex digits (grant-decisions.ts makes them); what a Revoke button may carry. */
export const GRANT_ID = /^gr_[0-9a-f]{12}$/;

export const grantSchema = z.object({
  id: z.string().min(1),
  app: z.string().min(1),
  tool: z.string().min(1),
  /** Whose calls it covers: a Slack user id, or `api:<key>` for calls posted through the API. */
  requester: z.string().min(1),
  /**
   * Where it was given, and so whose calls it covers: `slack` (a run started in Slack) or
   * `api:<key>` (pauses that key posts). The requester alone is only what the posting key says.
   * Absent on grants given before origins were recorded: those cover nothing.
   */
  origin: z.string().min(1).optional(),
  /** The rule whose card offered it; only calls that rule decides are covered. */
  rule: z.string().min(1),
  scope: z.enum(GRANT_SCOPES),
  /** `time` grants: their length, for their wording. */
  durationMs: z.number().int().positive().optional(),
  /** `session` grants: the ADK session (`sessionKeyOf`). */
  sessionKey: z.string().optional(),
  /** `exactArgs` grants: the arguments' digest (`argsDigest`). */
  argsDigest: z.string().optional(),
  granter: z.string().min(1),
  granterName: z.string().optional(),
  /** The gate whose card gave it (its audit trail records the grant and its revocation). */
  pauseId: z.string().min(1),
  callId: z.string().min(1),
  policyVersion: z.string().optional(),
  createdAt: z.number(),
  expiresAt: z.number(),
  /** Calls it decided. */
  uses: z.number().int().min(0),
});
export type Grant = z.infer<typeof grantSchema>;

/** A call a grant may cover: what the pause recorder knows once the policy asked a person. */
export interface GrantableCall {
  /** Who posted the call's pause (`originOfPause`): a grant covers calls of its own origin only. */
  origin: string;
  app: string;
  tool: string;
  requester: string;
  /** The rule the policy in force says decides the call, and the scopes it offers now. */
  rule: string;
  offers: readonly GrantOffer[];
  sessionKey: string;
  argsDigest: string;
}

/** Does `grant` cover `call` at `now`? Pure: the stores' matching is this, applied atomically. */
export function grantCovers(grant: Grant, call: GrantableCall, now: number): boolean {
  if (grant.expiresAt <= now || grant.origin !== call.origin) return false;
  if (grant.app !== call.app || grant.tool !== call.tool) return false;
  if (grant.requester !== call.requester || grant.rule !== call.rule) return false;
  if (!call.offers.some((offer) => scopeOfOffer(offer) === grant.scope)) return false;
  if (grant.scope === 'session') return grant.sessionKey === call.sessionKey;
  if (grant.scope === 'exactArgs') return grant.argsDigest === call.argsDigest;
  return true;
}

/**
 * Where grants live: Redis (one hash slot, `{grants}`, so that each step is atomic on Redis
 * Cluster too) or this process's memory. Every method that reads drops expired grants.
 */
export interface GrantStore {
  create(grant: Grant): Promise<void>;
  /**
   * The first active grant covering `call`, its `uses` counted in the same atomic step; `only`:
   * that grant or none. With `count: false` nothing is counted (a look before a check).
   */
  use(call: GrantableCall, now: number, options?: GrantUseOptions): Promise<Grant | undefined>;
  get(id: string, now: number): Promise<Grant | undefined>;
  /** Active grants: a person's (as granter or requester), or every one; soonest to expire first. */
  list(filter: { person?: string }, now: number): Promise<Grant[]>;
  /** Removes the grant, once: the grant as it was, or undefined when it was gone already. */
  revoke(id: string, now: number): Promise<Grant | undefined>;
}

export interface GrantUseOptions {
  only?: string;
  count?: boolean;
}

/** Who may revoke a grant: its granter, its requester, or a policy admin. */
export function mayRevoke(grant: Grant, user: string, admins: readonly string[]): boolean {
  return user === grant.granter || user === grant.requester || admins.includes(user);
}

/** The single-process twin, for the in-process store and unit tests. */
export class MemoryGrantStore implements GrantStore {
  private readonly grants = new Map<string, Grant>();

  async create(grant: Grant): Promise<void> {
    this.grants.set(grant.id, { ...grant });
  }

  async use(
    call: GrantableCall,
    now: number,
    { only, count = true }: GrantUseOptions = {},
  ): Promise<Grant | undefined> {
    this.prune(now);
    for (const grant of this.byExpiry()) {
      if ((only !== undefined && grant.id !== only) || !grantCovers(grant, call, now)) continue;
      if (count) grant.uses += 1;
      return { ...grant };
    }
    return undefined;
  }

  async get(id: string, now: number): Promise<Grant | undefined> {
    this.prune(now);
    const grant = this.grants.get(id);
    return grant === undefined ? undefined : { ...grant };
  }

  async list(filter: { person?: string }, now: number): Promise<Grant[]> {
    this.prune(now);
    const { person } = filter;
    return this.byExpiry()
      .filter((g) => person === undefined || g.granter === person || g.requester === person)
      .map((grant) => ({ ...grant }));
  }

  async revoke(id: string, now: number): Promise<Grant | undefined> {
    this.prune(now);
    const grant = this.grants.get(id);
    this.grants.delete(id);
    return grant === undefined ? undefined : { ...grant };
  }

  private byExpiry(): Grant[] {
    return [...this.grants.values()].sort((a, b) => a.expiresAt - b.expiresAt);
  }

  private prune(now: number): void {
    for (const [id, grant] of this.grants) if (grant.expiresAt <= now) this.grants.delete(id);
  }
}
