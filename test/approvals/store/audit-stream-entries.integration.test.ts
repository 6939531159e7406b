import { describe, expect, it } from 'vitest';
import { AUDIT_CURSOR_KIND, auditExportLines } from '../../../src/approvals/audit-export.js';
import { AuditVerifier } from '../../../src/approvals/audit-verify.js';
import { storeKeys } from '../../../src/approvals/store/keys.js';
import {
  appendToAuditStream,
  MORE_LINES_FIELD,
  STREAM_ENTRY_MAX_LINES,
} from '../../../src/approvals/store/redis-audit.js';
import type { RedisClient } from '../../../src/approvals/store/redis-connection.js';
import { openRedisStore } from '../../../src/approvals/store/redis-store.js';
import type { ApprovalStore } from '../../../src/approvals/store.js';
import { chain } from '../../support/audit-lines.js';
import { redisStoreForEachTest } from '../../support/redis.js';
import { approvalOfFirstGate, newPause, T0 } from './fixtures.js';

/**
 * The store-wide audit stream holds entries of one line and entries of several (a batch's lines:
 * the first in `line`, the others in `more`), with the first line's facts as fields of their own
 * (as versions before bf437a7 wrote them) or without. Readers read all of them, one line at a
 * time, and a cursor may fall inside an entry.
 */

let keyPrefix: string;
let redis: RedisClient;
let store: ApprovalStore;

redisStoreForEachTest((opened) => {
  ({ keyPrefix, redis, store } = opened);
});

/** An entry as versions before bf437a7 wrote it: the first line's facts as fields, the others in `more`. */
async function addEntry(lines: readonly string[]): Promise<string> {
  const [first, ...more] = lines;
  if (first === undefined) throw new Error('an entry holds a line at least');
  const facts = JSON.parse(first) as Record<string, string | number>;
  const fields = [
    'at',
    String(facts.at),
    'pauseId',
    String(facts.pauseId),
    'event',
    String(facts.event),
    'actor',
    String(facts.actor),
    ...(facts.callId === undefined ? [] : ['callId', String(facts.callId)]),
    'line',
    first,
    ...(more.length === 0 ? [] : [MORE_LINES_FIELD, more.join('\n')]),
  ];
  const id = await redis.xadd(storeKeys(keyPrefix).audit, '*', ...fields);
  if (id === null) throw new Error('XADD answered nothing');
  return id;
}

/** An entry as this version writes it, holding only its lines: the first in `line`, the others in `more`. */
async function addLinesOnly(lines: readonly string[]): Promise<string> {
  const [first, ...more] = lines;
  if (first === undefined) throw new Error('an entry holds a line at least');
  const fields = ['line', first, ...(more.length === 0 ? [] : [MORE_LINES_FIELD, more.join('\n')])];
  const id = await redis.xadd(storeKeys(keyPrefix).audit, '*', ...fields);
  if (id === null) throw new Error('XADD answered nothing');
  return id;
}

