import { Cluster, type ClusterOptions, Redis, type RedisOptions } from 'ioredis';
import { errorMessage } from '../../error-message.js';
import { StoreError } from '../store.js';

/** A standalone Redis or a Redis Cluster: the store works the same on both. */
export type RedisClient = Redis | Cluster;

export interface ConnectOptions {
  /** Longest wait for the connection and its first PING. Default 5,000 ms. */
  connectTimeoutMs?: number;
  /** Longest wait for any reply; past it the call fails as `unavailable`. Default 5,000 ms. */
  commandTimeoutMs?: number;
  /** Told of connection errors after the first connection (each also fails the waiting calls). */
  onError?: (error: Error) => void;
}

const DEFAULT_TIMEOUT_MS = 5_000;

/**
 * Options that make an outage fail fast instead of hang: no offline queue (a call made while
 * disconnected fails at once), nothing re-sent after a reconnect (a vote or a claim is answered
 * once or fails), and a reply timeout. The client keeps reconnecting in the background.
 */
function clientOptions(options: ConnectOptions): RedisOptions {
  return {
    lazyConnect: true,
    connectTimeout: options.connectTimeoutMs ?? DEFAULT_TIMEOUT_MS,
    commandTimeout: options.commandTimeoutMs ?? DEFAULT_TIMEOUT_MS,
    maxRetriesPerRequest: 0,
    autoResendUnfulfilledCommands: false,
    enableOfflineQueue: false,
    retryStrategy: reconnectDelay,
    // Commands issued in one tick go out in one write: a burst of clicks costs far fewer syscalls.
    enableAutoPipelining: true,
  };
}

function reconnectDelay(attempt: number): number {
  return Math.min(attempt * 200, 2_000);
}

/**
 * Connects to the Redis at `url` (`redis://` or `rediss://`) and checks it answers a PING.
 * The caller owns the client (pass `ownsClient: true` to the store to have it closed with it).
 * Throws `StoreError('unavailable')` naming the URL without its credentials.
 */
export async function connectRedis(url: string, options: ConnectOptions = {}): Promise<Redis> {
  const where = redactUrl(url);
  const redis = new Redis(url, clientOptions(options));
  await connectAndPing(redis, where, options);
  return redis;
}

export interface ClusterConnectOptions extends ConnectOptions {
  /** Talk TLS to every node (the `rediss://` form of `REDIS_CLUSTER_NODES`). */
  tls?: boolean;
  /** ACL user and password, the same on every node. */
  username?: string | undefined;
  password?: string | undefined;
}

export type ClusterNode = string | { host: string; port: number };

/** Connects to a Redis Cluster through any of its nodes (`host:port`) and checks it answers. */
export async function connectRedisCluster(
  nodes: readonly ClusterNode[],
  options: ClusterConnectOptions = {},
): Promise<Cluster> {
  const seeds = nodes.map((node) => (typeof node === 'string' ? parseNode(node) : node));
  const where = `Redis Cluster ${seeds.map(({ host, port }) => `${host}:${port}`).join(',')}`;
  const { lazyConnect, enableOfflineQueue, retryStrategy, ...redisOptions } =
    clientOptions(options);
  const clusterOptions: ClusterOptions = {
    lazyConnect,
    enableOfflineQueue,
    clusterRetryStrategy: reconnectDelay,
    slotsRefreshTimeout: options.connectTimeoutMs ?? DEFAULT_TIMEOUT_MS,
    redisOptions: {
      ...redisOptions,
      // The nodes the cluster announces get the same TLS and credentials as the seeds.
      ...(options.tls ? { tls: {} } : {}),
      ...(options.username === undefined ? {} : { username: options.username }),
      ...(options.password === undefined ? {} : { password: options.password }),
    },
  };
  const cluster = new Cluster(seeds, clusterOptions);
  // Every node's connection is opened up front (and a node found later at once), not by the
  // first command sent to it: with no offline queue, commands that meet a node still connecting
  // are sent again after a delay, each late and out of the order they were sent in (the audit
  // stream's lines of one transition among them). (Not while the cluster connects: it opens the
  // nodes it needs then, and one opened beside it hung the connect.)
  cluster.on('+node', (node: Redis) => {
    if (cluster.status === 'ready' && node.status === 'wait') node.connect().catch(() => {});
  });
  await connectAndPing(cluster, where, options);
  await openEveryNode(cluster, options.connectTimeoutMs ?? DEFAULT_TIMEOUT_MS);
  return cluster;
}

