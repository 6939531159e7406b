import { CHANNELS, PEOPLE, type Sandbox } from '@adk-slack-approvals/slack-sandbox';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Child } from '../bench/support/child-processes.js';
import { ACTION_IDS } from '../src/slack/codecs/action-ids.js';
import { type FaultStack, RUN_LEASE_MS, startFaultStack } from './support/fault-stack.js';

/**
 * kill -9 at a random point of `/agent` → card, then a restart: every acknowledged command ends
 * with a card or a message saying what happened, within a sweep interval (and the run lease,
 * which lapses while the replica restarts) after the restart. The app runs as a child process
 * against real Redis, the real `adk api_server` with the test agents, and the Slack sandbox.
 */
const TRIALS = Number(process.env.FAULT_TRIALS ?? 50);
/** Latest kill after the command is sent; the run (thread root, ADK, pause, card) takes about this long. */
const KILL_WITHIN_MS = 400;
const SWEEP_INTERVAL_MS = 1_000;
/**
 * How long after the restart a trial's outcome is read: the dead replica's run lease (most of
 * it lapses while the new replica starts), one sweep interval, and the time to say so.
 */
const LOOK_AFTER_RESTART_MS = RUN_LEASE_MS + SWEEP_INTERVAL_MS + 1_000;

const { alice } = PEOPLE;
const OPS = CHANNELS.ops.id;

let stack: FaultStack;
let sandbox: Sandbox;

beforeAll(async () => {
  stack = await startFaultStack(inject('adkBaseUrl'), SWEEP_INTERVAL_MS);
  sandbox = stack.sandbox;
});
afterAll(async () => {
  await stack?.stop();
});

const startReplica = (label: string): Promise<Child> => stack.startReplica(label);

type Outcome = 'card' | 'message' | 'nothing';

/** What the requester can see of a command's run in the channel, after `since`. */
function outcomeOf(amount: number): Outcome {
  const roots = sandbox
    .messages(OPS)
    .filter((m) => m.botId !== undefined && JSON.stringify(m).includes(`transfer ${amount}`));
  const replies = roots.flatMap((root) => sandbox.replies(OPS, root.ts));
  if (replies.some((m) => JSON.stringify(m.blocks).includes(ACTION_IDS.approve))) return 'card';
  const said = replies.filter((m) => m.botId !== undefined && m.ts !== roots[0]?.ts);
  const ephemeral = sandbox
    .ephemerals(alice.id)
    .some((m) => m.text.includes(String(amount)) && !m.text.includes('/agent'));
  return said.length > 0 || ephemeral ? 'message' : 'nothing';
}

describe('kill -9 at a random point of /agent → card', () => {
  it(`${TRIALS} trials: every acknowledged command ends with a card or a message saying what happened`, async () => {
    const tally = { acked: 0, notAcked: 0, card: 0, message: 0, nothing: 0 };
    const late: number[] = [];
    let replica = await startReplica('app-0');
    for (let trial = 0; trial < TRIALS; trial += 1) {
      const amount = 1_000 + trial;
      const sent = sandbox.slashCommand({
        user: alice.id,
        channel: OPS,
        command: '/agent',
        text: `payments transfer ${amount}`,
      });
      await new Promise((resolve) => setTimeout(resolve, Math.random() * KILL_WITHIN_MS));
      await replica.kill();
      const result = await sent;
      const acked = result.answered && result.status === 200;
      replica = await startReplica(`app-${trial + 1}`);
      await new Promise((resolve) => setTimeout(resolve, LOOK_AFTER_RESTART_MS));
      if (!acked) {
        tally.notAcked += 1;
        continue;
      }
      tally.acked += 1;
      const outcome = outcomeOf(amount);
      tally[outcome] += 1;
      if (outcome === 'nothing') late.push(amount);
    }
    process.stdout.write(
      `\n/agent kill -9 trials: ${TRIALS}; acked ${tally.acked} (not acked ${tally.notAcked}); within ${LOOK_AFTER_RESTART_MS} ms of the restart: card ${tally.card}, message ${tally.message}, nothing ${tally.nothing}\n`,
    );
    if (late.length > 0) process.stdout.write(`nothing for: ${late.join(', ')}\n`);
    await replica.stop();
    expect(tally.acked).toBeGreaterThan(0);
    expect(tally.nothing).toBe(0);
  });
});
