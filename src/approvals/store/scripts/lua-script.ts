import { createHash } from 'node:crypto';
import type { RedisClient } from '../redis-connection.js';

/**
 * A Lua script run with EVALSHA, falling back to EVAL (which also caches it) when the server
 * does not know it yet: after a restart, a failover, or on a node the script never ran on.
 */
export class LuaScript {
  readonly sha: string;

  constructor(
    readonly name: string,
    readonly source: string,
  ) {
    this.sha = createHash('sha1').update(source).digest('hex');
  }

  async run(
    client: RedisClient,
    keys: readonly string[],
    args: readonly (string | number)[],
  ): Promise<unknown> {
    try {
      return await client.evalsha(this.sha, keys.length, ...keys, ...args);
    } catch (error) {
      if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
      return await client.eval(this.source, keys.length, ...keys, ...args);
    }
  }
}
