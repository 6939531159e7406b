import { describe, expect, it } from 'vitest';
import { openMemoryStore } from '../../src/approvals/store/memory-store.js';
import { noMetrics } from '../../src/metrics.js';
import { type ClaimedResume, Resumer, type ResumerDeps } from '../../src/workflow/resumer.js';
import type { RunStreamer } from '../../src/workflow/run-streamer.js';
import { approvalOfFirstGate, newPause, T0 } from '../approvals/store/fixtures.js';
import { workflowTestDefaults } from '../support/workflow.js';

/**
 * A resume the deciding vote claimed (`VoteInput.resumeClaim`) may wait in the queue of runs
 * before it starts: past half its lease it is renewed before anything is sent, and one whose lease
 * lapsed and was taken over sends nothing.
 */
const LEASE_MS = workflowTestDefaults.options.leaseMs;

/** A pause decided by a vote that claimed its resume with a lease `resumer` offered. */
async function claimedByVote(resumer: (store: ResumerDeps['store']) => Resumer) {
  const store = openMemoryStore();
  const input = newPause();
  await store.pauses.createPause(input);
  const lease = resumer(store).leaseAhead();
  const result = await store.pauses.vote(approvalOfFirstGate(input, T0, { resumeClaim: lease }));
  if (result.kind !== 'decided' || result.claimed === undefined) throw new Error('not claimed');
  const claimed: ClaimedResume = { owner: lease.owner, view: result.view, attempt: 1, at: T0 };
  return { store, pauseId: input.id, claimed };
}

/** A resumer at `now` whose stream records that it sent, then stops the resume there. */
function resumerAt(now: number, events: string[]): (store: ResumerDeps['store']) => Resumer {
  let made: Resumer | undefined;
  return (store) => {
    made ??= newResumer(store, now, events);
    return made;
  };
}

function newResumer(store: ResumerDeps['store'], now: number, events: string[]): Resumer {
  const streamer = {
    stream: async () => {
      events.push('sent');
      throw new Error('stopped after sending');
    },
  } as unknown as RunStreamer;
  const unused = () => {
    throw new Error('not reached');
  };
  return new Resumer({
    store,
    cards: { pauseChanged: () => events.push('card') } as unknown as ResumerDeps['cards'],
    adk: { getSession: unused },
    streamer,
    threads: { post: async () => undefined } as unknown as ResumerDeps['threads'],
    clock: () => now,
    log: workflowTestDefaults.log,
    metrics: noMetrics,
    tracing: { resumeSent: () => {} } as unknown as ResumerDeps['tracing'],
    options: workflowTestDefaults.options,
  });
}

describe('a resume the deciding vote claimed', () => {
  it('sends at once while its lease is young, with no claim of its own', async () => {
    const events: string[] = [];
    const resumer = resumerAt(T0 + 10, events);
    const { store, pauseId, claimed } = await claimedByVote(resumer);
    await expect(resumer(store).resume(pauseId, { claimed })).rejects.toThrow(
      'stopped after sending',
    );
    expect(events).toEqual(['sent']);
    expect((await store.pauses.getPause(pauseId))?.pause.resume).toMatchObject({
      attempts: 1,
      leaseOwner: claimed.owner,
      leaseUntil: T0 + LEASE_MS,
    });
  });

  it('renews its lease first when it waited past half of it', async () => {
    const events: string[] = [];
    const late = T0 + LEASE_MS / 2 + 1;
    const resumer = resumerAt(late, events);
    const { store, pauseId, claimed } = await claimedByVote(resumer);
    await expect(resumer(store).resume(pauseId, { claimed })).rejects.toThrow(
      'stopped after sending',
    );
    expect(events).toEqual(['sent']);
    expect((await store.pauses.getPause(pauseId))?.pause.resume.leaseUntil).toBe(late + LEASE_MS);
  });

  it('sends nothing once its lease lapsed and another replica took the resume over', async () => {
    const events: string[] = [];
    const resumer = resumerAt(T0 + LEASE_MS + 2, events);
    const { store, pauseId, claimed } = await claimedByVote(resumer);
    const takeover = await store.leases.claimResume({
      pauseId,
      owner: 'other:replica',
      now: T0 + LEASE_MS + 1,
      leaseMs: LEASE_MS,
    });
    expect(takeover).toMatchObject({ kind: 'claimed', attempt: 2 });
    await resumer(store).resume(pauseId, { claimed });
    expect(events).toEqual([]);
    expect((await store.pauses.getPause(pauseId))?.pause.resume).toMatchObject({
      state: 'resuming',
      leaseOwner: 'other:replica',
      attempts: 2,
    });
  });

  it('is resumed under when its vote’s answer was lost: a claim finds the lease its vote took', async () => {
    const events: string[] = [];
    const resumer = resumerAt(T0 + 10, events);
    const { store, pauseId } = await claimedByVote(resumer);
    // The vote was applied, but its answer never came: the pause is resumed as decided.
    await expect(resumer(store).resume(pauseId)).rejects.toThrow('stopped after sending');
    expect(events).toEqual(['sent']);
  });

  it('is resumed under once in a process: the task its vote scheduled, after a claim took it, sends nothing', async () => {
    const events: string[] = [];
    const resumer = resumerAt(T0 + 10, events);
    const { store, pauseId, claimed } = await claimedByVote(resumer);
    await expect(resumer(store).resume(pauseId)).rejects.toThrow('stopped after sending');
    await resumer(store).resume(pauseId, { claimed });
    expect(events).toEqual(['sent']);
    // And the other way round: after the vote's own task, a claim finds the lease leased.
    const again = resumerAt(T0 + 10, events);
    const second = await claimedByVote(again);
    await expect(
      again(second.store).resume(second.pauseId, { claimed: second.claimed }),
    ).rejects.toThrow('stopped after sending');
    await again(second.store).resume(second.pauseId);
    expect(events).toEqual(['sent', 'sent']);
  });

  it('a lease the resumer claimed itself is never taken for a vote’s: a second resume while it is held sends nothing', async () => {
    const events: string[] = [];
    const resumer = resumerAt(T0 + 10, events);
    const store = openMemoryStore();
    const input = newPause();
    await store.pauses.createPause(input);
    await store.pauses.vote(approvalOfFirstGate(input, T0));
    await expect(resumer(store).resume(input.id)).rejects.toThrow('stopped after sending');
    // The first resume still holds its lease (it stopped before finishing): a second one, say a
    // verified vote's, finds it leased.
    await resumer(store).resume(input.id);
    expect(events).toEqual(['sent']);
  });
});
