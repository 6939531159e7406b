import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  type AlertTracks,
  type AlertUpdate,
  MemoryAlertTracks,
} from '../../src/approvals/alert-tracks.js';
import { RedisAlertTracks } from '../../src/approvals/store/redis-alert-tracks.js';
import { testRedisForFile } from '../support/redis.js';

/**
 * The alert tracking's contract, in this process's memory and on real Redis (the Lua twin): each
 * alert by its fingerprint, never by its group; a stand-down due once every alert is resolved
 * and quiet for the grace; a flap keeps the run; a resolve without a firing starts nothing; a
 * stand-down claimed once.
 */
const NOW = 1_800_000_000_000;
const GRACE = 60_000;

const firing = (fingerprint: string): AlertUpdate => ({ fingerprint, status: 'firing' });
const resolved = (fingerprint: string, resolvedAt: number): AlertUpdate => ({
  fingerprint,
  status: 'resolved',
  resolvedAt,
});

const redis = testRedisForFile();

const stores: [string, () => AlertTracks][] = [
  ['memory', () => new MemoryAlertTracks()],
  ['Redis', () => new RedisAlertTracks(redis.client(), `${redis.prefix}${randomUUID()}:`)],
];

describe.each(stores)('alert tracking in %s', (_name, open) => {
  /** `tie`: a firing started or joined run-1; otherwise the group's run, if any. */
  const record = (tracks: AlertTracks, alerts: AlertUpdate[], now: number, tie = true) =>
    tracks.record({
      group: 'g1',
      ...(tie ? { runId: 'run-1' } : {}),
      alerts,
      standDownAfterMs: GRACE,
      now,
    });

  it('a resolve with no firing before it ties nothing to a run', async () => {
    const tracks = open();
    expect(await record(tracks, [resolved('a', NOW)], NOW, false)).toEqual({ kind: 'no_run' });
    expect(await tracks.due(NOW + 10 * GRACE, 10)).toEqual([]);
  });

  it('a mixed group (one resolved, one still firing) keeps the run', async () => {
    const tracks = open();
    await record(tracks, [firing('a'), firing('b')], NOW);
    expect(await record(tracks, [resolved('a', NOW + 1), firing('b')], NOW + 1, false)).toEqual({
      kind: 'firing',
      runId: 'run-1',
      firing: 1,
    });
    expect(await tracks.due(NOW + 10 * GRACE, 10)).toEqual([]);
    expect(await tracks.claimStandDown('run-1', NOW + 10 * GRACE)).toEqual({ kind: 'not_due' });
  });

  it('every alert resolved: the run is due once the latest resolve stayed quiet for the grace, and claimed once', async () => {
    const tracks = open();
    await record(tracks, [firing('a'), firing('b')], NOW);
    await record(tracks, [resolved('a', NOW + 10)], NOW + 10, false);
    expect(await record(tracks, [resolved('b', NOW + 20)], NOW + 20, false)).toEqual({
      kind: 'quiet',
      runId: 'run-1',
      standDownAt: NOW + 20 + GRACE,
      changed: true,
    });
    expect(await tracks.due(NOW + 19 + GRACE, 10)).toEqual([]);
    expect(await tracks.claimStandDown('run-1', NOW + 19 + GRACE)).toEqual({ kind: 'not_due' });
    expect(await tracks.due(NOW + 20 + GRACE, 10)).toEqual(['run-1']);
    expect(await tracks.claimStandDown('run-1', NOW + 20 + GRACE)).toEqual({
      kind: 'claimed',
      resolvedAt: NOW + 20,
    });
    expect(await tracks.claimStandDown('run-1', NOW + 21 + GRACE)).toEqual({ kind: 'not_due' });
    expect(await tracks.due(NOW + 21 + GRACE, 10)).toEqual([]);
    // Stood down: later notifications of the group change nothing.
    expect(await record(tracks, [firing('a')], NOW + 30 + GRACE, false)).toEqual({
      kind: 'stood_down',
      runId: 'run-1',
    });
  });

  it('an alert that fires again inside the grace keeps the run (a flap)', async () => {
    const tracks = open();
    await record(tracks, [firing('a')], NOW);
    await record(tracks, [resolved('a', NOW + 10)], NOW + 10, false);
    await record(tracks, [firing('a')], NOW + 20);
    expect(await tracks.due(NOW + 10 * GRACE, 10)).toEqual([]);
    expect(await tracks.claimStandDown('run-1', NOW + 10 * GRACE)).toEqual({ kind: 'not_due' });
    // Its next resolve starts the quiet again.
    expect(await record(tracks, [resolved('a', NOW + 30)], NOW + 30, false)).toMatchObject({
      standDownAt: NOW + 30 + GRACE,
      changed: true,
    });
  });

  it('a repeated resolve keeps the first one’s time, says nothing changed, and a resolve of an alert never seen firing is ignored', async () => {
    const tracks = open();
    await record(tracks, [firing('a')], NOW);
    expect(await record(tracks, [resolved('a', NOW + 10)], NOW + 10, false)).toMatchObject({
      kind: 'quiet',
      changed: true,
    });
    expect(
      await record(tracks, [resolved('a', NOW + 500), resolved('z', NOW + 900)], NOW + 900, false),
    ).toMatchObject({ kind: 'quiet', standDownAt: NOW + 10 + GRACE, changed: false });
  });

  it('a stand-down that could not be carried out is due again when re-armed', async () => {
    const tracks = open();
    await record(tracks, [firing('a')], NOW);
    await record(tracks, [resolved('a', NOW)], NOW, false);
    expect(await tracks.claimStandDown('run-1', NOW + GRACE)).toMatchObject({ kind: 'claimed' });
    await tracks.rearm('run-1', NOW + 2 * GRACE);
    expect(await tracks.due(NOW + 2 * GRACE - 1, 10)).toEqual([]);
    expect(await tracks.due(NOW + 2 * GRACE, 10)).toEqual(['run-1']);
    expect(await tracks.claimStandDown('run-1', NOW + 2 * GRACE)).toMatchObject({
      kind: 'claimed',
    });
  });
});
