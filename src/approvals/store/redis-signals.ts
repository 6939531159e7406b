import { once } from 'node:events';
import type { Log } from '../../log.js';
import { LocalPauseSignals, type PauseSignals } from '../pause-signals.js';
import { type RedisClient, redisCall } from './redis-connection.js';

/**
 * Pause signals across replicas over Redis pub/sub: one channel, the pause id as the message,
 * one subscriber connection per replica fanning out to its local waiters. Pub/sub is
 * fire-and-forget; a waiter that misses a signal (a reconnect) still sees the decision when its
 * wait ends and it reads the store.
 */
export class RedisPauseSignals implements PauseSignals {
  private readonly local = new LocalPauseSignals();

  private constructor(
    private readonly publisher: RedisClient,
    private readonly subscriber: RedisClient,
    private readonly channel: string,
  ) {}

  static async open(redis: RedisClient, keyPrefix: string, log: Log): Promise<RedisPauseSignals> {
    const subscriber = redis.duplicate();
    const signals = new RedisPauseSignals(redis, subscriber, `${keyPrefix}pause-changed`);
    subscriber.on('message', (channel: string, pauseId: string) => {
      if (channel === signals.channel) void signals.local.notify(pauseId);
    });
    subscriber.on('error', (error: Error) => {
      log.warn('pause signal subscriber error', { error: error.message });
    });
    // The app's connections connect lazily and fail fast (no offline queue): connect it first.
    if (subscriber.status === 'wait')
      await redisCall('connect the signal subscriber', () => subscriber.connect());
    else if (subscriber.status !== 'ready') await once(subscriber, 'ready');
    await redisCall(`subscribe ${signals.channel}`, () => subscriber.subscribe(signals.channel));
    return signals;
  }

  async notify(pauseId: string): Promise<void> {
    await redisCall(`publish ${this.channel}`, () => this.publisher.publish(this.channel, pauseId));
  }

  listen(pauseId: string, listener: () => void): () => void {
    return this.local.listen(pauseId, listener);
  }

  async close(): Promise<void> {
    await this.local.close();
    this.subscriber.disconnect();
  }
}
