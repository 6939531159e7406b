import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHANNELS, type Harness, PEOPLE, startHarness } from '../support/app-harness.js';
import { keysWithPrefix, servers, usingCluster } from '../support/redis.js';

const { alice, bob } = PEOPLE;
const OPS = CHANNELS.ops.id;

/**
 * `npm run test:cluster` runs this file with REDIS_CLUSTER_NODES naming a 3-master cluster; the
 * app is configured with that variable only (no REDIS_URL). A plain `npm test` has no cluster and
 * skips it.
 */
describe.runIf(usingCluster)('the app on a Redis Cluster', () => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await startHarness({ policy: `defaults:\n  approvers: [${bob.id}]\n` });
  });
  afterAll(async () => {
    await harness?.stop();
  });

  it('an approval resumes the agent, with every record on the cluster', async () => {
    expect(harness.logs.some((line) => line.includes('store: Redis Cluster'))).toBe(true);

    const root = await harness.runAgent(alice.id, OPS, 'payments transfer 250');
    const card = await harness.card(OPS, root.ts);
    const before = await harness.pauseOf(card);
    expect(before.gates[0]?.state).toBe('pending');

    expect(await harness.approveUntilResumed(bob.id, OPS, card)).toBe(200);
    const answer = await harness.reply(OPS, root.ts, 'Tool transfer_money returned');
    expect(answer.text).toContain('"amount":250');

    // Read through a cluster client of the test's own: the app wrote to the cluster, not 6379.
    const after = await harness.pauseOf(card);
    expect(after.gates[0]?.state).toBe('approved');
    expect(after.pause.resume.state).toBe('resumed');
    expect(servers(harness.redis).length).toBe(3);
    expect((await keysWithPrefix(harness.redis, harness.keyPrefix)).length).toBeGreaterThan(0);
  });
});
