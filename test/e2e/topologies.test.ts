import type { SandboxMessage } from '@adk-slack-approvals/slack-sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACTION_IDS } from '../../src/slack/codecs/action-ids.js';
import { CHANNELS, cardText, type Harness, PEOPLE, startHarness } from '../support/app-harness.js';

/**
 * Agent topologies and pause kinds beyond one LlmAgent's confirmations, through the whole app
 * against the real ADK api_server: a ParallelAgent whose branches both pause, a tool that asks
 * for credentials, and a tool that asks a second time once resumed.
 */

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

const thread = (root: SandboxMessage) => harness.thread(OPS, root);
const cardsIn = (root: SandboxMessage) => harness.openCards(OPS, root);

describe('agent topologies, end to end', () => {
  it('a ParallelAgent whose two branches pause gets one card and one resume, and each tool runs once', async () => {
    const root = await harness.runAgent(alice.id, OPS, 'parallel_ops restart billing');
    const card = await harness.card(OPS, root.ts);
    expect(cardText(card)).toContain('restart_service');
    expect(cardText(card)).toContain('notify_team');
    expect((await harness.pauseOf(card)).gates).toHaveLength(2);

    await harness.sandbox.clickButton({
      user: bob.id,
      channel: OPS,
      messageTs: card.ts,
      actionId: ACTION_IDS.approveAll,
    });
    await harness.reply(OPS, root.ts, 'Tool restart_service returned');
    await harness.reply(OPS, root.ts, 'Tool notify_team returned');
    await harness.sandbox.waitFor(() => {
      const now = thread(root).find((message) => message.ts === card.ts);
      return now !== undefined && cardText(now).includes('Agent resumed');
    });

    // Resuming one branch at a time made the other branch ask again on a new card.
    expect(cardsIn(root)).toEqual([]);
    expect((await harness.pauseOf(card)).pause.resume).toMatchObject({
      state: 'resumed',
      attempts: 1,
    });
    expect(await harness.toolRuns(card, 'restart_service', 'restarted')).toBe(1);
    expect(await harness.toolRuns(card, 'notify_team', 'notified')).toBe(1);
  });

  it('a SequentialAgent: the steps before the gated one have run before anyone is asked, and run once', async () => {
    const root = await harness.runAgent(alice.id, OPS, 'staged_ops migrate billing');
    const card = await harness.card(OPS, root.ts);
    expect(cardText(card)).toContain('apply_migration');
    // Already done while the card waits: a step before the approval is not held by it.
    expect(await harness.toolRuns(card, 'take_snapshot', 'snapshot_taken')).toBe(1);
    expect(await harness.toolRuns(card, 'apply_migration', 'migrated')).toBe(0);

    await harness.sandbox.clickButton({
      user: bob.id,
      channel: OPS,
      messageTs: card.ts,
      actionId: ACTION_IDS.approve,
    });
    await harness.reply(OPS, root.ts, 'Tool apply_migration returned');
    expect(await harness.toolRuns(card, 'apply_migration', 'migrated')).toBe(1);
    // The resume continues the paused step; the earlier step does not run again.
    expect(await harness.toolRuns(card, 'take_snapshot', 'snapshot_taken')).toBe(1);
  });

  it('a credential request is a notice naming the tool: no card, no success line', async () => {
    const root = await harness.runAgent(alice.id, OPS, 'calendar calendar monday');
    // Notices follow the end of the stream: everything the run posted is in by now.
    const notice = await harness.reply(OPS, root.ts, 'asked for credentials');
    expect(JSON.stringify(notice.blocks)).toContain('read_calendar');
    expect(cardsIn(root)).toEqual([]);
    expect(thread(root).filter((message) => message.text.startsWith('Ran '))).toEqual([]);
  });

  it('a tool that asks again once resumed: the first approval is asked and given, the second is reported, never "ran"', async () => {
    const root = await harness.runAgent(alice.id, OPS, 'two_stage deploy api');
    const card = await harness.card(OPS, root.ts);
    expect(cardText(card)).toContain('deploy_service');
    await harness.sandbox.clickButton({
      user: bob.id,
      channel: OPS,
      messageTs: card.ts,
      actionId: ACTION_IDS.approve,
    });
    const notice = await harness.reply(
      OPS,
      root.ts,
      'asked for a confirmation, but the agent raised no request',
    );
    expect(JSON.stringify(notice.blocks)).toContain('Change board: sign off');
    // It says what does work, since no answer from Slack can give the second sign-off.
    expect(JSON.stringify(notice.blocks)).toContain('quorum: 2');
    expect(thread(root).filter((message) => message.text.startsWith('Ran '))).toEqual([]);
    expect(await harness.toolRuns(card, 'deploy_service', 'deployed')).toBe(0);
  });
});
