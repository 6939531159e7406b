import { z } from 'zod';
import { parseJsonText } from '../../json.js';
import { StoreError } from '../store.js';
import type { AuditEntry } from '../store-roles/audit-log.js';
import type { RedisClient } from './redis-connection.js';
import { redisCall } from './redis-connection.js';
import { APPEND_AUDIT_ONCE_LUA } from './scripts/append-audit-once.lua.js';
import { UNSEALED_FIELD } from './scripts/fields.js';
import { LuaScript } from './scripts/lua-script.js';
import type { ScriptAuditEntry } from './scripts/reply.js';

/**
 * Reading the Redis store's audit: the global stream, where each line is kept once (copied by
 * whoever sealed it, trimmed by age: `trimAudit`, AUDIT_RETENTION), and a pause's lines from it.
 */

const auditFieldsSchema = z.object({
  // A string in the stream's fields and in trail entries from before the chain; a number in lines.
  at: z.union([z.string().regex(/^-?\d+(\.\d+)?$/), z.number()]),
  pauseId: z.string().optional(),
  event: z.string(),
  actor: z.string(),
  callId: z.string().optional(),
  detail: z.string().optional(),
  line: z.string().optional(),
});
const streamSchema = z.array(z.tuple([z.string(), z.array(z.string())]));

/** The stream lines a pause's trail is looked for in at a time. */
const TRAIL_SCAN_PAGE = 500;

/**
 * A pause's trail, oldest first: its lines in the global stream, then the bodies its scripts
 * wrote that are not sealed yet (audit-chain.ts), which carry no chain line. Finding the lines
 * reads the whole stream, a page at a time: for tests and investigations, never on a request's
 * path (the app itself reads no pause's trail; the export reads the stream by time).
 */
export async function readPauseTrail(
  redis: RedisClient,
  keys: { pause: string; stream: string },
  pauseId: string,
  count: number,
): Promise<AuditEntry[]> {
  const trail: AuditEntry[] = [];
  let position = { start: '-', skipLines: 0 };
  for (;;) {
    const page = await readAuditStream(
      redis,
      keys.stream,
      TRAIL_SCAN_PAGE,
      position.start,
      '+',
      position.skipLines,
    );
    for (const entry of page) if (entry.pauseId === pauseId) trail.push(entry);
    const last = page.at(-1);
    if (last === undefined || page.length < TRAIL_SCAN_PAGE) break;
    position = streamPosition(last.id);
  }
  const unsealed = await redisCall(`read ${keys.pause}`, () =>
    redis.hget(keys.pause, UNSEALED_FIELD),
  );
  const bodies = unsealed === null || unsealed === '' ? [] : unsealed.split('\n');
  for (const [i, text] of bodies.entries()) {
    const json = parseJsonText(text);
    const fields = json.ok && isRecord(json.value) ? json.value : undefined;
    trail.push(auditEntry(keys.pause, `unsealed.${i + 1}`, pauseId, fields));
  }
  return trail.slice(0, count);
}

/** A sealed entry bound for the global audit stream, and its pause (named if its copy is lost). */
export interface StreamEntry {
  pauseId: string;
  entry: ScriptAuditEntry;
}

/**
 * Appends sealed entries to the global audit stream, in order, as `readAuditStream` reads them
 * back; nothing when there are none. One XADD for every `STREAM_ENTRY_MAX_LINES` lines, sent
 * together: the first line in `line`, the others after it in `MORE_LINES_FIELD`. Each line says
 * its pause, time and facts (versions before commit bf437a7 read the first line's from fields of
 * the entry, which versions before this one also wrote).
 * Uncapped: the retention trims the stream by age, so no line goes before its time.
 * `again`: the entries were sent before and may have been written (the answer was lost), so each
 * is added only if it is not there yet (append-audit-once.lua.ts).
 */
export async function appendToAuditStream(
  redis: RedisClient,
  key: string,
  entries: readonly StreamEntry[],
  again = false,
): Promise<void> {
  const writes: Promise<unknown>[] = [];
  for (let at = 0; at < entries.length; at += STREAM_ENTRY_MAX_LINES) {
    const [first, ...more] = entries.slice(at, at + STREAM_ENTRY_MAX_LINES);
    if (first === undefined) break;
    const { entry } = first;
    const fields = ['line', entry.line];
    if (more.length > 0)
      fields.push(MORE_LINES_FIELD, more.map((next) => next.entry.line).join('\n'));
    writes.push(
      again
        ? APPEND_AUDIT_ONCE.run(redis, [key], [entry.line, ...fields])
        : redis.call('XADD', key, '*', ...fields),
    );
  }
  await Promise.all(writes);
}

const APPEND_AUDIT_ONCE = new LuaScript('append_audit_once', APPEND_AUDIT_ONCE_LUA);

/**
 * The most lines one stream entry holds: a burst of transitions copied together is a few
 * entries, not one holding every line, which each page of an export starting inside it would
 * read whole again. Much smaller entries cost memory: each large entry is a listpack of its own.
 */
export const STREAM_ENTRY_MAX_LINES = 256;

/**
 * The stream entry field holding the lines after its first, `\n`-joined: lines written together
 * (a batch of transitions, of one pause or several) are one entry per `STREAM_ENTRY_MAX_LINES`.
 */
