import { describe, expect, it, vi } from 'vitest';
import type { PauseView } from '../../src/approvals/records.js';
import { openMemoryStore } from '../../src/approvals/store/memory-store.js';
import type { ApprovalStore } from '../../src/approvals/store.js';
import type { PauseStore } from '../../src/approvals/store-roles/pauses.js';
import { createLog } from '../../src/log.js';
import type { SlackPort } from '../../src/slack/transport/port.js';
import { noTracing } from '../../src/tracing/approval-tracing.js';
import { CardRefresher } from '../../src/workflow/card-refresher.js';
import { ApprovalCards } from '../../src/workflow/cards.js';
import { APPROVER, newPause, T0 } from '../approvals/store/fixtures.js';
import { quietSlackPort } from '../support/quiet-slack-port.js';

/** Counts the store's full reads and versions-only checks. */
function counted(store: ApprovalStore) {
  const calls = { reads: 0, checks: 0 };
  const pauses: PauseStore = Object.create(store.pauses);
  pauses.getPause = (pauseId) => {
    calls.reads += 1;
    return store.pauses.getPause(pauseId);
  };
  pauses.changedSince = (view) => {
    calls.checks += 1;
    return store.pauses.changedSince(view);
  };
  return { store: { ...store, pauses }, calls };
}

/** A Slack that keeps every card update, and runs `during` inside the first one. */
function recordingSlack(during?: () => Promise<void>) {
  const updates: string[] = [];
  let first = true;
  const slack = quietSlackPort({
    async updateMessage(input) {
      updates.push(JSON.stringify(input.blocks));
      if (first && during) {
        first = false;
        await during();
      }
    },
  });
  return { slack, updates };
}

async function carded(store: ApprovalStore): Promise<PauseView> {
  const input = newPause();
  await store.pauses.createPause(input);
  const view = await store.pauses.setCardTs(input.id, '1.000100', T0);
  if (view === undefined) throw new Error('no pause');
  return view;
}

/** An approver's vote on the pause's only call, which decides it: the view it returned. */
async function approve(store: ApprovalStore, view: PauseView): Promise<PauseView | undefined> {
  const result = await store.pauses.vote({
    pauseId: view.pause.id,
    callId: view.pause.callIds[0] ?? '',
    voter: APPROVER,
    choice: 'approve',
    now: T0 + 5,
  });
  return result.kind === 'decided' ? result.view : undefined;
}

function cardsOver(store: ApprovalStore, slack: SlackPort) {
  const log = createLog('error', 'test', () => {});
  return new ApprovalCards({ store, slack, clock: () => T0 + 10, log, tracing: noTracing });
}

