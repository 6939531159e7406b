import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeKeys } from '../../src/approvals/store/keys.js';
import { RedisRunThreadRecords } from '../../src/approvals/store/redis-run-threads.js';
import type { RunIntent } from '../../src/approvals/store-roles/run-intents.js';
import { ACTION_IDS } from '../../src/slack/codecs/action-ids.js';
import { startConversation } from '../support/adk-conversation.js';
import { CHANNELS, type Harness, PEOPLE, startHarness } from '../support/app-harness.js';
import { keysWithPrefix } from '../support/redis.js';

const { alice, bob } = PEOPLE;
const OPS = CHANNELS.ops.id;
const POLICY = `
defaults:
  approvers: [${bob.id}]
rules: []
`;

let harness: Harness;

beforeAll(async () => {
  harness = await startHarness({ policy: POLICY });
});
afterAll(async () => {
  await harness?.stop();
});

/**
 * The dead replica: it accepted `/agent`, recorded the run's intent and got as far as `intent`
 * says, then died; its lease lapsed a minute ago.
 */
async function diedDuring(intent: Omit<RunIntent, 'requester' | 'channelId' | 'acceptedAt'>) {
  const lapsed = Date.now() - 60_000;
  await harness.store.runs.recordRun({
    intent: { requester: alice.id, channelId: OPS, acceptedAt: lapsed, ...intent },
    owner: 'a-replica-that-died',
    now: lapsed,
    leaseMs: 1_000,
  });
}

describe('an /agent run whose replica lives', () => {
  it('leaves no intent behind once its card is posted, so nobody is told it died', async () => {
    const root = await harness.runAgent(alice.id, OPS, 'payments transfer 70');
    await harness.card(OPS, root.ts);
    // Read without claiming: a claim would hold the intent and hide that it was never finished.
    const runs = storeKeys(harness.keyPrefix).runs;
    await expect.poll(() => harness.redis.zcard(runs)).toBe(0);
    const anHourOn = { now: Date.now() + 3_600_000, owner: 'another-replica', leaseMs: 1_000 };
    expect(await harness.store.runs.claimDeadRuns(anHourOn)).toEqual([]);
    expect(harness.sandbox.replies(OPS, root.ts).some((m) => m.text.includes('restarted'))).toBe(
      false,
    );
  });

  it('keeps one record for its thread: the root, the status and the ADK session in one hash', async () => {
    const root = await harness.runAgent(alice.id, OPS, 'payments transfer 74');
    await harness.card(OPS, root.ts);
    const record = `${harness.keyPrefix}run:${OPS}:${root.ts}`;
    await expect.poll(() => harness.redis.hget(record, 'status')).toContain('waiting');
    const keys = await keysWithPrefix(harness.redis, harness.keyPrefix);
    expect(keys.filter((key) => key.includes(root.ts))).toEqual([record]);
    expect(await harness.redis.hmget(record, 'appName', 'requester', 'lastPauseId')).toEqual([
      'payments',
      alice.id,
      expect.any(String),
    ]);
  });
});

describe('an /agent run whose replica died', () => {
  it('before its thread existed: the requester is told privately what was asked, and that nothing ran', async () => {
    await diedDuring({ id: 'run-before-thread', text: 'payments transfer 71' });
    await expect
      .poll(() => harness.sandbox.ephemerals(alice.id).map((m) => m.text))
      .toContainEqual(expect.stringContaining('restarted before your run “payments transfer 71”'));
    const told = harness.sandbox.ephemerals(alice.id).find((m) => m.text.includes('transfer 71'));
    expect(told?.text).toContain('Nothing was run or approved');
  });

  it('before the agent started: its thread says so', async () => {
    const root = harness.sandbox.postAsPerson({
      user: alice.id,
      channel: OPS,
      text: '/agent payments transfer 72',
    });
    await diedDuring({ id: 'run-before-agent', text: 'payments transfer 72', threadTs: root.ts });
    const told = await harness.reply(OPS, root.ts, 'restarted before the agent started');
    expect(told.text).toContain('Nothing was run or approved');
  });

  it('while the agent waited for an approval: the card is posted from the session in the thread’s record', {
    timeout: 45_000,
  }, async () => {
    const conversation = await startConversation(harness.adk, 'payments', alice.id);
    await conversation.send('transfer 75');
    const root = harness.sandbox.postAsPerson({
      user: alice.id,
      channel: OPS,
      text: '/agent payments transfer 75',
    });
    // As this version records a run: the intent knows its thread, the thread's record the session.
    await diedDuring({ id: 'run-at-gate-record', text: 'payments transfer 75', threadTs: root.ts });
    await new RedisRunThreadRecords(harness.redis, harness.keyPrefix).save({
      channelId: OPS,
      threadTs: root.ts,
      appName: conversation.appName,
      userId: alice.id,
      sessionId: conversation.sessionId,
      requester: alice.id,
    });
    await harness.card(OPS, root.ts);
    const told = await harness.reply(OPS, root.ts, 'restarted while the agent was working');
    expect(told.text).toContain('request for approval is in this thread');
  });

  it('while the agent waited for an approval (an intent of the previous version, the session in it): the card is posted, and approving it runs the tool', {
    timeout: 45_000,
  }, async () => {
    const conversation = await startConversation(harness.adk, 'payments', alice.id);
    await conversation.send('transfer 73');
    const root = harness.sandbox.postAsPerson({
      user: alice.id,
      channel: OPS,
      text: '/agent payments transfer 73',
    });
    await diedDuring({
      id: 'run-at-gate',
      text: 'payments transfer 73',
      threadTs: root.ts,
      appName: conversation.appName,
      sessionId: conversation.sessionId,
    });
    const card = await harness.card(OPS, root.ts);
    const told = await harness.reply(OPS, root.ts, 'restarted while the agent was working');
    expect(told.text).toContain('request for approval is in this thread');
    // Told once: the intent is gone once the requester was told.
    expect(
      await harness.store.runs.claimDeadRuns({ now: Date.now(), owner: 't', leaseMs: 1 }),
    ).toEqual([]);

    await harness.sandbox.clickButton({
      user: bob.id,
      channel: OPS,
      messageTs: card.ts,
      actionId: ACTION_IDS.approve,
    });
    const answer = await harness.reply(OPS, root.ts, 'Tool transfer_money returned');
    expect(answer.text).toContain('"amount":73');
  });
});
