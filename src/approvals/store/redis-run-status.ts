import { parseJsonText } from '../../json.js';
import {
  type RunRecord,
  type RunRoot,
  type RunStatus,
  type RunStatusStore,
  type RunThreadRef,
  runRootSchema,
  runStatusSchema,
} from '../run-status.js';
import { StoreError } from '../store.js';
import { type RedisClient, redisCall } from './redis-connection.js';
import { DEFAULT_RETENTION_MS } from './rules.js';

/**
 * Runs' root messages and statuses in Redis, one hash per run thread:
 * `<prefix>run:<channelId>:<threadTs>` with `root` and `status` (JSON), kept for the retention
 * period after the last write. A single-key command each: Cluster-safe.
 */
export class RedisRunStatusStore implements RunStatusStore {
  constructor(
    private readonly redis: RedisClient,
    private readonly keyPrefix: string,
    private readonly retentionMs = DEFAULT_RETENTION_MS,
  ) {}

  async saveRoot(thread: RunThreadRef, root: RunRoot): Promise<void> {
    const key = this.key(thread);
    const status: RunStatus = { kind: 'running' };
    await redisCall('save a run root', () =>
      this.redis
        .multi()
        .hset(key, 'root', JSON.stringify(root), 'status', JSON.stringify(status))
        .pexpire(key, this.retentionMs)
        .exec(),
    );
  }

  async setStatus(thread: RunThreadRef, status: RunStatus): Promise<void> {
    const key = this.key(thread);
    // Only a run whose root was saved: HSETX-like, so that a stray status makes no half record.
    await redisCall('set a run status', () =>
      this.redis.eval(SET_IF_EXISTS, 1, key, JSON.stringify(status), this.retentionMs),
    );
  }

  async read(thread: RunThreadRef): Promise<RunRecord | undefined> {
    const key = this.key(thread);
    const [root, status] = await redisCall('read a run status', () =>
      this.redis.hmget(key, 'root', 'status'),
    );
    if (root == null || status == null) return undefined;
    const parsedRoot = runRootSchema.safeParse(json(root));
    const parsedStatus = runStatusSchema.safeParse(json(status));
    if (!parsedRoot.success || !parsedStatus.success) {
      throw new StoreError('corrupt_record', `${key} does not hold a run record`);
    }
    return { root: parsedRoot.data, status: parsedStatus.data };
  }

  private key(thread: RunThreadRef): string {
    return `${this.keyPrefix}run:${thread.channelId}:${thread.threadTs}`;
  }
}

/** KEYS: [1] the run hash. ARGV: [1] status JSON, [2] retention ms. Returns 1 if set, else 0. */
const SET_IF_EXISTS = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], 'status', ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
`;

function json(text: string): unknown {
  const parsed = parseJsonText(text);
  return parsed.ok ? parsed.value : undefined;
}
