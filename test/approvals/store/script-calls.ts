import { Cluster, Redis } from 'ioredis';

/** A script call as EVALSHA sends it. */
export interface ScriptCall {
  keys: string[];
  args: string[];
}

/**
 * Runs `work`, telling `onScript` of every script call any Redis or Cluster client of this
 * process starts meanwhile: the script's SHA-1, its first key, and its keys and arguments. When
 * `onScript` returns a promise, the call waits for it (to read what the keys hold before the
 * script runs). Every call starts with an
 * EVALSHA (scripts/lua-script.ts), and the EVAL that follows a NOSCRIPT answer (a script's first
 * run on a server or a Cluster node) is the same call, so only EVALSHA is watched. (Watched at the
 * client, not with MONITOR: ioredis's monitor connection once mistook another test file's command
 * for a reply under load.)
 */
export async function whileScriptsRun<T>(
  onScript: (sha: string, firstKey: unknown, call: ScriptCall) => unknown,
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
        const run = () => Reflect.apply(original, this, [sha, ...rest]);
        if (typeof sha !== 'string') return run();
        const count = Number(rest[0]);
        const call = {
          keys: rest.slice(1, 1 + count).map(String),
          args: rest.slice(1 + count).map(String),
        };
        const seen = onScript(sha, rest[1], call);
        return seen instanceof Promise ? seen.then(run) : run();
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
