import { createHash } from 'node:crypto';
import { z } from 'zod';
import {
  ALERT_TRACK_TTL_MS,
  type AlertTracks,
  type ClaimOutcome,
  type RecordOutcome,
} from '../alert-tracks.js';
import { StoreError } from '../store.js';
import { assertNoHashTag } from './keys.js';
import { type RedisClient, redisCall } from './redis-connection.js';
import { LuaScript } from './scripts/lua-script.js';

/**
 * The alerts tied to runs, in Redis: the Lua twin of the rules in `alert-tracks.ts`. Every key is
 * in the hash slot `{alerts}`, so that recording a notification and claiming a stand-down are
 * single atomic steps on Redis Cluster as on one Redis, whichever replica received it:
 *
 * ```
 * <prefix>{alerts}:run:<runId>          hash    f:<fingerprint> → "firing" | resolvedAt (ms);
 *                                               grace (ms); done (ms, once stood down)
 * <prefix>{alerts}:group:<sha256 of key> string  the run a group (its dedupe key) is tied to
 * <prefix>{alerts}:due                  zset    runId by when its stand-down is due
 * ```
 *
 * Each run's hash and its group's key expire `ALERT_TRACK_TTL_MS` after their last write.
 */

/** The alerts' state (the Lua twin of `trackedState`): sets `firing`, `count`, `latest`. */
const LUA_STATE = `
local function state(key)
  local all = redis.call('HGETALL', key)
  local firing, count, latest = 0, 0, nil
  for i = 1, #all, 2 do
    if string.sub(all[i], 1, 2) == 'f:' then
      count = count + 1
      if all[i + 1] == 'firing' then firing = firing + 1
      else
        local at = tonumber(all[i + 1])
        if latest == nil or at > latest then latest = at end
      end
    end
  end
  return firing, count, latest
end
`;

/**
 * record_alerts: a notification's alerts applied to a run (the Lua twin of `applyAlerts`).
 * KEYS: [1] run hash, [2] due zset, [3] group key
 * ARGV: [1] runId, [2] grace ms, [3] ttl ms, [4] '1' to tie the group to the run,
 *       [5..] fingerprint, then "firing" or the resolve time (ms), per alert
 * Returns {-1} (stood down already) | {0, firing count}
 *   | {1, stand-down due at, 1 when the run just went quiet or its due time moved, else 0}
 */
const RECORD_LUA = `
${LUA_STATE}
if redis.call('HEXISTS', KEYS[1], 'done') == 1 then return {-1} end
for i = 5, #ARGV, 2 do
  local field = 'f:' .. ARGV[i]
  if ARGV[i + 1] == 'firing' then redis.call('HSET', KEYS[1], field, 'firing')
  elseif redis.call('HGET', KEYS[1], field) == 'firing' then
    redis.call('HSET', KEYS[1], field, ARGV[i + 1])
  end
end
redis.call('HSET', KEYS[1], 'grace', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
if ARGV[4] == '1' then redis.call('SET', KEYS[3], ARGV[1], 'PX', ARGV[3]) end
local firing, count, latest = state(KEYS[1])
if firing > 0 or count == 0 then
  redis.call('ZREM', KEYS[2], ARGV[1])
  return {0, firing}
end
local due = latest + tonumber(ARGV[2])
local before = redis.call('ZSCORE', KEYS[2], ARGV[1])
redis.call('ZADD', KEYS[2], due, ARGV[1])
if before and tonumber(before) == due then return {1, due, 0} end
return {1, due, 1}
`;

/**
 * claim_stand_down: marks a run stood down when every alert is resolved and quiet for its grace.
 * KEYS: [1] run hash, [2] due zset
 * ARGV: [1] runId, [2] now
 * Returns {1, resolvedAt} (claimed) | {0} (not due: gone, stood down, firing, or not quiet long
 *   enough, its due time then corrected)
 */
