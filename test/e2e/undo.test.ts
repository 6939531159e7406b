import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACTION_IDS } from '../../src/slack/codecs/action-ids.js';
import {
  buttons,
  CHANNELS,
  cardText,
  type Harness,
  PEOPLE,
  startHarness,
} from '../support/app-harness.js';

/**
 * The undo window (`undoWindow:` on a rule): the resume waits that long after the deciding vote,
 * the card says when it runs and offers Undo; Undo puts the gate back to pending and nothing
 * reaches the agent; after the window the resume goes once. Real Redis, the real ADK api_server,
 * the Slack sandbox.
 */
const { alice, bob, carol } = PEOPLE;
const OPS = CHANNELS.ops.id;

let harness: Harness;

beforeAll(async () => {
  harness = await startHarness({
    policy: `
defaults:
  approvers: [${bob.id}, ${carol.id}]
rules:
  - name: transfers
    match: { app: payments, tool: transfer_money }
    undoWindow: 2s
`,
    sweepIntervalMs: 100,
  });
});
afterAll(async () => {
  await harness?.stop();
});

function cardNow(threadTs: string, ts: string) {
  return harness.sandbox.replies(OPS, threadTs).find((message) => message.ts === ts);
}

const click = (user: string, ts: string, actionId: string) =>
  harness.sandbox.clickButton({ user, channel: OPS, messageTs: ts, actionId });

/** How many times the tool ran in the run's session (its result events). */
async function toolRuns(card: Parameters<Harness['pauseOf']>[0]): Promise<number> {
  const { pause } = await harness.pauseOf(card);
  const session = await harness.adk.getSession('payments', pause.adk.userId, pause.adk.sessionId);
  return JSON.stringify(session.events).split('"transferred"').length - 1;
}

describe('the undo window', () => {
  it('Undo within the window: the tool never runs and the card is pending again; approved again, it runs once after the window', {
    timeout: 60_000,
  }, async () => {
    const root = await harness.runAgent(alice.id, OPS, 'payments transfer 701');
    const card = await harness.card(OPS, root.ts);
    await click(bob.id, card.ts, ACTION_IDS.approve);
    const held = await harness.sandbox.waitFor(() => {
      const now = cardNow(root.ts, card.ts);
      return now && buttons(now).some((b) => b.action_id === ACTION_IDS.undo) && now;
    });
    expect(cardText(held)).toContain('unless the approver undoes it');

    // Someone else may not undo bob's approval.
    await click(carol.id, card.ts, ACTION_IDS.undo);
    await click(bob.id, card.ts, ACTION_IDS.undo);
    await harness.reply(OPS, root.ts, 'undid the approval');
    const pending = await harness.sandbox.waitFor(() => {
      const now = cardNow(root.ts, card.ts);
      return now && cardText(now).includes('Undone by') && now;
    });
    expect(buttons(pending).map((b) => b.action_id)).toContain(ACTION_IDS.approve);
    expect((await harness.pauseOf(card)).gates[0]).toMatchObject({ state: 'pending', votes: [] });
    // Past the window: still nothing ran.
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    expect(await toolRuns(card)).toBe(0);
    const trail = await harness.store.audit.readAudit({
      pauseId: (await harness.pauseOf(card)).pause.id,
    });
    expect(trail.filter((entry) => entry.event === 'undone')).toEqual([
      expect.objectContaining({ actor: bob.id }),
    ]);

    await click(carol.id, card.ts, ACTION_IDS.approve);
    const answer = await harness.reply(OPS, root.ts, 'Tool transfer_money returned');
    expect(answer.text).toContain('"amount":701');
    expect(await toolRuns(card)).toBe(1);
    const view = await harness.pauseOf(card);
    expect(view.gates[0]?.decision?.by).toBe(carol.id);
    // The resume waited for the window: at least 2 s after the deciding vote.
    const decidedAt = view.gates[0]?.decision?.at ?? 0;
    const claimed = trail.length;
    const after = await harness.store.audit.readAudit({ pauseId: view.pause.id });
    const claim = after.slice(claimed).find((entry) => entry.event === 'resume_claimed');
    expect((claim?.at ?? 0) - decidedAt).toBeGreaterThanOrEqual(2_000);
  });
});
