import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { AUDIT_EXPORT_KIND } from '../../src/approvals/audit-export.js';
import type { RedisClient } from '../../src/approvals/store/redis-connection.js';
import { openRedisStore } from '../../src/approvals/store/redis-store.js';
import { APPROVER, firstCallId, newPause, T0 } from '../approvals/store/fixtures.js';
import {
  APP_REDIS_ENV,
  connectTestRedis,
  deleteWithPrefix,
  randomPrefix,
} from '../support/redis.js';

/**
 * The command-line tools as a person types them in a checkout, through npm and a shell:
 * `npm run audit -- export > f && npm run audit -- verify f` on an untampered store, the
 * installable command whose stdout is its data alone, no stack trace without a store, and
 * `npm run policy` beside `npm run audit` (they build nothing, so they cannot break each other).
 * Real Redis under a random key prefix.
 */
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** npm runs the sources; on a busy 2-core machine a command can still take many seconds. */
const COMMAND_TIMEOUT_MS = 240_000;

let keyPrefix: string;
let redis: RedisClient;
let dir: string;

beforeAll(async () => {
  keyPrefix = randomPrefix();
  redis = await connectTestRedis();
  const store = openRedisStore({ redis, keyPrefix });
  for (const choice of ['approve', 'reject'] as const) {
    const pause = newPause();
    await store.pauses.createPause(pause);
    await store.pauses.vote({
      pauseId: pause.id,
      callId: firstCallId(pause),
      voter: APPROVER,
      choice,
      now: T0 + 10,
    });
  }
  dir = await mkdtemp(join(tmpdir(), 'dev-commands-'));
});

afterAll(async () => {
  await deleteWithPrefix(redis, keyPrefix);
  redis.disconnect();
  await rm(dir, { recursive: true, force: true });
});

/** What `execFile` rejects with when the command exits non-zero (or is killed: no code). */
const failedCommandSchema = z.object({
  code: z.number().nullish(),
  stdout: z.string().default(''),
  stderr: z.string().default(''),
});

interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
}

/** `script` in `sh` at the repository's root, as typed in a terminal there. */
async function shell(script: string, env: Record<string, string> = {}): Promise<Outcome> {
  try {
    const { stdout, stderr } = await promisify(execFile)('sh', ['-c', script], {
      cwd: ROOT,
      env: { ...process.env, ...APP_REDIS_ENV, REDIS_KEY_PREFIX: keyPrefix, ...env },
      timeout: COMMAND_TIMEOUT_MS,
      maxBuffer: 16 * 1024 * 1024,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = failedCommandSchema.parse(error);
    return { code: failed.code ?? -1, stdout: failed.stdout, stderr: failed.stderr };
  }
}

describe('npm run audit', () => {
  it(
    'export > f, then verify f, exits 0 on an untampered store',
    async () => {
      const file = join(dir, 'audit.jsonl');
      const run = await shell(
        `npm run audit -- export > "${file}" && npm run audit -- verify "${file}"`,
      );
      expect(run.stderr + run.stdout).toMatch(/OK .*audit\.jsonl: 6 entries of 2 pauses/);
      expect(run.code).toBe(0);
    },
    COMMAND_TIMEOUT_MS,
  );

  it(
    'export without a Redis configured says which variable to set, without a stack trace',
    async () => {
      const run = await shell('npm run audit -- export', {
        REDIS_URL: '',
        REDIS_CLUSTER_NODES: '',
      });
      expect(run.code).toBe(2);
      expect(run.stderr).toContain('set REDIS_URL (or REDIS_CLUSTER_NODES)');
      expect(run.stderr).not.toMatch(/^\s+at /m);
    },
    COMMAND_TIMEOUT_MS,
  );
});

describe('the installable command (npx adk-slack-approvals)', () => {
  it(
    'audit export writes the export alone to stdout: every line is JSON, the first its header',
    async () => {
      const run = await shell('npx --no-install adk-slack-approvals audit export');
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      const lines = run.stdout.trimEnd().split('\n');
      expect(lines).toHaveLength(7);
      expect(JSON.parse(lines[0] ?? '')).toMatchObject({ kind: AUDIT_EXPORT_KIND });
      for (const line of lines) expect(() => JSON.parse(line)).not.toThrow();
    },
    COMMAND_TIMEOUT_MS,
  );

  it(
    'policy check writes its verdict alone to stdout',
    async () => {
      const run = await shell(
        'npx --no-install adk-slack-approvals policy check examples/policy.yml',
      );
      expect(run.code).toBe(0);
      expect(run.stdout).toMatch(
        /^(warning: .*\n)*ok: examples\/policy\.yml \(\d+ rules, version [0-9a-f]{12}\)\n$/,
      );
    },
    COMMAND_TIMEOUT_MS,
  );
});

describe('side by side in one checkout', () => {
  /** When the app's built output was last written; absent when never built. */
  const builtAt = () =>
    stat(join(ROOT, 'dist', 'cli')).then(
      (info) => info.mtimeMs,
      () => undefined,
    );

  it(
    'npm run policy and npm run audit at once both succeed, and neither builds anything',
    async () => {
      const file = join(dir, 'side-by-side.jsonl');
      await shell(`npx --no-install adk-slack-approvals audit export > "${file}"`);
      const before = await builtAt();
      const [policy, audit] = await Promise.all([
        shell('npm run policy -- check examples/policy.yml'),
        shell(`npm run audit -- verify "${file}"`),
      ]);
      expect(policy.stderr).not.toContain('error');
      expect(policy.code).toBe(0);
      expect(audit.code).toBe(0);
      expect(await builtAt()).toBe(before);
      expect(await readFile(file, 'utf8')).toMatch(/^\{/);
    },
    COMMAND_TIMEOUT_MS,
  );
});
