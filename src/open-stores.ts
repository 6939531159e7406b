import { type AlertTracks, MemoryAlertTracks } from './approvals/alert-tracks.js';
import { type DelegationStore, MemoryDelegationStore } from './approvals/delegations.js';
import { type GrantStore, MemoryGrantStore } from './approvals/grants.js';
import { type HomeViewers, MemoryHomeViewers } from './approvals/home-viewers.js';
import { LocalPauseSignals, type PauseSignals } from './approvals/pause-signals.js';
import { MemoryRunThreadRecords, type RunThreadRecords } from './approvals/run-threads.js';
import { MemoryStartedRuns, type StartedRuns } from './approvals/started-runs.js';
import { openMemoryStore } from './approvals/store/memory-store.js';
import { RedisAlertTracks } from './approvals/store/redis-alert-tracks.js';
import {
  connectRedis,
  connectRedisCluster,
  redactUrl,
} from './approvals/store/redis-connection.js';
import { RedisDelegationStore } from './approvals/store/redis-delegations.js';
import { RedisGrantStore } from './approvals/store/redis-grants.js';
import { RedisHomeViewers } from './approvals/store/redis-home-viewers.js';
import { RedisRunThreadRecords } from './approvals/store/redis-run-threads.js';
import { RedisPauseSignals } from './approvals/store/redis-signals.js';
import { RedisStartedRuns } from './approvals/store/redis-started-runs.js';
import { openRedisStore } from './approvals/store/redis-store.js';
import type { ApprovalStore } from './approvals/store.js';
import type { Config } from './config.js';
import type { LineLogger } from './log.js';

/** Every store the app keeps, on one Redis connection (or Cluster), or in this process's memory. */
export interface OpenedStores {
  store: ApprovalStore;
  signals: PauseSignals;
  runThreads: RunThreadRecords;
  grants: GrantStore;
  homeViewers: HomeViewers;
  alertTracks: AlertTracks;
  startedRuns: StartedRuns;
  delegations: DelegationStore;
}

/**
 * Opens the stores `REDIS_URL` / `REDIS_CLUSTER_NODES` name, all on one connection and key prefix
 * (the approval store closes the connection); without either, the in-process twins.
 */
export async function openStore(config: Config, log: LineLogger): Promise<OpenedStores> {
  if (config.redis === undefined) {
    log.warn(
      'REDIS_URL and REDIS_CLUSTER_NODES are not set: using the in-process store. It is single-instance and loses every pending approval on restart; set one of them for anything but a trial.',
    );
    return {
      store: openMemoryStore(),
      signals: new LocalPauseSignals(),
      runThreads: new MemoryRunThreadRecords(),
      grants: new MemoryGrantStore(),
      homeViewers: new MemoryHomeViewers(),
      alertTracks: new MemoryAlertTracks(),
      startedRuns: new MemoryStartedRuns(),
      delegations: new MemoryDelegationStore(),
    };
  }
  const redis =
    config.redis.kind === 'cluster'
      ? await connectRedisCluster(config.redis.cluster.nodes, config.redis.cluster)
      : await connectRedis(config.redis.url);
  log.info(config.redis.kind === 'cluster' ? 'store: Redis Cluster' : 'store: Redis', {
    nodes:
      config.redis.kind === 'cluster'
        ? config.redis.cluster.nodes.map(({ host, port }) => `${host}:${port}`).join(',')
        : redactUrl(config.redis.url),
  });
  const store = openRedisStore({
    redis,
    keyPrefix: config.redis.keyPrefix,
    ownsClient: true,
    log: log.child('store'),
  });
  const signals = await RedisPauseSignals.open(redis, config.redis.keyPrefix, log.child('signals'));
  // Same connection and prefix as the store; the store closes the connection.
  const runThreads = new RedisRunThreadRecords(redis, config.redis.keyPrefix);
  const grants = new RedisGrantStore(redis, config.redis.keyPrefix);
  const homeViewers = new RedisHomeViewers(redis, config.redis.keyPrefix);
  const alertTracks = new RedisAlertTracks(redis, config.redis.keyPrefix);
  const startedRuns = new RedisStartedRuns(redis, config.redis.keyPrefix);
  const delegations = new RedisDelegationStore(redis, config.redis.keyPrefix);
  return { store, signals, runThreads, grants, homeViewers, alertTracks, startedRuns, delegations };
}
