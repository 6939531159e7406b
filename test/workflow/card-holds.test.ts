import { describe, expect, it, vi } from 'vitest';
import type { AdkClient, RunItem } from '../../src/adk/client.js';
import { adkEventSchema } from '../../src/adk/wire/events.js';
import { openMemoryStore } from '../../src/approvals/store/memory-store.js';
import { CardHolds } from '../../src/workflow/card-holds.js';
import { composeWorkflow } from '../../src/workflow/compose.js';
import { APPROVER, firstCallId, newPause, T0 } from '../approvals/store/fixtures.js';
import { quietSlackPort } from '../support/quiet-slack-port.js';
import { policyOf, quietAdk, workflowTestDefaults } from '../support/workflow.js';

/**
 * An ADK server whose `held`-th run (1: the resume, 2: a rejection's reasons after it) answers
 * only when the test lets it; the others answer at once.
 */
function heldAdk(held: number) {
  let started: () => void = () => {};
  const heldStarted = new Promise<void>((resolve) => {
    started = resolve;
  });
  let answer: () => void = () => {};
  const answered = new Promise<void>((resolve) => {
    answer = resolve;
  });
  let runs = 0;
  const adk: Pick<AdkClient, 'listApps' | 'createSession' | 'getSession' | 'runSse'> = {
    ...quietAdk().adk,
    async *runSse(): AsyncGenerator<RunItem, void> {
      runs += 1;
      if (runs === held) {
        started();
        await answered;
      }
      const content = { role: 'model', parts: [{ text: 'Done.' }] };
      yield { type: 'event', event: adkEventSchema.parse({ author: 'agent', content }) };
    },
  };
  return { adk, heldStarted, answer };
}

/**
 * One approver's click decides a one-gate pause, the `held`-th run held; `updates`: each card
 * update's fallback text.
 */
async function decideWithHeldAgent(
  vote: { choice: 'approve' } | { choice: 'reject'; reason: string } = { choice: 'approve' },
  held = 1,
) {
  const store = openMemoryStore();
  const pause = newPause();
  await store.pauses.createPause(pause);
  await store.pauses.setCardTs(pause.id, '1.000100', T0);
  const updates: string[] = [];
  const agent = heldAdk(held);
  const { workflow } = composeWorkflow({
    store,
    adk: agent.adk,
    slack: quietSlackPort({
      async updateMessage(input) {
        updates.push(input.text);
      },
    }),
    directory: { usergroupMembers: async () => [], channelMembers: async () => [] },
    policy: () => policyOf(`defaults:\n  approvers: [${APPROVER}]\n`),
    clock: () => T0 + 10,
    ...workflowTestDefaults,
  });
  const reply = await workflow.vote({
    pauseId: pause.id,
    callId: firstCallId(pause),
    voter: APPROVER,
    ...vote,
  });
  expect(reply).toEqual({ kind: 'done' });
  await agent.heldStarted;
  return { workflow, updates, answer: agent.answer };
}

describe("a decided pause's card while its resume is under way", () => {
  it('is updated once, decided and resumed together, when the agent answers promptly', async () => {
    const { workflow, updates, answer } = await decideWithHeldAgent();
    // Without the hold the decided card is drawn as soon as the decisions are sent.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(updates).toEqual([]);
    answer();
    expect(await workflow.drain(5_000)).toBe(true);
    expect(updates).toEqual(['Approval request decided: 1 approved — agent resumed']);
  });

  it('still shows the decision while a slow agent answers, then the resume', async () => {
    const { workflow, updates, answer } = await decideWithHeldAgent();
    // The hold ends (1 s) though the agent has not answered: the decision is not kept from people.
    await vi.waitFor(() => expect(updates).toEqual(['Approval request decided: 1 approved']), {
      timeout: 5_000,
      interval: 50,
    });
    answer();
    expect(await workflow.drain(5_000)).toBe(true);
    expect(updates).toEqual([
      'Approval request decided: 1 approved',
      'Approval request decided: 1 approved — agent resumed',
    ]);
  });

  it("is drawn once the pause is marked resumed, not after the rejection's reasons reach the agent", async () => {
    const { workflow, updates, answer } = await decideWithHeldAgent(
      { choice: 'reject', reason: 'not today' },
      2,
    );
    // The reasons' turn is held; the hold ends as the resume's mark asks for the card.
    await vi.waitFor(
      () => expect(updates).toEqual(['Approval request decided: 1 rejected — agent resumed']),
      { timeout: 500, interval: 10 },
    );
    answer();
    expect(await workflow.drain(5_000)).toBe(true);
    expect(updates).toHaveLength(1);
  });
});

describe('CardHolds', () => {
  it('releases a key when what it waits for settles, failed or not, and holds nothing else', async () => {
    const holds = new CardHolds(60_000);
    let fail: (error: Error) => void = () => {};
    holds.hold(
      'p1',
      new Promise((_, reject) => {
        fail = reject;
      }),
    );
    let released = false;
    const waiting = holds.released('p1').then(() => {
      released = true;
    });
    await holds.released('p2');
    expect(released).toBe(false);
    fail(new Error('the resume failed'));
    await waiting;
    expect(released).toBe(true);
  });

  it('releases a key at once when told what it waits for has happened', async () => {
    const holds = new CardHolds(60_000);
    holds.hold('p1', new Promise(() => {}));
    holds.release('p1');
    await expect(holds.released('p1')).resolves.toBeUndefined();
  });

  it('releases a key after its longest wait even when what it waits for never settles', async () => {
    const holds = new CardHolds(10);
    holds.hold('p1', new Promise(() => {}));
    await expect(holds.released('p1')).resolves.toBeUndefined();
  });
});