describe('the audit stream: entries of one line and of several', () => {
  const p1 = chain('p-one', 3);
  const p2 = chain('p-two', 2);
  const written = [p1[0], p1[1], p2[0], p2[1], p1[2]] as string[];

  async function writeMixed(): Promise<string[]> {
    const single = await addEntry([p1[0] as string]);
    const batch = await addEntry([p1[1], p2[0], p2[1]] as string[]);
    const last = await addEntry([p1[2] as string]);
    return [single, batch, `${batch}.1`, `${batch}.2`, last];
  }

  it('reads each line of an entry of several as an entry of its own, in order, with its own id and facts', async () => {
    const ids = await writeMixed();
    const read = await store.audit.readAudit();
    expect(read.map((entry) => entry.line)).toEqual(written);
    expect(read.map((entry) => entry.id)).toEqual(ids);
    expect(read[3]).toMatchObject({
      pauseId: 'p-two',
      event: 'voted',
      actor: 'U0BOB',
      callId: 'adk-1',
    });
  });

  it('reads an entry that holds only its lines as one with its first line facts in fields', async () => {
    const single = await addLinesOnly([p1[0] as string]);
    const batch = await addLinesOnly([p1[1], p2[0], p2[1]] as string[]);
    const last = await addEntry([p1[2] as string]);
    const read = await store.audit.readAudit();
    expect(read.map((entry) => entry.line)).toEqual(written);
    expect(read.map((entry) => entry.id)).toEqual([
      single,
      batch,
      `${batch}.1`,
      `${batch}.2`,
      last,
    ]);
    for (const entry of read) {
      const facts = JSON.parse(entry.line ?? '') as Record<string, unknown>;
      expect(entry).toMatchObject({
        at: facts.at,
        pauseId: facts.pauseId,
        event: facts.event,
        actor: facts.actor,
        ...(facts.callId === undefined ? {} : { callId: facts.callId }),
      });
    }
    const verifier = new AuditVerifier();
    for await (const line of auditExportLines(store, { limit: 100 })) verifier.add(line);
    expect(verifier.result()).toMatchObject({ ok: true, pauses: 2, anchors: [] });
  });

  it.each([1, 2, 3, 4])(
    'pages through them %i line(s) at a time, each line once, a cursor falling inside an entry',
    async (limit) => {
      await writeMixed();
      const seen: string[] = [];
      let after: string | undefined;
      for (let pages = 0; pages < 10; pages += 1) {
        const page = await store.audit.readAuditPage({
          limit,
          ...(after === undefined ? {} : { after }),
        });
        seen.push(...page.map((entry) => entry.line ?? ''));
        if (page.length < limit) break;
        after = page.at(-1)?.id;
      }
      expect(seen).toEqual(written);
    },
  );

  it('an export of entries of both kinds, and of transitions written together, verifies', async () => {
    await writeMixed();
    // Transitions that come together: their lines go into entries of several.
    const inputs = Array.from({ length: 10 }, () => newPause());
    await Promise.all(inputs.map((input) => store.pauses.createPause(input)));
    await Promise.all(inputs.map((input) => store.pauses.vote(approvalOfFirstGate(input, T0 + 1))));
    const verifier = new AuditVerifier();
    let lines = 0;
    for await (const line of auditExportLines(store, { limit: 1_000 })) {
      verifier.add(line);
      lines += 1;
    }
    // The header, the five written by hand, and each pause's created, voted and approved.
    expect(lines).toBe(1 + 5 + 3 * inputs.length);
    expect(verifier.result()).toMatchObject({ ok: true, pauses: 2 + inputs.length, anchors: [] });
  });

  it('the export continues from a nextCursor inside an entry', async () => {
    await writeMixed();
    const collect = async (cursor?: string) => {
      const out: string[] = [];
      for await (const line of auditExportLines(store, {
        limit: 2,
        ...(cursor ? { cursor } : {}),
      })) {
        out.push(line);
      }
      return out.slice(1);
    };
    const first = await collect();
    expect(first.slice(0, 2)).toEqual(written.slice(0, 2));
    const cursor = JSON.parse(first[2] as string) as { kind: string; nextCursor: string };
    expect(cursor.kind).toBe(AUDIT_CURSOR_KIND);
    const second = await collect(cursor.nextCursor);
    expect(second.slice(0, 2)).toEqual(written.slice(2, 4));
  });

  it('lines copied together go in entries of at most STREAM_ENTRY_MAX_LINES lines, read back in order', async () => {
    const lines = chain('p-burst', 2 * STREAM_ENTRY_MAX_LINES + 22);
    const key = storeKeys(keyPrefix).audit;
    await appendToAuditStream(
      redis,
      key,
      lines.map((line) => {
        const facts = JSON.parse(line) as { event: string; actor: string; callId?: string };
        const entry = { ...facts, callId: facts.callId ?? '', detail: '', line };
        return { pauseId: 'p-burst', entry, at: '1000' };
      }),
    );
    expect(await redis.xlen(key)).toBe(3);
    const read = await store.audit.readAudit({ count: lines.length + 10 });
    expect(read.map((entry) => entry.line)).toEqual(lines);
  });

  it('a page reads about the lines it returns, even from entries of many lines', async () => {
    // Entries of 100 lines each, as a version before the cap wrote a burst.
    const all: string[] = [];
    for (let e = 0; e < 60; e += 1) {
      const lines = chain(`p-${e}`, 100);
      await addEntry(lines);
      all.push(...lines);
    }
    let fetched = 0;
    const xrange = redis.xrange.bind(redis);
    redis.xrange = (async (...args: Parameters<typeof xrange>) => {
      const entries = await xrange(...args);
      for (const [, fields] of entries) {
        const more = fields[fields.indexOf(MORE_LINES_FIELD) + 1] ?? '';
        fetched += 1 + (more === '' ? 0 : more.split('\n').length);
      }
      return entries;
    }) as typeof redis.xrange;
    try {
      const first = await store.audit.readAuditPage({ limit: 500 });
      expect(first.map((entry) => entry.line)).toEqual(all.slice(0, 500));
      expect(fetched).toBeLessThanOrEqual(1_000);
      // The whole stream, 500 lines a page, each page starting where the last one stopped.
      const seen = first.map((entry) => entry.line);
      let after = first.at(-1)?.id;
      while (after !== undefined) {
        const page = await store.audit.readAuditPage({ limit: 500, after });
        seen.push(...page.map((entry) => entry.line));
        after = page.length < 500 ? undefined : page.at(-1)?.id;
      }
      expect(seen).toEqual(all);
      expect(fetched).toBeLessThanOrEqual(2.5 * all.length);
    } finally {
      redis.xrange = xrange;
    }
  });
});

describe('a copy to the store-wide audit that fails', () => {
  it('leaves the transition recorded and says at error level which pause lost how many lines', async () => {
    const errors: { message: string; fields: Record<string, unknown> }[] = [];
    const log = {
      warn: () => {},
      error: (message: string, fields: Record<string, unknown> = {}) => {
        errors.push({ message, fields });
      },
    };
    const logged = openRedisStore({ redis, keyPrefix, log });
    const input = newPause();
    await logged.pauses.createPause(input);
    expect(errors).toEqual([]);
    // The stream's key holds another type: every XADD to it fails.
    const keys = storeKeys(keyPrefix);
    await redis.del(keys.audit);
    await redis.set(keys.audit, 'not a stream');
    const voted = await logged.pauses.vote(approvalOfFirstGate(input, T0 + 1));
    expect(voted.kind).toBe('decided');
    expect((await logged.pauses.getPause(input.id))?.gates[0]?.state).toBe('approved');
    expect(errors).toEqual([
      {
        message: 'audit lines were not copied to the store-wide audit: they are lost',
        fields: expect.objectContaining({ lines: 2, pauses: `${input.id}:2` }),
      },
    ]);
    expect(JSON.stringify(errors)).not.toContain('amount');
  });
});
