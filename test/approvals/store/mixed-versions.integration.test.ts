import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { RedisClient } from '../../../src/approvals/store/redis-connection.js';
import * as current from '../../../src/approvals/store/redis-store.js';
import type { ApprovalStore } from '../../../src/approvals/store.js';
import { connectTestRedis, deleteWithPrefix, randomPrefix } from '../../support/redis.js';
import { exportedAudit } from './audit-exports.js';
import { APPROVER, approvalOfFirstGate, newPause, policy, T0 } from './fixtures.js';

/**
 * A rolling upgrade runs two versions of the store on one Redis for a while, and pending gates
 * live for days, so each version meets what the other wrote. Here the store of an earlier commit
 * (its `src/` as git holds it, loaded as it is) runs beside this one on the same keys, each a
 * replica with its own connection and caches: what one records, the other reads, votes on,
 * expires, resumes and exports, in both orders.
 *
 * The earlier commit is the oldest that docs/operations.md says runs beside this version with
 * nothing lost (it reads audit stream entries that hold only their lines, which this version
 * writes; before it, gates recorded without their callId field, entries of several lines and ADK's
 * default hint as a flag). Move it forward when a step of the store's layout ships: its readers
 * first.
 */
const OLD_REVISION = 'bf437a76f6dc06af624ee7a4b8ad8ea526678b4d';
const REPO_ROOT = fileURLToPath(new URL('../../..', import.meta.url));

type StoreModule = typeof current;
let old: StoreModule;
let oldTree: string;

beforeAll(async () => {
  try {
    execFileSync('git', ['cat-file', '-e', `${OLD_REVISION}^{commit}`], { cwd: REPO_ROOT });
  } catch {
    throw new Error(
      `commit ${OLD_REVISION} is not in this clone: this test needs the repository's history (a clone without --depth)`,
    );
  }
  oldTree = await mkdtemp(join(tmpdir(), 'store-at-old-revision-'));
  const archive = execFileSync('git', ['archive', '--format=tar', OLD_REVISION, 'src'], {
    cwd: REPO_ROOT,
    maxBuffer: 64 * 1024 * 1024,
  });
  execFileSync('tar', ['-x', '-C', oldTree], { input: archive });
  // Its imports of packages (ioredis, zod, the workspace's own) resolve to this checkout's.
  await symlink(join(REPO_ROOT, 'node_modules'), join(oldTree, 'node_modules'));
  const url = pathToFileURL(join(oldTree, 'src/approvals/store/redis-store.ts')).href;
  old = (await import(/* @vite-ignore */ url)) as StoreModule;
}, 60_000);

afterAll(async () => {
  if (oldTree) await rm(oldTree, { recursive: true, force: true });
});

interface Replica {
  redis: RedisClient;
  store: ApprovalStore;
}

let keyPrefix: string;
let replicas: Replica[] = [];

async function replica(version: StoreModule): Promise<ApprovalStore> {
  const redis = await connectTestRedis();
  const store = version.openRedisStore({ redis, keyPrefix });
  replicas.push({ redis, store });
  return store;
}

beforeEach(() => {
  keyPrefix = randomPrefix();
});

afterEach(async () => {
  const [first] = replicas;
  if (first) await deleteWithPrefix(first.redis, keyPrefix);
  for (const { redis, store } of replicas) {
    await store.lifecycle.close();
    redis.disconnect();
  }
  replicas = [];
});

const events = (lines: readonly string[], pauseId: string) =>
  lines
    .map((line) => JSON.parse(line) as { pauseId?: string; event?: string })
    .filter((line) => line.pauseId === pauseId)
    .map((line) => line.event);

