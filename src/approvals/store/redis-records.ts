import { z } from 'zod';
import { adkDefaultHint } from '../../adk/gate.js';
import { jsonValueSchema, parseJsonText } from '../../json.js';
import {
  type GateRecord,
  gateDecisionSchema,
  gatePolicySchema,
  gateRecordSchema,
  gateStateSchema,
  type PauseRecord,
  type PauseView,
  pauseRecordSchema,
  RESUME_STATES,
  reopenedSchema,
  voteSchema,
} from '../records.js';
import { StoreError } from '../store.js';
import type { NewGate, NewPause } from '../store-roles/pauses.js';
import { gateExpiresAt, gateFactsOf } from './rules.js';
import { GATE_FIELDS, PAUSE_FIELDS } from './scripts/fields.js';

/**
 * How records are split into hash fields (see `scripts/fields.ts`) and put back together. Every
 * read goes through the zod schemas of records.ts; a record that does not parse is a
 * `StoreError('corrupt_record')` naming the key and the problem.
 */

/** The `record` field of a pause hash: what never changes after creation (the card's ts does). */
const storedPauseSchema = pauseRecordSchema
  .omit({ resume: true, version: true })
  .extend({ card: pauseRecordSchema.shape.card.omit({ ts: true }) });
type StoredPause = z.infer<typeof storedPauseSchema>;

/**
 * The `record` of a gate: what never changes after creation. Its call id, pause id and creation
 * time are the pause's (its key, the pause's callIds and createdAt), so they are not stored again;
 * records written before this was so still carry them, and are read as they are. ADK's default
 * hint (`adkDefaultHint`, 136 of a typical record's 336 bytes) is stored as `defaultHint: true`,
 * rebuilt from the tool's name when read. A version that does not know the flag reads no hint,
 * which shows the same: cards never show ADK's default hint.
 */
const storedGateSchema = gateRecordSchema
  .omit({
    policy: true,
    state: true,
    votes: true,
    decision: true,
    expiresAt: true,
    version: true,
  })
  .partial({ confirmationCallId: true, pauseId: true, createdAt: true })
  .extend({ defaultHint: z.literal(true).optional() });
type StoredGate = z.infer<typeof storedGateSchema>;

/** What a gate's record shares with its pause, for the fields it does not store. */
interface GateContext {
  callId: string;
  pauseId: string;
  createdAt: number;
}

/** Every field of the new pause but its gates is kept (fields added to both types carry over). */
export function encodePause(input: NewPause, callIds: readonly string[]) {
  const { gates, now, card: location, ...fields } = input;
  const { ts, ...card } = location;
  const record: StoredPause = { ...fields, card, callIds: [...callIds], createdAt: now };
  return { record: JSON.stringify(record), cardTs: ts ?? '' };
}

export function encodeGate(gate: NewGate, now: number, app: string) {
  const { policy, confirmationCallId: _, hint, ...fields } = gate;
  const record: StoredGate =
    hint === adkDefaultHint(gate.originalCall.name)
      ? { ...fields, defaultHint: true }
      : { ...fields, ...(hint === undefined ? {} : { hint }) };
  const expiresAt = gateExpiresAt(policy, now);
  return {
    callId: gate.confirmationCallId,
    record: JSON.stringify(record),
    policy: JSON.stringify(policy),
    expiresAt,
    auditFacts: gateFactsOf(gate, app),
  };
}

const jsonText = z.string().transform((text, ctx): unknown => {
  const json = parseJsonText(text);
  if (json.ok) return json.value;
  ctx.addIssue({ code: 'custom', message: 'not JSON' });
  return z.NEVER;
});
/**
 * JSON text that never changes once written (a pause's or a gate's record, a gate's policy),
 * parsed once per distinct text: every script's reply carries these again, and parsing them anew
 * for each was a good part of decoding a view. The same text gives the same value, frozen, so
 * that no reader can change what the next one gets. The `capacity` most recent texts are kept.
 */
function parsedOnce<T extends z.ZodType>(schema: T, capacity: number) {
  const known = new Map<string, z.output<T>>();
  const full = jsonText.pipe(schema);
  return z.string().transform((text, ctx): z.output<T> => {
    const hit = known.get(text);
    if (hit !== undefined) return hit;
    const parsed = full.safeParse(text);
    if (!parsed.success) {
      for (const issue of parsed.error.issues) {
        ctx.addIssue({ code: 'custom', message: issue.message, path: issue.path });
      }
      return z.NEVER;
    }
    const oldest = known.size >= capacity ? known.keys().next() : undefined;
    if (oldest !== undefined && oldest.done !== true) known.delete(oldest.value);
    const value = deepFreeze(parsed.data);
    known.set(text, value);
    return value;
  });
}

function deepFreeze<T>(value: T): T {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value;
  for (const item of Object.values(value)) deepFreeze(item);
  return Object.freeze(value);
}

/** Enough for every pause a replica touches within a burst of a few hundred decisions. */
const PARSED_RECORDS_KEPT = 2_000;

const numberText = z
  .string()
  .regex(/^-?\d+(\.\d+)?$/, 'not a number')
  .transform(Number);