describe('refreshing a card', () => {
  it('leaves the one-line note of a pause a grant decided: no refresh redraws it as a card (#34)', async () => {
    const memory = openMemoryStore();
    const view = await carded(memory);
    const decided = await memory.pauses.vote({
      pauseId: view.pause.id,
      callId: view.pause.callIds[0] ?? '',
      voter: 'grant:gr_0123456789ab',
      choice: 'approve',
      now: T0 + 5,
    });
    expect(decided.kind).toBe('decided');
    const { slack, updates } = recordingSlack();
    await cardsOver(memory, slack).refresh(view.pause.id);
    expect(updates).toEqual([]);
  });

  it('renders the view it was given, then checks versions only: no full read when nothing changed', async () => {
    const memory = openMemoryStore();
    const view = await carded(memory);
    const { store, calls } = counted(memory);
    const { slack, updates } = recordingSlack();
    expect(await cardsOver(store, slack).refresh(view.pause.id, { known: view })).toEqual({
      kind: 'done',
    });
    expect(updates).toHaveLength(1);
    expect(calls).toEqual({ reads: 0, checks: 1 });
  });

  it('checks nothing after updating the card of a pause whose resume is over: it changes no more', async () => {
    const memory = openMemoryStore();
    const view = await carded(memory);
    const decided = await memory.pauses.vote({
      pauseId: view.pause.id,
      callId: view.pause.callIds[0] ?? '',
      voter: APPROVER,
      choice: 'approve',
      resumeClaim: { owner: 'r1', leaseMs: 60_000 },
      now: T0 + 5,
    });
    expect(decided).toMatchObject({ kind: 'decided', claimed: { attempt: 1 } });
    const finished = await memory.leases.markResumed({
      pauseId: view.pause.id,
      owner: 'r1',
      now: T0 + 6,
    });
    if (finished.kind !== 'ok') throw new Error(`not resumed: ${finished.kind}`);
    const { store, calls } = counted(memory);
    const { slack, updates } = recordingSlack();
    expect(await cardsOver(store, slack).refresh(view.pause.id, { known: finished.view })).toEqual({
      kind: 'done',
    });
    expect(updates).toHaveLength(1);
    expect(calls).toEqual({ reads: 0, checks: 0 });
  });

  it('renders again when the pause changed while its update was on its way', async () => {
    const memory = openMemoryStore();
    const view = await carded(memory);
    const { store, calls } = counted(memory);
    // Another replica records a vote while this one's update is in flight.
    const { slack, updates } = recordingSlack(async () => {
      await approve(memory, view);
    });
    await cardsOver(store, slack).refresh(view.pause.id, { known: view });
    expect(updates).toHaveLength(2);
    expect(updates[0]).not.toContain('Approved');
    expect(updates[1]).toContain('Approved');
    expect(calls).toEqual({ reads: 1, checks: 2 });
  });

  it('leaves a change this replica made during its update to the refresh that change asked for: each state is sent once', async () => {
    const memory = openMemoryStore();
    const view = await carded(memory);
    const log = createLog('error', 'test', () => {});
    let refresher: CardRefresher | undefined;
    // A vote on this replica while the first update is in flight: it asks for its own refresh.
    const { slack, updates } = recordingSlack(async () => {
      const decided = await approve(memory, view);
      refresher?.request(view.pause.id, undefined, decided);
    });
    refresher = new CardRefresher({ cards: cardsOver(memory, slack), log });
    refresher.request(view.pause.id, undefined, view);
    await vi.waitFor(() => expect(updates).toHaveLength(2));
    expect(await refresher.drain(5_000)).toBe(true);
    expect(updates).toHaveLength(2);
    expect(updates[0]).not.toContain('Approved');
    expect(updates[1]).toContain('Approved');
  });

  it('sends a state once when the change that asks for it arrives after a refresh already rendered it', async () => {
    const memory = openMemoryStore();
    const view = await carded(memory);
    const log = createLog('error', 'test', () => {});
    // A vote on this replica lands in the store during the first update; its own request for a
    // refresh comes only after the running refresh has seen the change and rendered it.
    let decided: PauseView | undefined;
    const { slack, updates } = recordingSlack(async () => {
      decided = await approve(memory, view);
    });
    const refresher = new CardRefresher({ cards: cardsOver(memory, slack), log });
    refresher.request(view.pause.id, undefined, view);
    await vi.waitFor(() => expect(updates).toHaveLength(2));
    expect(updates[1]).toContain('Approved');
    expect(decided).toBeDefined();
    refresher.request(view.pause.id, undefined, decided);
    expect(await refresher.drain(5_000)).toBe(true);
    expect(updates).toHaveLength(2);
  });

  it('shows what the resumed calls did in a refresh under way when the resume marks the pause, and sends it once', async () => {
    const memory = openMemoryStore();
    const view = await carded(memory);
    const log = createLog('error', 'test', () => {});
    const callId = view.gates[0]?.originalCall.id ?? '';
    const outcomes = new Map([[callId, 'ran' as const]]);
    let refresher: CardRefresher | undefined;
    let changed: PauseView | undefined;
    // The resume tells what ran, then its store change lands during the first update; it asks
    // for its own refresh only after the running one has rendered the change.
    const { slack, updates } = recordingSlack(async () => {
      refresher?.knowToolOutcomes(view.pause.id, outcomes);
      changed = await approve(memory, view);
    });
    refresher = new CardRefresher({ cards: cardsOver(memory, slack), log });
    refresher.request(view.pause.id, undefined, view);
    await vi.waitFor(() => expect(updates).toHaveLength(2));
    refresher.request(view.pause.id, outcomes, changed);
    expect(await refresher.drain(5_000)).toBe(true);
    expect(updates).toHaveLength(2);
    expect(updates[1]).toContain('Approved · ran');
  });
});
