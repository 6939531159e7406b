import { describe, expect, it } from 'vitest';
import { openMemoryStore } from '../../src/approvals/store/memory-store.js';
import { composeWorkflow } from '../../src/workflow/compose.js';
import { APPROVER, firstCallId, newPause, T0 } from '../approvals/store/fixtures.js';
import { quietSlackPort } from '../support/quiet-slack-port.js';
import {
  heldUsergroupDirectory,
  policyOf,
  quietAdk,
  workflowTestDefaults,
} from '../support/workflow.js';

const ONCALL = 'S0ONCALL0001';
const CAROL = 'U0CAROL0001';
const tick = () => new Promise((resolve) => setImmediate(resolve));

/**
 * A burst of clicks on one replica: the decisions under way go first, and a card waits for them
 * before it is redrawn (see `CriticalPath`).
 */
describe('card redraws in a burst of decisions', () => {
  it('waits while another decision is under way, though its own pause is decided and resumed', async () => {
    const store = openMemoryStore();
    const decidedFirst = newPause();
    const heldUp = newPause();
    for (const [pause, ts] of [
      [decidedFirst, '1.000100'],
      [heldUp, '2.000100'],
    ] as const) {
      await store.pauses.createPause(pause);
      await store.pauses.setCardTs(pause.id, ts, T0);
    }
    const updated: string[] = [];
    const slack = quietSlackPort({
      async updateMessage(input) {
        updated.push(input.ts);
      },
    });
    // Carol approves through @oncall: her click waits for Slack to say who is in it.
    const { directory, answerMembers } = heldUsergroupDirectory();
    const { adk, sessions } = quietAdk();
    const { workflow } = composeWorkflow({
      store,
      adk,
      slack,
      directory,
      policy: () => policyOf(`defaults:\n  approvers: [${APPROVER}, ${ONCALL}]\n`),
      clock: () => T0 + 10,
      ...workflowTestDefaults,
    });

    const carols = workflow.vote({
      pauseId: heldUp.id,
      callId: firstCallId(heldUp),
      voter: CAROL,
      choice: 'approve',
    });
    const reply = await workflow.vote({
      pauseId: decidedFirst.id,
      callId: firstCallId(decidedFirst),
      voter: APPROVER,
      choice: 'approve',
    });
    expect(reply).toEqual({ kind: 'done' });
    for (
      let i = 0;
      i < 50 && (await store.pauses.getPause(decidedFirst.id))?.pause.resume.state !== 'resumed';
      i++
    ) {
      await tick();
    }
    expect(sessions).toEqual([decidedFirst.adk.sessionId]);
    expect((await store.pauses.getPause(decidedFirst.id))?.pause.resume.state).toBe('resumed');
    for (let i = 0; i < 10; i++) await tick();
    expect(updated).toEqual([]);

    answerMembers([CAROL]);
    expect(await carols).toEqual({ kind: 'done' });
    expect(await workflow.drain(5_000)).toBe(true);
    // The first card once, as its pause ended (decided and resumed: one redraw for both); the
    // second as its own decision and resume go.
    expect(updated.filter((ts) => ts === '1.000100')).toHaveLength(1);
    expect(updated).toContain('2.000100');
    expect(sessions).toEqual([decidedFirst.adk.sessionId, heldUp.adk.sessionId]);
  });
});
