import { z } from 'zod';
import type {
  AdvanceRunInput,
  ClaimDeadRunsInput,
  RecordRunInput,
  RunIntent,
  RunIntentStore,
} from '../store-roles/run-intents.js';
import type { StoreKeys } from './keys.js';
import { type RedisClient, redisCall } from './redis-connection.js';
import { DEFAULT_LIMIT } from './rules.js';
import { intentFields, parseIntentFields } from './run-intent-fields.js';
import { LuaScript } from './scripts/lua-script.js';
import { RUN_INTENT_LUA } from './scripts/run-intent.lua.js';

const RUN_INTENT = new LuaScript('run_intent', RUN_INTENT_LUA);

/**
 * An intent nobody finished or claimed (its index entry lost) is removed by Redis after a day:
 * by then telling the requester is pointless.
 */
const INTENT_TTL_MS = 24 * 60 * 60 * 1000;

const claimReplySchema = z.array(z.string());

/**
 * Run intents on Redis: one hash per run (its own slot, changed only by `run_intent`), and a
 * global sorted set of lease ends, kept beside it with single-key commands. A crash between
 * the two leaves either an index entry without an intent (dropped when claimed) or an intent
 * whose entry is stale (the claim re-reads the lease and re-scores the entry).
 */
export class RedisRunIntents implements RunIntentStore {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: StoreKeys,
  ) {}

  async recordRun({ intent, owner, now, leaseMs }: RecordRunInput): Promise<void> {
    const key = this.keys.runIntent(intent.id);
    const until = now + leaseMs;
    await redisCall('record a run intent', () =>
      Promise.all([
        this.redis.zadd(this.keys.runs, until, intent.id),
        this.redis.hset(key, ...intentFields(intent), 'owner', owner, 'leaseUntil', String(until)),
        this.redis.pexpire(key, INTENT_TTL_MS),
      ]),
    );
  }

  async advanceRun(input: AdvanceRunInput): Promise<'renewed' | 'lost'> {
    const { runId, owner, now, leaseMs, progress } = input;
    const until = now + leaseMs;
    const renewed = await redisCall('renew a run intent', () =>
      RUN_INTENT.run(
        this.redis,
        [this.keys.runIntent(runId)],
        ['advance', now, owner, until, ...(progress === undefined ? [] : intentFields(progress))],
      ),
    );
    if (renewed !== 1) return 'lost' as const;
    await redisCall('reschedule a run intent', () =>
      this.redis.zadd(this.keys.runs, 'XX', until, runId),
    );
    return 'renewed' as const;
  }

  async finishRun({ runId, owner }: { runId: string; owner: string }): Promise<void> {
    const removed = await redisCall('finish a run intent', () =>
      RUN_INTENT.run(this.redis, [this.keys.runIntent(runId)], ['finish', 0, owner, 0]),
    );
    if (removed === 1) {
      await redisCall('drop a run intent entry', () => this.redis.zrem(this.keys.runs, runId));
    }
  }

  async claimDeadRuns(input: ClaimDeadRunsInput): Promise<RunIntent[]> {
    const { now, owner, leaseMs, limit = DEFAULT_LIMIT } = input;
    const index = this.keys.runs;
    const ids = await redisCall(`read ${index}`, () =>
      this.redis.zrangebyscore(index, '-inf', now, 'LIMIT', 0, limit),
    );
    const claimed: RunIntent[] = [];
    for (const runId of ids) {
      const reply = claimReplySchema.parse(
        await redisCall('claim a dead run', () =>
          RUN_INTENT.run(
            this.redis,
            [this.keys.runIntent(runId)],
            ['claim', now, owner, now + leaseMs],
          ),
        ),
      );
      if (reply.length === 0) {
        await redisCall('drop a run intent entry', () => this.redis.zrem(index, runId));
      } else if (reply[0] === 'held') {
        const until = Number(reply[1]);
        await redisCall('reschedule a run intent', () =>
          this.redis.zadd(index, 'XX', until, runId),
        );
      } else {
        await redisCall('reschedule a run intent', () =>
          this.redis.zadd(index, 'XX', now + leaseMs, runId),
        );
        claimed.push(parseIntentFields(reply));
      }
    }
    return claimed;
  }
}
