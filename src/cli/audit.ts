import { connectRedis, connectRedisCluster } from '../approvals/store/redis-connection.js';
import { RedisConfirmationStore } from '../approvals/store/redis-store.js';
import { loadConfig, withEnvFile } from '../config.js';
import { runAuditCli } from './audit-cli.js';

/**
 * `npm run audit -- export|verify …` (or `node dist/cli/audit.js …` in a built image). `export`
 * reads the store named by REDIS_URL or REDIS_CLUSTER_NODES (and REDIS_KEY_PREFIX), as the app
 * does; `verify` needs nothing but the file.
 */
let close: (() => Promise<void>) | undefined;
const code = await runAuditCli(process.argv.slice(2), {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
  now: () => Date.now(),
  store: async () => {
    const config = loadConfig(withEnvFile(process.env, '.env').env);
    if (config.redis === undefined) {
      throw new Error('set REDIS_URL or REDIS_CLUSTER_NODES: the audit is in Redis');
    }
    const redis =
      config.redis.kind === 'cluster'
        ? await connectRedisCluster(config.redis.cluster.nodes, config.redis.cluster)
        : await connectRedis(config.redis.url);
    const store = new RedisConfirmationStore({
      redis,
      keyPrefix: config.redis.keyPrefix,
      ownsClient: true,
    });
    close = () => store.close();
    return store;
  },
}).finally(() => close?.());
process.exitCode = code;
