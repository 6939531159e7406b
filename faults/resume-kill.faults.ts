import { CHANNELS, PEOPLE, type Sandbox } from '@adk-slack-approvals/slack-sandbox';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Child } from '../bench/support/child-processes.js';
import { AdkClient } from '../src/adk/client.js';
import { toolResults } from '../src/adk/wire.js';
import { ACTION_IDS, parseButtonValue } from '../src/slack/codecs/action-ids.js';
import { buttons } from '../test/support/app-harness.js';
import { type FaultStack, startFaultStack } from './support/fault-stack.js';

/**
 * kill -9 at a random point after an approval (the resume on its way to ADK, the tool running,
 * the answer streaming), then a restart: does the answer reach the thread, and did the tool run
 * exactly once? The app runs as a child process against real Redis, the real `adk api_server`
 * with the test agents, and the Slack sandbox.
 */
const TRIALS = Number(process.env.FAULT_TRIALS ?? 20);
/** The resume (vote, claim, run_sse, the tool, the answer) takes a few hundred ms here. */
const KILL_WITHIN_MS = 80;
const ANSWER_WAIT_MS = 40_000;

const { alice, bob } = PEOPLE;
const OPS = CHANNELS.ops.id;

let stack: FaultStack;
let sandbox: Sandbox;

beforeAll(async () => {
  stack = await startFaultStack(inject('adkBaseUrl'), 1_000);
  sandbox = stack.sandbox;
});
afterAll(async () => {
  await stack?.stop();
});

const adk = new AdkClient({ baseUrl: inject('adkBaseUrl') });

const startReplica = (label: string): Promise<Child> => stack.startReplica(label);

function waitFor<T>(find: () => T | undefined, timeoutMs: number): Promise<T | undefined> {
  return sandbox.waitFor(find, { timeoutMs }).catch(() => undefined);
}

describe('kill -9 after an approval, while the resume runs', () => {
  it(`${TRIALS} trials: the tool never runs twice, and once it ran its answer reaches the thread`, async () => {
    const tally = {
      answered: 0,
      missing: 0,
      missingVoteLost: 0,
      ranOnce: 0,
      ranTwice: 0,
      ranNever: 0,
      before: 0,
      /** The tool ran (ADK answered the approval) but its answer never reached the thread. */
      ranWithoutAnswer: 0,
    };
    const answerMs: number[] = [];
    let replica = await startReplica('app-0');
    for (let trial = 0; trial < TRIALS; trial += 1) {
      const amount = 2_000 + trial;
      await sandbox.slashCommand({
        user: alice.id,
        channel: OPS,
        command: '/agent',
        text: `payments transfer ${amount}`,
      });
      const root = await waitFor(
        () => sandbox.messages(OPS).find((m) => JSON.stringify(m).includes(`transfer ${amount}`)),
        15_000,
      );
      const card =
        root &&
        (await waitFor(
          () =>
            sandbox
              .replies(OPS, root.ts)
              .find((m) => JSON.stringify(m.blocks).includes(ACTION_IDS.approve)),
          15_000,
        ));
      if (root === undefined || card === undefined) throw new Error(`trial ${trial}: no card`);
      await sandbox.clickButton({
        user: bob.id,
        channel: OPS,
        messageTs: card.ts,
        actionId: ACTION_IDS.approve,
      });
      await new Promise((resolve) => setTimeout(resolve, Math.random() * KILL_WITHIN_MS));
      await replica.kill();
      const answeredBeforeKill = sandbox
        .replies(OPS, root.ts)
        .some((m) => JSON.stringify(m).includes('Tool transfer_money returned'));
      if (answeredBeforeKill) tally.before += 1;
      const restartedAt = Date.now();
      replica = await startReplica(`app-${trial + 1}`);
      const answer = await waitFor(
        () =>
          sandbox
            .replies(OPS, root.ts)
            .find((m) => JSON.stringify(m).includes('Tool transfer_money returned')),
        ANSWER_WAIT_MS,
      );
      if (answer === undefined) tally.missing += 1;
      else {
        tally.answered += 1;
        answerMs.push(Date.now() - restartedAt);
      }
      const pauseId = buttons(card)
        .map((b) => parseButtonValue(b.value)?.pauseId)
        .find((id) => id !== undefined);
      const view = pauseId === undefined ? undefined : await stack.store.pauses.getPause(pauseId);
      if (view === undefined) throw new Error(`trial ${trial}: no records`);
      const { appName, userId, sessionId } = view.pause.adk;
      const session = await adk.getSession(appName, userId, sessionId);
      const runs = session.events.filter((event) =>
        toolResults(event).some((r) => r.name === 'transfer_money' && r.status === 'ok'),
      ).length;
      // Killed before the vote was recorded: the card is still pending and can be clicked again.
      if (answer === undefined && view.gates.every((gate) => gate.state === 'pending')) {
        tally.missingVoteLost += 1;
      }
      if (runs > 0 && answer === undefined) tally.ranWithoutAnswer += 1;
      if (runs === 1) tally.ranOnce += 1;
      else if (runs === 0) tally.ranNever += 1;
      else tally.ranTwice += 1;
    }
    answerMs.sort((a, b) => a - b);
    const p = (q: number) =>
      answerMs[Math.min(answerMs.length - 1, Math.floor(q * answerMs.length))];
    process.stdout.write(
      `\nresume kill -9 trials: ${TRIALS} (answered before the kill: ${tally.before}); answer in the thread ${tally.answered} (missing after ${ANSWER_WAIT_MS} ms: ${tally.missing}, of which the vote itself was lost and the card is still pending: ${tally.missingVoteLost}); tool ran once ${tally.ranOnce}, never ${tally.ranNever}, more than once ${tally.ranTwice}; ran but no answer in the thread ${tally.ranWithoutAnswer}; answer after restart p50 ${p(0.5)} ms, max ${answerMs.at(-1)} ms\n`,
    );
    await replica.stop();
    expect(tally.ranTwice).toBe(0);
    // Killed after ADK ran the tool: the answer still reaches the thread.
    expect(tally.ranWithoutAnswer).toBe(0);
    // An answer is missing only where the vote died with the process (the card is still live).
    expect(tally.missing).toBe(tally.missingVoteLost);
  });
});