describe.each([
  ['the earlier version records, this one carries on', () => old, () => current],
  [
    'this version records, the earlier one carries on (during the upgrade)',
    () => current,
    () => old,
  ],
])('mixed versions: %s', (_name, writerVersion, readerVersion) => {
  it('reads what the other recorded as the same view, votes on it, expires it and exports both, whole', async () => {
    const writer = await replica(writerVersion());
    const reader = await replica(readerVersion());
    const voted = newPause({ gates: 2, policies: [policy({ quorum: 2 }), policy()] });
    const expiring = newPause({ policies: [policy({ expiresInMs: 60_000 })] });
    await writer.pauses.createPause(voted);
    await writer.pauses.createPause(expiring);
    await writer.pauses.setCardTs(voted.id, '1795326457.000200', T0 + 1);

    // Read: the same pause, whichever version reads it.
    const asWritten = await writer.pauses.getPause(voted.id);
    expect(asWritten).toBeDefined();
    expect(await reader.pauses.getPause(voted.id)).toEqual(asWritten);

    // Votes: a quorum of two, one vote by each version.
    const first = await writer.pauses.vote(approvalOfFirstGate(voted, T0 + 2));
    expect(first.kind).toBe('counted');
    const second = await reader.pauses.vote(
      approvalOfFirstGate(voted, T0 + 3, { voter: 'U0SECOND' }),
    );
    expect(second.kind).toBe('decided');
    const [gate] = (await writer.pauses.getPause(voted.id))?.gates ?? [];
    expect(gate?.state).toBe('approved');
    expect(gate?.votes.map((vote) => vote.voter)).toEqual([APPROVER, 'U0SECOND']);
    expect(await reader.pauses.getPause(voted.id)).toEqual(await writer.pauses.getPause(voted.id));

    // Expiry: swept by the version that did not record it, seen by the one that did.
    const swept = await reader.sweeps.expireDue(T0 + 60_001);
    expect(swept.map((expired) => [expired.view.pause.id, expired.state])).toEqual([
      [expiring.id, 'expired'],
    ]);
    expect((await writer.pauses.getPause(expiring.id))?.gates[0]?.state).toBe('expired');

    // Export: both versions export the same lines, every one, in chains `audit verify` accepts.
    const byReader = await exportedAudit(reader);
    const byWriter = await exportedAudit(writer);
    expect(byReader.verdict).toMatchObject({ ok: true, pauses: 2 });
    expect(byWriter).toEqual(byReader);
    expect(events(byReader.lines, voted.id)).toEqual([
      'created',
      'card_posted',
      'voted',
      'voted',
      'approved',
    ]);
    expect(events(byReader.lines, expiring.id)).toEqual(['created', 'expired']);
  });

  it("a pause one decided, the other resumes: its lease taken over once it lapses, the first owner's outcome refused, one finish", async () => {
    const writer = await replica(writerVersion());
    const reader = await replica(readerVersion());
    const input = newPause();
    await writer.pauses.createPause(input);
    expect((await writer.pauses.vote(approvalOfFirstGate(input, T0 + 1))).kind).toBe('decided');

    const lease = { pauseId: input.id, leaseMs: 1_000 };
    const first = await reader.leases.claimResume({ ...lease, owner: 'reader', now: T0 + 2 });
    expect(first).toMatchObject({ kind: 'claimed', attempt: 1 });
    expect((await writer.leases.claimResume({ ...lease, owner: 'writer', now: T0 + 3 })).kind).toBe(
      'leased',
    );
    const takeover = await writer.leases.claimResume({
      ...lease,
      owner: 'writer',
      now: T0 + 1_100,
    });
    expect(takeover).toMatchObject({ kind: 'claimed', attempt: 2 });
    expect(
      (await reader.leases.markResumed({ pauseId: input.id, owner: 'reader', now: T0 + 1_200 }))
        .kind,
    ).toBe('lost_lease');
    expect(
      (await writer.leases.markResumed({ pauseId: input.id, owner: 'writer', now: T0 + 1_300 }))
        .kind,
    ).toBe('ok');
    for (const store of [reader, writer]) {
      expect((await store.pauses.getPause(input.id))?.pause.resume.state).toBe('resumed');
      expect(
        (await store.leases.claimResume({ ...lease, owner: 'late', now: T0 + 5_000 })).kind,
      ).toBe('finished');
    }

    const byReader = await exportedAudit(reader);
    expect(byReader.verdict).toMatchObject({ ok: true, pauses: 1 });
    expect(await exportedAudit(writer)).toEqual(byReader);
    expect(events(byReader.lines, input.id)).toEqual([
      'created',
      'voted',
      'approved',
      'resume_claimed',
      'resume_claimed',
      'resumed',
    ]);
  });
});
