import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { storeKeys } from '../../../src/approvals/store/keys.js';
import type { RedisClient } from '../../../src/approvals/store/redis-connection.js';
import { openRedisStore } from '../../../src/approvals/store/redis-store.js';
import { READ_PAUSE_LUA } from '../../../src/approvals/store/scripts/read-pause.lua.js';
import type { ApprovalStore } from '../../../src/approvals/store.js';
import { countingLua } from '../../support/counting-lua.js';
import { redisStoreForEachTest } from '../../support/redis.js';
import { APPROVER, callIdsOf, firstCallId, newPause, T0 } from './fixtures.js';

/**
 * What the store's reads around a decision cost in Redis commands, pinned: each card redraw
 * asks `changedSince`, so a command or a script more there is one more per decision (the app
 * bench's "Redis commands per decision"). Counted where every Redis client of this file sends
 * its commands (ioredis's `sendCommand`; a Cluster sends through its nodes' clients), for keys
 * of this test's prefix only: not with MONITOR, whose connection can mistake another test file's
 * command for a reply under load.
 */

let keyPrefix: string;
let redis: RedisClient;
let store: ApprovalStore;

redisStoreForEachTest((opened) => {
  ({ keyPrefix, redis, store } = opened);
});

/** The commands (by name, lower case) sent for this test's keys during `work`. */
async function commandsDuring(work: () => Promise<unknown>): Promise<string[]> {
  const sent: string[] = [];
  const proto = Redis.prototype as unknown as {
    sendCommand(command: { name: string; args: unknown[] }, ...rest: unknown[]): unknown;
  };
  const original = proto.sendCommand;
  proto.sendCommand = function (this: unknown, command, ...rest) {
    const mine = command.args.some((arg) => typeof arg === 'string' && arg.startsWith(keyPrefix));
    if (mine) sent.push(command.name.toLowerCase());
    return Reflect.apply(original, this, [command, ...rest]);
  };
  try {
    await work();
    return sent;
  } finally {
    proto.sendCommand = original;
  }
}

describe('the reads around a decision, on Redis', () => {
  it('a card redraw’s check (`changedSince`) is one HGET per record and no script', async () => {
    const input = newPause({ gates: 2 });
    const created = await store.pauses.createPause(input);
    const sent = await commandsDuring(async () => {
      expect(await store.pauses.changedSince(created.view)).toBe(false);
    });
    expect(sent).toEqual(['hget', 'hget', 'hget']);

    // Still sees a change made by another replica, and a pause that is gone.
    const other = openRedisStore({ redis, keyPrefix });
    await other.pauses.vote({
      pauseId: input.id,
      callId: firstCallId(input),
      voter: APPROVER,
      choice: 'approve',
      now: T0 + 1,
    });
    expect(await store.pauses.changedSince(created.view)).toBe(true);
    const gone = { ...created.view, pause: { ...created.view.pause, id: 'p_gone' } };
    expect(await store.pauses.changedSince(gone)).toBe(true);
  });
});

/**
 * The commands a script runs inside Redis for `keys` (a client sees only its EVAL): the script
 * run in a counting wrapper.
 */
async function commandsInside(source: string, keys: readonly string[], args: readonly string[]) {
  const [count, reply] = (await redis.eval(countingLua(source), keys.length, ...keys, ...args)) as [
    number,
    [number],
  ];
  return { count, code: reply[0] };
}

describe('read_pause, the read of a pause (a click’s check, the App Home)', () => {
  it('is one HMGET of the pause and one per gate', async () => {
    const keys = storeKeys(keyPrefix);
    for (const gates of [1, 2] as const) {
      const input = newPause({ gates });
      await store.pauses.createPause(input);
      const scriptKeys = keys.scriptKeys(input.id, callIdsOf(input));
      const inside = await commandsInside(READ_PAUSE_LUA, scriptKeys, ['']);
      expect(inside).toEqual({ count: 1 + gates, code: 0 });
      // And still the whole view, as the transitions return it.
      const view = await store.pauses.getPause(input.id);
      expect(view?.gates.map((gate) => gate.confirmationCallId)).toEqual(callIdsOf(input));
      expect(view?.gates.every((gate) => gate.state === 'pending')).toBe(true);
    }
  });
});
