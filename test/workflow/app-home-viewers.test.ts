import { describe, expect, it } from 'vitest';
import type { HomeViewers } from '../../src/approvals/home-viewers.js';
import type { Log } from '../../src/log.js';
import { AppHomes, type AppHomesDeps } from '../../src/workflow/app-homes.js';
import { BatchedHomeViewers } from '../../src/workflow/batched-home-viewers.js';

const log: Log = {
  debug: () => {},
  info: () => {},
  warn: () => {},
  error: () => {},
  child: () => log,
};

/** Who looks at their Home, answering each `watching` question and counting them. */
function countingViewers(looking: readonly string[]) {
  const asked: string[][] = [];
  const viewers: HomeViewers = {
    opened: async () => {},
    watching: async (userIds) => {
      asked.push([...userIds]);
      return new Set(userIds.filter((id) => looking.includes(id)));
    },
  };
  return { viewers, asked };
}

describe('whose Homes follow a change', () => {
  it('changes worked out together ask who looks once (one ZMSCORE on Redis)', async () => {
    const { viewers, asked } = countingViewers([]);
    // Nobody looks, so nothing is published: the store and Slack are never reached.
    const homes = new AppHomes({ viewers, clock: () => 0, log } as unknown as AppHomesDeps);
    homes.peopleChanged(['U1', 'U2']);
    homes.peopleChanged(['U2', 'U3']);
    homes.peopleChanged(['U4']);
    expect(await homes.drain(5_000)).toBe(true);
    expect(asked).toHaveLength(1);
    expect(asked[0]?.sort()).toEqual(['U1', 'U2', 'U3', 'U4']);
  });
});

describe('BatchedHomeViewers', () => {
  it('answers each question with its own people, from a read sent after it was asked', async () => {
    const { viewers, asked } = countingViewers(['U2', 'U4']);
    const batched = new BatchedHomeViewers(viewers);
    const first = batched.watching(['U1', 'U2'], 10);
    const second = batched.watching(['U3'], 11);
    expect(await first).toEqual(new Set(['U2']));
    expect(await second).toEqual(new Set());
    expect(asked).toEqual([['U1', 'U2', 'U3']]);
    // Asked after that read went out: a read of its own.
    expect(await batched.watching(['U4'], 12)).toEqual(new Set(['U4']));
    expect(asked).toHaveLength(2);
  });

  it('questions asked while a read is under way go together in the read after it', async () => {
    const asked: string[][] = [];
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const viewers: HomeViewers = {
      opened: async () => {},
      watching: async (userIds) => {
        asked.push([...userIds]);
        if (asked.length === 1) await held;
        return new Set(userIds.filter((id) => id !== 'U1'));
      },
    };
    const batched = new BatchedHomeViewers(viewers);
    const first = batched.watching(['U1'], 10);
    await new Promise((resolve) => setImmediate(resolve));
    expect(asked).toEqual([['U1']]);
    // Three questions over three turns of the event loop, while the first read is under way.
    const later: Promise<Set<string>>[] = [];
    for (const id of ['U2', 'U3', 'U4']) {
      later.push(batched.watching([id], 11));
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(asked).toHaveLength(1);
    release();
    expect(await first).toEqual(new Set());
    expect(await Promise.all(later)).toEqual([new Set(['U2']), new Set(['U3']), new Set(['U4'])]);
    expect(asked).toEqual([['U1'], ['U2', 'U3', 'U4']]);
  });

  it('fails every question a failed read answered', async () => {
    const failing: HomeViewers = {
      opened: async () => {},
      watching: async () => {
        throw new Error('Redis is down');
      },
    };
    const batched = new BatchedHomeViewers(failing);
    const results = await Promise.allSettled([
      batched.watching(['U1'], 0),
      batched.watching(['U2'], 0),
    ]);
    expect(results.map((result) => result.status)).toEqual(['rejected', 'rejected']);
  });
});
