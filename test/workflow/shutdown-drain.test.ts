import { describe, expect, it } from 'vitest';
import { openMemoryStore } from '../../src/approvals/store/memory-store.js';
import { composeWorkflow } from '../../src/workflow/compose.js';
import { firstCallId, newPause, T0 } from '../approvals/store/fixtures.js';
import { quietSlackPort } from '../support/quiet-slack-port.js';
import {
  heldUsergroupDirectory,
  policyOf,
  quietAdk,
  workflowTestDefaults,
} from '../support/workflow.js';

const ONCALL = 'S0ONCALL0001';
const CAROL = 'U0CAROL0001';

/**
 * Shutting down while a click is being decided: the vote that decides its pause claims the
 * resume for this replica (the lease is this replica's from then on), so the resume it queues
 * is run before the process lets go, not refused and left to another replica once the lease
 * lapses.
 */
describe('draining at shutdown', () => {
  it('runs the resume of a vote that decides its pause while the workflow drains', async () => {
    const store = openMemoryStore();
    const pause = newPause();
    await store.pauses.createPause(pause);
    await store.pauses.setCardTs(pause.id, '1.000100', T0);
    // Carol approves through @oncall: her click waits for Slack to say who is in it.
    const { directory, answerMembers } = heldUsergroupDirectory();
    const { adk, sessions } = quietAdk();
    const { workflow } = composeWorkflow({
      store,
      adk,
      slack: quietSlackPort(),
      directory,
      policy: () => policyOf(`defaults:\n  approvers: [${ONCALL}]\n`),
      clock: () => T0 + 10,
      ...workflowTestDefaults,
    });

    const carols = workflow.vote({
      pauseId: pause.id,
      callId: firstCallId(pause),
      voter: CAROL,
      choice: 'approve',
    });
    const drained = workflow.drain(5_000);
    answerMembers([CAROL]);
    expect(await carols).toEqual({ kind: 'done' });
    expect(await drained).toBe(true);
    expect(sessions).toEqual([pause.adk.sessionId]);
    expect((await store.pauses.getPause(pause.id))?.pause.resume.state).toBe('resumed');
  });
});
