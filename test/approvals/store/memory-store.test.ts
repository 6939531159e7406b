import { describe, expect, it } from 'vitest';
import { openMemoryStore } from '../../../src/approvals/store/memory-store.js';
import { describeStoreContract } from './contract.js';
import { newPause, T0 } from './fixtures.js';
import { describeNudgesContract } from './nudges-contract.js';

/** One instance is the whole store: a "replica" is the same instance. */
describeStoreContract('in-process memory', async () => {
  const store = openMemoryStore();
  return { store, replica: async () => store, cleanup: () => store.lifecycle.close() };
});
describeNudgesContract('in-process memory', async () => {
  const store = openMemoryStore();
  return { store, replica: async () => store, cleanup: () => store.lifecycle.close() };
});

describe('in-process memory: retention', () => {
  it("drops a finished pause once the retention period has passed on the callers' clock", async () => {
    const store = openMemoryStore({ retentionMs: 1_000 });
    const input = newPause();
    await store.pauses.createPause(input);
    await store.pauses.cancel({ pauseId: input.id, by: 'U9', now: T0 + 10 });
    await store.sweeps.expireDue(T0 + 1_009);
    expect(await store.pauses.getPause(input.id)).toBeDefined();
    await store.sweeps.expireDue(T0 + 1_010);
    expect(await store.pauses.getPause(input.id)).toBeUndefined();
  });

  it('keeps a pending pause however long it waits', async () => {
    const store = openMemoryStore({ retentionMs: 1_000 });
    const input = newPause();
    await store.pauses.createPause(input);
    await store.sweeps.expireDue(T0 + 10_000_000);
    expect((await store.pauses.getPause(input.id))?.gates[0]?.state).toBe('pending');
  });
});
