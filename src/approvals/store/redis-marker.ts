import { z } from 'zod';
import { parseJsonText } from '../../json.js';
import type { StoreLifecycle, StoreMarker } from '../store-roles/lifecycle.js';
import type { StoreKeys } from './keys.js';
import { type RedisClient, redisCall } from './redis-connection.js';

/**
 * The store marker's value: when it was placed and, placed again after a loss, when that loss
 * was found. A marker placed before the loss time was kept holds the placing time alone.
 */
const markerValueSchema = z.union([
  z.strictObject({
    placedAt: z.number().int().nonnegative(),
    lossFoundAt: z.number().int().nonnegative().optional(),
  }),
  z
    .number()
    .int()
    .nonnegative()
    .transform((placedAt) => ({ placedAt })),
]);

/** `SET NX`: a marker already there is kept, with what it says. */
async function placeRedisMarker(
  redis: RedisClient,
  key: string,
  input: { now: number; lossFoundAt?: number },
): Promise<void> {
  const value = JSON.stringify({
    placedAt: input.now,
    ...(input.lossFoundAt === undefined ? {} : { lossFoundAt: input.lossFoundAt }),
  });
  await redisCall('place the store marker', () => redis.set(key, value, 'NX'));
}

/** An unreadable value still proves the data is there: it reads as placed at 0. */
async function readRedisMarker(redis: RedisClient, key: string): Promise<StoreMarker> {
  const value = await redisCall('read the store marker', () => redis.get(key));
  if (value === null) return { kind: 'missing' };
  const json = parseJsonText(value);
  const parsed = json.ok ? markerValueSchema.safeParse(json.value) : undefined;
  return { kind: 'present', ...(parsed?.success ? parsed.data : { placedAt: 0 }) };
}

/** The Redis store's marker, and its connection when the store owns it. */
export class RedisStoreLifecycle implements StoreLifecycle {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: StoreKeys,
    private readonly ownsClient: boolean,
  ) {}

  placeMarker(input: { now: number; lossFoundAt?: number }): Promise<void> {
    return placeRedisMarker(this.redis, this.keys.marker, input);
  }

  readMarker(): Promise<StoreMarker> {
    return readRedisMarker(this.redis, this.keys.marker);
  }

  async close(): Promise<void> {
    if (!this.ownsClient) return;
    try {
      await this.redis.quit();
    } catch {
      this.redis.disconnect();
    }
  }
}