const CLAIM_LUA = `
${LUA_STATE}
if redis.call('EXISTS', KEYS[1]) == 0 or redis.call('HEXISTS', KEYS[1], 'done') == 1 then
  redis.call('ZREM', KEYS[2], ARGV[1])
  return {0}
end
local firing, count, latest = state(KEYS[1])
if firing > 0 or count == 0 then
  redis.call('ZREM', KEYS[2], ARGV[1])
  return {0}
end
local due = latest + tonumber(redis.call('HGET', KEYS[1], 'grace') or '0')
if due > tonumber(ARGV[2]) then
  redis.call('ZADD', KEYS[2], due, ARGV[1])
  return {0}
end
redis.call('HSET', KEYS[1], 'done', ARGV[2])
redis.call('ZREM', KEYS[2], ARGV[1])
return {1, latest}
`;

const recordScript = new LuaScript('record_alerts', RECORD_LUA);
const claimScript = new LuaScript('claim_stand_down', CLAIM_LUA);
const replySchema = z.array(z.number().int());

export class RedisAlertTracks implements AlertTracks {
  private readonly tag: string;

  constructor(
    private readonly redis: RedisClient,
    prefix: string,
  ) {
    assertNoHashTag('The key prefix', prefix);
    this.tag = `${prefix}{alerts}`;
  }

  async record(input: Parameters<AlertTracks['record']>[0]): Promise<RecordOutcome> {
    const group = this.groupKey(input.group);
    const runId =
      input.runId ?? (await redisCall(`read ${group}`, () => this.redis.get(group))) ?? undefined;
    if (runId === undefined) return { kind: 'no_run' };
    const args = input.alerts.flatMap((alert) => [
      alert.fingerprint,
      alert.status === 'firing' ? 'firing' : alert.resolvedAt,
    ]);
    const [code, value, changed] = this.parse(
      'record alerts',
      await redisCall(`record the alerts of ${this.runKey(runId)}`, () =>
        recordScript.run(
          this.redis,
          [this.runKey(runId), this.dueKey(), group],
          [
            runId,
            input.standDownAfterMs,
            ALERT_TRACK_TTL_MS,
            input.runId === undefined ? '0' : '1',
            ...args,
          ],
        ),
      ),
    );
    if (code === -1) return { kind: 'stood_down', runId };
    if (code === 0) return { kind: 'firing', runId, firing: value ?? 0 };
    return { kind: 'quiet', runId, standDownAt: value ?? input.now, changed: changed !== 0 };
  }

  async due(now: number, limit: number): Promise<string[]> {
    return await redisCall(`read ${this.dueKey()}`, () =>
      this.redis.zrangebyscore(this.dueKey(), '-inf', now, 'LIMIT', 0, limit),
    );
  }

  async claimStandDown(runId: string, now: number): Promise<ClaimOutcome> {
    const [code, resolvedAt] = this.parse(
      'claim a stand-down',
      await redisCall(`claim the stand-down of ${this.runKey(runId)}`, () =>
        claimScript.run(this.redis, [this.runKey(runId), this.dueKey()], [runId, now]),
      ),
    );
    return code === 1 && resolvedAt !== undefined
      ? { kind: 'claimed', resolvedAt }
      : { kind: 'not_due' };
  }

  async rearm(runId: string, at: number): Promise<void> {
    const multi = this.redis.multi();
    multi.hdel(this.runKey(runId), 'done');
    multi.zadd(this.dueKey(), at, runId);
    await redisCall(`re-arm ${this.runKey(runId)}`, () => multi.exec());
  }

  private parse(doing: string, raw: unknown): [number, number | undefined, number | undefined] {
    const reply = replySchema.safeParse(raw);
    const code = reply.success ? reply.data[0] : undefined;
    if (code === undefined) throw new StoreError('corrupt_record', `${doing}: unexpected reply`);
    return [
      code,
      reply.success ? reply.data[1] : undefined,
      reply.success ? reply.data[2] : undefined,
    ];
  }

  private runKey(runId: string): string {
    return `${this.tag}:run:${runId}`;
  }

  private groupKey(group: string): string {
    return `${this.tag}:group:${createHash('sha256').update(group).digest('hex')}`;
  }

  private dueKey(): string {
    return `${this.tag}:due`;
  }
}
