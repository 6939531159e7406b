import { Cluster, Redis } from 'ioredis';

/**
 * Runs `work`, telling `onScript` of every script call any Redis or Cluster client of this
 * process starts meanwhile: the script's SHA-1 and its first key. Every call starts with an
 * EVALSHA (scripts/lua-script.ts), and the EVAL that follows a NOSCRIPT answer (a script's first
 * run on a server or a Cluster node) is the same call, so only EVALSHA is watched. (Watched at the
 * client, not with MONITOR: ioredis's monitor connection once mistook another test file's command
 * for a reply under load.)
 */
export async function whileScriptsRun<T>(
  onScript: (sha: string, firstKey: unknown) => void,
  work: () => Promise<T>,
): Promise<T> {
  const restore = [Redis.prototype, Cluster.prototype].map((proto) => {
    const own = Object.hasOwn(proto, 'evalsha');
    const original = proto.evalsha;
    Object.defineProperty(proto, 'evalsha', {
      configurable: true,
      writable: true,
      value(this: unknown, sha: unknown, ...rest: unknown[]) {
        // rest: the key count, then the keys, then the arguments.
        if (typeof sha === 'string') onScript(sha, rest[1]);
        return Reflect.apply(original, this, [sha, ...rest]);
      },
    });
    return () => {
      if (own)
        Object.defineProperty(proto, 'evalsha', {
          configurable: true,
          writable: true,
          value: original,
        });
      else Reflect.deleteProperty(proto, 'evalsha');
    };
  });
  try {
    return await work();
  } finally {
    for (const undo of restore) undo();
  }
}
