import { createHash } from 'node:crypto';

/**
 * Where the Redis store keeps things. A pause and its gates share the hash tag `{<pauseId>}`, so
 * they live in one Redis Cluster slot and one Lua script may touch them all. The indexes are
 * global keys, each in its own slot, touched only by single-key commands.
 *
 * ```
 * <prefix>{<pauseId>}:pause            hash   the pause record, its resume status, pending count,
 *                                             its gates' records and policies, its chain head
 * <prefix>{<pauseId>}:gate:<callId>    hash   one gate: state, votes, decision (small: a listpack)
 * <prefix>{<pauseId>}:audit            list   the lines of a pause recorded before 24 November,
 *                                             no longer written (scripts/fields.ts)
 * <prefix>{<pauseId>}:notes            hash   outcomes reported by the agent, webhook delivery status
 * <prefix>expiry                       zset   [pauseId, callId] by the gate's expiresAt
 * <prefix>resume                       zset   pauseId by when to look at its resume next
 * <prefix>call:<callId>                string written before commit 22ef2e9 (the newest pause holding
 *                                             that call id); nothing reads it, and it goes when its
 *                                             pause finishes
 * <prefix>pending:channel:<channelId>  zset   written before commit 36049d2 ([pauseId, callId] of
 *                                             pending gates); nothing lists it, and each entry goes
 *                                             when its gate is decided
 * <prefix>pending:user:<userId>        zset   [pauseId, callId] the user may approve, by createdAt
 * <prefix>pending:usergroup:<groupId>  zset   [pauseId, callId] the group's members may approve
 * <prefix>pending:requester:<userId>   zset   [pauseId, callId] of the user's own requests
 * <prefix>pending:channel-members      zset   [pauseId, callId] its card channel's members may approve
 * <prefix>audit                        stream every transition of every pause, its chain line
 *                                              included (lines written together: one entry per 256,
 *                                              redis-audit.ts); trimmed by age (AUDIT_RETENTION)
 * <prefix>idempotency:<sha256 of key>  string the request an API idempotency key was first used for
 * <prefix>marker                       string when it was placed (and a loss found); gone = data lost
 * <prefix>cardless                     zset   pauseId of a pause recorded without a card ts, by createdAt
 * <prefix>{<pauseId>}:card-claim       string who is posting the pause's card (expires; renewed)
 * <prefix>{run:<runId>}:intent         hash   an accepted /agent run: who, where, progress, owner, lease
 * <prefix>runs                         zset   runId of each run intent, by when its lease lapses
 * <prefix>nudges                       zset   [pauseId, callId, kind] by when to remind or escalate
 * ```
 */
export interface StoreKeys {
  pause(pauseId: string): string;
  gate(pauseId: string, callId: string): string;
  pauseAudit(pauseId: string): string;
  notes(pauseId: string): string;
  /** The pause key, its audit list, then its gates in `callIds` order: every per-pause script's KEYS. */
  scriptKeys(pauseId: string, callIds: readonly string[]): string[];
  expiry: string;
  resume: string;
  call(callId: string): string;
  pendingByChannel(channelId: string): string;
  pendingByUser(userId: string): string;
  /** A pending index by its name (`pendingIndexName`): `pending:<name>`. */
  pending(indexName: string): string;
  audit: string;
  idempotency(key: string): string;
  marker: string;
  cardless: string;
  cardClaim(pauseId: string): string;
  runIntent(runId: string): string;
  runs: string;
  nudges: string;
  /** A person's recent decisions (theirs, and on their requests), newest first. */
  recentDecisions(userId: string): string;
}

/** Braces in the prefix or a pause id would move the hash tag and split a pause across slots. */
export function assertNoHashTag(what: string, value: string): void {
  if (value.includes('{') || value.includes('}')) {
    throw new Error(`${what} must not contain "{" or "}" (they decide the Redis Cluster slot)`);
  }
}

export function storeKeys(prefix: string): StoreKeys {
  assertNoHashTag('The key prefix', prefix);
  const pause = (pauseId: string) => `${prefix}{${pauseId}}:pause`;
  const gate = (pauseId: string, callId: string) => `${prefix}{${pauseId}}:gate:${callId}`;
  const pauseAudit = (pauseId: string) => `${prefix}{${pauseId}}:audit`;
  return {
    pause,
    gate,
    pauseAudit,
    notes: (pauseId) => `${prefix}{${pauseId}}:notes`,
    scriptKeys: (pauseId, callIds) => [
      pause(pauseId),
      pauseAudit(pauseId),
      ...callIds.map((callId) => gate(pauseId, callId)),
    ],
    expiry: `${prefix}expiry`,
    resume: `${prefix}resume`,
    call: (callId) => `${prefix}call:${callId}`,
    pendingByChannel: (channelId) => `${prefix}pending:channel:${channelId}`,
    pendingByUser: (userId) => `${prefix}pending:user:${userId}`,
    pending: (indexName) => `${prefix}pending:${indexName}`,
    audit: `${prefix}audit`,
    idempotency: (key) => `${prefix}idempotency:${createHash('sha256').update(key).digest('hex')}`,
    marker: `${prefix}marker`,
    cardless: `${prefix}cardless`,
    cardClaim: (pauseId) => `${prefix}{${pauseId}}:card-claim`,
    runIntent: (runId) => `${prefix}{run:${runId}}:intent`,
    runs: `${prefix}runs`,
    nudges: `${prefix}nudges`,
    recentDecisions: (userId) => `${prefix}recent:${userId}`,
  };
}
