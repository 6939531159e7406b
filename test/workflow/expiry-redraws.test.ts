import { describe, expect, it, vi } from 'vitest';
import { MemoryConfirmationStore } from '../../src/approvals/store/memory-store.js';
import { ApprovalWorkflow } from '../../src/workflow/approval-workflow.js';
import { newPause, policy, T0 } from '../approvals/store/fixtures.js';
import { quietSlackPort } from '../support/quiet-slack-port.js';
import { policyOf, workflowTestDefaults } from '../support/workflow.js';

const EXPIRES_IN_MS = 1_000;

/** `seen`: each card update's text, and `read` for each read of a pause, in order. */
function workflowWith(store: MemoryConfirmationStore, seen: string[]) {
  const policy = policyOf('defaults:\n  approvers: [U0APPROVER]\n');
  return new ApprovalWorkflow({
    store,
    adk: {
      listApps: async () => [],
      createSession: async () => {
        throw new Error('no sessions here');
      },
      getSession: async () => {
        throw new Error('no sessions here');
      },
      runSse: () => {
        throw new Error('a cancelled pause is never resumed');
      },
    },
    slack: quietSlackPort({
      async updateMessage(input) {
        seen.push(input.text ?? '');
      },
    }),
    directory: { usergroupMembers: async () => [], channelMembers: async () => [] },
    policy: () => policy,
    clock: () => T0 + EXPIRES_IN_MS,
    ...workflowTestDefaults,
  });
}

describe('the card of a gate the sweeper expired', () => {
  it.each([
    ['one expiry that calls the pause off', 'cancel', 'Approval request decided: 2 cancelled'],
    [
      'two expiries in one batch, the later listed first',
      'reject',
      'Approval request decided: 2 expired',
    ],
  ] as const)(
    'is redrawn from the expiry’s own view, and its Homes found, before anything reads the pause: %s',
    async (_, onExpiry, shown) => {
      const store = new MemoryConfirmationStore();
      const pause = newPause({
        gates: 2,
        policies: [policy({ expiresInMs: EXPIRES_IN_MS, onExpiry })],
      });
      await store.createPause(pause);
      await store.setCardTs(pause.id, '1.000100', T0);
      const seen: string[] = [];
      const workflow = workflowWith(store, seen);
      const expired = await store.expireDue(T0 + EXPIRES_IN_MS);
      expect(expired).toHaveLength(onExpiry === 'cancel' ? 1 : 2);
      const read = store.getPause.bind(store);
      vi.spyOn(store, 'getPause').mockImplementation((id) => {
        seen.push('read');
        return read(id);
      });

      await workflow.onExpired(expired.toReversed());
      expect(await workflow.drain(5_000)).toBe(true);

      // Drawn as the sweep left it before anything read the pause. A rejected pause is then
      // resumed (which fails here, the ADK being absent) and drawn again.
      expect(seen[0]).toBe(shown);
      if (onExpiry === 'cancel') expect(seen).toEqual([shown]);
    },
  );
});