/**
 * Waits, for at most `limitMs`, until every node the cluster announced has answered a PING (its
 * connection open). A node that does not answer (a replica down) is left to the cluster as
 * before: the store starts all the same.
 */
async function openEveryNode(cluster: Cluster, limitMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, limitMs);
  });
  try {
    await Promise.race([
      Promise.allSettled(cluster.nodes('all').map((node) => node.ping())),
      limit,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

async function connectAndPing(
  client: RedisClient,
  where: string,
  options: ConnectOptions,
): Promise<void> {
  let lastError: Error | undefined;
  const remember = (error: Error) => {
    lastError = error;
  };
  client.on('error', remember);
  const limitMs = (options.connectTimeoutMs ?? DEFAULT_TIMEOUT_MS) + 1_000;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${limitMs} ms`)), limitMs);
  });
  try {
    await Promise.race([client.connect().then(() => client.ping()), timeout]);
  } catch (error) {
    client.disconnect();
    const cause = lastError ?? error;
    const reason = errorMessage(cause);
    throw new StoreError('unavailable', `Redis at ${where} is unreachable: ${reason}`, { cause });
  } finally {
    clearTimeout(timer);
    client.off('error', remember);
  }
  // Without a listener ioredis prints every reconnection error to the console.
  client.on('error', options.onError ?? (() => {}));
}

/** `redis://user:secret@host:6379/0` → `redis://host:6379/0`: safe for messages and logs. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.username = '';
    parsed.password = '';
    return parsed.toString();
  } catch {
    return '(an unparsable URL)';
  }
}

function parseNode(node: string): { host: string; port: number } {
  const match = /^(.+):(\d+)$/.exec(node.trim());
  if (!match?.[1] || !match[2]) throw new Error(`expected host:port, got "${node}"`);
  return { host: match[1], port: Number(match[2]) };
}

/** Runs one Redis call, turning whatever it throws into a `StoreError` (see `toStoreError`). */
export async function redisCall<T>(doing: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw toStoreError(error, doing);
  }
}

/** Reply errors that mean "Redis cannot serve this now", not "this call is wrong". */
const OUTAGE_REPLY = /^(CLUSTERDOWN|TRYAGAIN|LOADING|BUSY|READONLY|MASTERDOWN|OOM|MISCONF)\b/;

/**
 * Turns whatever ioredis threw into a `StoreError`: a reply error from Redis means a bug in a
 * command or script (`script`), a key of the wrong type means a garbled record
 * (`corrupt_record`), a command sent but never answered means `outcome_unknown`, and anything
 * else (refused, not connected) means `unavailable`.
 */
export function toStoreError(error: unknown, doing: string): StoreError {
  if (error instanceof StoreError) return error;
  const message = errorMessage(error);
  const isReply = error instanceof Error && error.name === 'ReplyError';
  if (isReply && message.startsWith('WRONGTYPE')) {
    return new StoreError('corrupt_record', `${doing}: a key holds the wrong type (${message})`, {
      cause: error,
    });
  }
  if (isReply && !OUTAGE_REPLY.test(message)) {
    return new StoreError('script', `Redis refused ${doing}: ${message}`, { cause: error });
  }
  if (SENT_NO_ANSWER.test(message)) {
    return new StoreError('outcome_unknown', `Redis did not answer (${doing}): ${message}`, {
      cause: error,
    });
  }
  return new StoreError('unavailable', `Redis is unavailable (${doing}): ${message}`, {
    cause: error,
  });
}

/**
 * ioredis's words for a command that was written but never answered in time. (A connection that
 * closes with commands in flight says "Connection is closed", as does a call on a closed client
 * that was never sent; those stay `unavailable`: the common stall ends in a timeout.)
 */
const SENT_NO_ANSWER = /^Command timed out/;