export const MORE_LINES_FIELD = 'more';

/**
 * Where a page of the stream starts after the line with id `after`: in its entry, past it. A
 * line's id is its entry's (`<ms>-<seq>`) for the entry's first line, `<ms>-<seq>.<k>` for the
 * `k`th after it.
 */
export function streamPosition(after: string): { start: string; skipLines: number } {
  const found = /^(\d+-\d+)\.(\d+)$/.exec(after);
  if (found?.[1] === undefined) return { start: after, skipLines: 1 };
  return { start: found[1], skipLines: Number(found[2]) + 1 };
}

/**
 * The global audit stream, oldest first, `count` lines at most from `start` (a stream range
 * start; `skipLines` lines of its first entry were read already); ids are stream ids, and
 * `<stream id>.<k>` for the lines after an entry's first.
 *
 * Entries hold one line or many (up to `STREAM_ENTRY_MAX_LINES`, and more in entries written
 * before that cap), so the range is read in steps: first `FIRST_READ_ENTRIES` entries, then as
 * many as the lines still wanted would take at the lines per entry seen so far. A page reads
 * about the lines it returns, never every line of `count` entries.
 */
export async function readAuditStream(
  redis: RedisClient,
  key: string,
  count: number,
  start = '-',
  end = '+',
  skipLines = 0,
): Promise<AuditEntry[]> {
  const lines: AuditEntry[] = [];
  let from = start;
  let skip = skipLines;
  let entries = Math.min(count, FIRST_READ_ENTRIES);
  while (lines.length < count) {
    // The first entry may be read already in full (`skip`): one more, then.
    const asked = entries + (skip > 0 ? 1 : 0);
    const raw = await redisCall(`read ${key}`, () => redis.xrange(key, from, end, 'COUNT', asked));
    const parsed = streamSchema.safeParse(raw);
    if (!parsed.success) throw new StoreError('corrupt_record', `${key} is not an audit stream`);
    let read = 0;
    for (const [index, [id, flat]] of parsed.data.entries()) {
      const all = streamEntryLines(key, id, flat);
      read += all.length;
      lines.push(...(index === 0 && skip > 0 && id === from ? all.slice(skip) : all));
    }
    const last = parsed.data.at(-1);
    if (last === undefined || parsed.data.length < asked) break;
    const linesPerEntry = read / parsed.data.length;
    entries = Math.max(1, Math.ceil((count - lines.length) / linesPerEntry));
    from = `(${last[0]}`;
    skip = 0;
  }
  return lines.slice(0, count);
}

/** The entries a stream read asks for first, before it knows how many lines they hold. */
const FIRST_READ_ENTRIES = 8;

/**
 * A stream entry's lines: its first, then each line of `more`, read from the line. The first is
 * read from the entry's own fields (`at`, `event`, …) when it has them, as earlier versions wrote
 * them; an entry that holds only its lines is read from them alone.
 */
function streamEntryLines(key: string, id: string, flat: readonly string[]): AuditEntry[] {
  const fields = Object.fromEntries(pairs(flat));
  const first =
    fields.event === undefined && fields.line !== undefined
      ? lineEntry(key, id, fields.line)
      : auditEntry(key, id, '', fields);
  const more = fields[MORE_LINES_FIELD];
  if (more === undefined || more === '') return [first];
  return [
    first,
    ...more.split('\n').map((line, index) => lineEntry(key, `${id}.${index + 1}`, line)),
  ];
}

/** An entry read from its chain line alone (its facts are the line's members). */
function lineEntry(key: string, id: string, line: string): AuditEntry {
  const json = parseJsonText(line);
  const of = json.ok && isRecord(json.value) ? json.value : undefined;
  return auditEntry(key, id, '', of && { ...of, line });
}

function auditEntry(key: string, id: string, pauseId: string, fields: unknown): AuditEntry {
  const parsed = auditFieldsSchema.safeParse(fields);
  if (!parsed.success) {
    throw new StoreError('corrupt_record', `${key} entry ${id}: ${z.prettifyError(parsed.error)}`);
  }
  const { at, event, actor, callId, detail, line } = parsed.data;
  return {
    id,
    at: Number(at),
    pauseId: parsed.data.pauseId ?? pauseId,
    event,
    actor,
    ...(callId === undefined ? {} : { callId }),
    ...(detail === undefined ? {} : { detail }),
    ...(line === undefined ? {} : { line }),
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A stream entry's `[k1, v1, k2, v2]` → `[[k1, v1], [k2, v2]]`. */
function pairs(flat: readonly string[]): [string, string][] {
  const out: [string, string][] = [];
  for (let i = 0; i + 1 < flat.length; i += 2) out.push([flat[i] ?? '', flat[i + 1] ?? '']);
  return out;
}

/** A person's recent decisions list (redis-indexes.ts), newest first; ids are positions in it. */
export function parseRecentDecisions(key: string, items: readonly string[]): AuditEntry[] {
  return items.map((text, index) => {
    const json = parseJsonText(text);
    return auditEntry(key, String(index + 1), '', json.ok ? json.value : undefined);
  });
}