const pauseHashSchema = z.object({
  record: parsedOnce(storedPauseSchema, PARSED_RECORDS_KEPT),
  cardTs: z.string().nullable(),
  version: numberText.pipe(pauseRecordSchema.shape.version),
  resumeState: z.enum(RESUME_STATES),
  attempts: numberText.pipe(pauseRecordSchema.shape.resume.shape.attempts),
  leaseOwner: z.string().nullable(),
  leaseUntil: numberText.nullable(),
  lastError: z.string().nullable(),
  resumeAt: numberText.nullable(),
  holdUntil: numberText.nullable(),
});

const gateHashSchema = z.object({
  record: parsedOnce(storedGateSchema, PARSED_RECORDS_KEPT),
  policy: parsedOnce(gatePolicySchema, PARSED_RECORDS_KEPT),
  state: gateStateSchema,
  version: numberText.pipe(gateRecordSchema.shape.version),
  expiresAt: numberText.nullable(),
  votes: jsonText.pipe(z.array(voteSchema)),
  decision: jsonText.pipe(gateDecisionSchema.omit({ payload: true })).nullable(),
  decisionPayload: jsonText.pipe(jsonValueSchema).nullable(),
  reopened: jsonText.pipe(reopenedSchema).nullable(),
});

/**
 * The hash's parts are each parsed by their schema once; the record is assembled from them
 * (typed, not parsed again: a second pass over the same values would only cost time).
 */
export function decodePause(key: string, values: readonly (string | null)[]): PauseRecord {
  const hash = parseOrThrow(key, pauseHashSchema, zip(PAUSE_FIELDS, values));
  const { record, cardTs } = hash;
  return {
    ...record,
    card: cardTs === null ? record.card : { ...record.card, ts: cardTs },
    resume: {
      state: hash.resumeState,
      attempts: hash.attempts,
      ...(hash.leaseOwner === null ? {} : { leaseOwner: hash.leaseOwner }),
      ...(hash.leaseUntil === null ? {} : { leaseUntil: hash.leaseUntil }),
      ...(hash.lastError === null ? {} : { lastError: hash.lastError }),
      ...(hash.resumeAt === null ? {} : { at: hash.resumeAt }),
      ...(hash.holdUntil === null ? {} : { holdUntil: hash.holdUntil }),
    },
    version: hash.version,
  };
}

export function decodeGate(
  key: string,
  values: readonly (string | null)[],
  context: GateContext,
): GateRecord {
  const hash = parseOrThrow(key, gateHashSchema, zip(GATE_FIELDS, values));
  const {
    confirmationCallId = context.callId,
    pauseId = context.pauseId,
    createdAt = context.createdAt,
    defaultHint,
    ...stored
  } = hash.record;
  const record = defaultHint
    ? { ...stored, hint: adkDefaultHint(stored.originalCall.name) }
    : stored;
  const decision =
    hash.decision === null
      ? undefined
      : {
          ...hash.decision,
          ...(hash.decisionPayload === null ? {} : { payload: hash.decisionPayload }),
        };
  return {
    ...record,
    confirmationCallId,
    pauseId,
    createdAt,
    policy: hash.policy,
    state: hash.state,
    votes: hash.votes,
    ...(decision === undefined ? {} : { decision }),
    ...(hash.reopened === null ? {} : { reopened: hash.reopened }),
    ...(hash.expiresAt === null ? {} : { expiresAt: hash.expiresAt }),
    version: hash.version,
  };
}

/**
 * A pause view from a script's snapshot, or `undefined` when the pause's call ids are not the
 * ones the keys were built from (a stale cache: the caller reloads them).
 */
export function decodeView(
  keys: readonly string[],
  callIds: readonly string[],
  pauseValues: readonly (string | null)[],
  gateValues: readonly (readonly (string | null)[])[],
): PauseView | undefined {
  const pauseKey = keys[0] ?? '';
  const pause = decodePause(pauseKey, pauseValues);
  if (!sameList(pause.callIds, callIds) || gateValues.length !== callIds.length) return undefined;
  const gates = gateValues.map((values, i) => {
    const key = keys[i + 2] ?? '';
    const callId = callIds[i] ?? '';
    const gate = decodeGate(key, values, { callId, pauseId: pause.id, createdAt: pause.createdAt });
    if (gate.confirmationCallId !== callIds[i] || gate.pauseId !== pause.id) {
      throw new StoreError('corrupt_record', `${key}: belongs to another gate or pause`);
    }
    return gate;
  });
  return { pause, gates };
}

/**
 * Only the call ids, to build a pause's script keys: the rest of the record is checked when the
 * script's snapshot is decoded, so it is not parsed twice.
 */
const storedCallIdsSchema = jsonText.pipe(storedPauseSchema.pick({ callIds: true }));

/** The call ids of a pause from its `record` field alone (to build its script keys). */
export function decodeCallIds(key: string, record: string): string[] {
  return parseOrThrow(key, storedCallIdsSchema, record).callIds;
}

function parseOrThrow<T extends z.ZodType>(key: string, schema: T, input: unknown): z.output<T> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  throw new StoreError(
    'corrupt_record',
    `${key} does not hold a valid record: ${z.prettifyError(parsed.error)}`,
  );
}

function zip(
  fields: readonly string[],
  values: readonly (string | null)[],
): Record<string, string | null> {
  const hash: Record<string, string | null> = {};
  for (const [i, field] of fields.entries()) hash[field] = values[i] ?? null;
  return hash;
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((item, i) => item === b[i]);
}
