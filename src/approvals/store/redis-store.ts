import type { Log } from '../../log.js';
import type { ApprovalStore } from '../store.js';
import { storeKeys } from './keys.js';
import { RecentViews } from './recent-views.js';
import { RedisAuditLog } from './redis-audit-log.js';
import { AuditSealer } from './redis-audit-seal.js';
import { RedisCardClaims } from './redis-card-claims.js';
import { ChainOffers } from './redis-chain-offers.js';
import type { RedisClient } from './redis-connection.js';
import { RedisIndexes } from './redis-indexes.js';
import { RedisStoreLifecycle } from './redis-marker.js';
import { RedisPauseNotes } from './redis-notes.js';
import { RedisNudges } from './redis-nudges.js';
import type { PauseScriptContext } from './redis-pause-scripts.js';
import { RedisPauses } from './redis-pauses.js';
import { RedisPendingQueries } from './redis-pending.js';
import { RedisResumeLeases } from './redis-resume-leases.js';
import { RedisRunIntents } from './redis-run-intents.js';
import { RedisPauseSweeps } from './redis-sweeps.js';
import { DEFAULT_RETENTION_MS } from './rules.js';

/**
 * The approval store on Redis, standalone or Cluster: every role (store.ts) on one client and key
 * prefix.
 *
 * Every transition of a pause is one Lua script on the keys of that pause, which share a hash
 * tag and so one Cluster slot (layout in keys.ts): create, vote, expire, cancel, claim and
 * finish are each a compare-and-set on the stored state, so any number of replicas may race on
 * them. The scripts also append the pause's own audit trail, atomically with the transition.
 * The global indexes are kept around the scripts by `RedisIndexes` (see there for how they
 * converge after a crash between a script and an index update).
 *
 * Retention: a pause is finished when it is resumed, abandoned (a gate cancelled) or its resume
 * failed; its keys then expire after `retentionMs` (default 7 days). A failed resume waits for a
 * human Retry (`claimResume` with `retryFailed`), which lifts the expiry; it is never retried
 * automatically and `dueResumes` does not list it.
 *
 * Call ids: adk-rs call ids are chosen by the model and may repeat across sessions. A gate is
 * found by its pause id and call id together (clicks, expiry entries and pending lists carry
 * both), so two pauses holding the same call id never meet; no index maps a call id alone.
 */
export interface RedisStoreOptions {
  /** From `connectRedis` / `connectRedisCluster` (fail-fast timeouts); without a keyPrefix. */
  redis: RedisClient;
  /** Prefix of every key, e.g. `adk-approvals:`. No braces: they would move the hash tag. */
  keyPrefix: string;
  /** How long a finished pause is kept before Redis removes it. Default 7 days. */
  retentionMs?: number;
  /** How often a pending pause is re-checked for a lost "resume due" update. Default 5 minutes. */
  resumeRecheckMs?: number;
  /** `close()` also closes the client. Default false: the caller owns the client. */
  ownsClient?: boolean;
  /** Told when an index update after a recorded transition failed (the system recovers). */
  log?: Pick<Log, 'warn' | 'error'>;
}

const DEFAULT_RECHECK_MS = 5 * 60 * 1000;

export function openRedisStore(options: RedisStoreOptions): ApprovalStore {
  const { redis } = options;
  if (redis.options.keyPrefix) {
    throw new Error('Pass a Redis client without keyPrefix; give the prefix to the store');
  }
  const keys = storeKeys(options.keyPrefix);
  const retentionMs = options.retentionMs ?? DEFAULT_RETENTION_MS;
  const sealer = new AuditSealer(redis, options.log);
  const notes = new RedisPauseNotes(redis, keys, retentionMs, sealer, options.log);
  const nudges = new RedisNudges(redis, keys);
  const indexes = new RedisIndexes(redis, keys, {
    retentionMs,
    recheckMs: options.resumeRecheckMs ?? DEFAULT_RECHECK_MS,
    log: options.log,
  });
  // One call-id cache for every role running per-pause scripts: they name the same pauses.
  const context: PauseScriptContext = {
    redis,
    keys,
    indexes,
    sealer,
    retentionMs,
    callIdCache: new Map(),
    chains: new ChainOffers(),
    views: new RecentViews(),
  };
  return {
    pauses: new RedisPauses(context, nudges),
    reports: notes,
    notes,
    idempotency: notes,
    leases: new RedisResumeLeases(context),
    sweeps: new RedisPauseSweeps(context),
    pending: new RedisPendingQueries(redis, keys),
    runs: new RedisRunIntents(redis, keys),
    nudges,
    audit: new RedisAuditLog(redis, keys),
    cardClaims: new RedisCardClaims(redis, keys),
    lifecycle: new RedisStoreLifecycle(redis, keys, options.ownsClient ?? false),
  };
}
