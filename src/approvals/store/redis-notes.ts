import { z } from 'zod';
import { parseJsonText } from '../../json.js';
import type { Log } from '../../log.js';
import {
  type DeliveryStatus,
  deliveryStatusSchema,
  type GateOutcome,
  gateClaimSchema,
  gateOutcomeSchema,
  type PauseNotes,
} from '../records.js';
import { StoreError } from '../store.js';
import type {
  DeliveryInput,
  GateRunClaim,
  GrantEventInput,
  HandOverRefusal,
  IdempotencyInput,
  IdempotencyKeys,
  IdempotencyResult,
  OutcomeInput,
  OutcomeResult,
  PauseNotesReader,
  PauseReports,
} from '../store-roles/pause-reports.js';
import type { StoreKeys } from './keys.js';
import { AuditStreamCopy } from './redis-audit-copy.js';
import type { AuditSealer } from './redis-audit-seal.js';
import { type RedisClient, redisCall } from './redis-connection.js';
import {
  deliveryAudit,
  grantAudit,
  handOverRefusedAudit,
  type NoteAuditEntry,
  outcomeAudit,
} from './rules.js';
import { ADD_NOTE_LUA } from './scripts/add-note.lua.js';
import { LuaScript } from './scripts/lua-script.js';
import { REFUSE_HAND_OVER_LUA } from './scripts/refuse-hand-over.lua.js';
import type { ScriptAuditEntry } from './scripts/reply.js';

const ADD_NOTE = new LuaScript('add_note', ADD_NOTE_LUA);
const REFUSE_HAND_OVER = new LuaScript('refuse_hand_over', REFUSE_HAND_OVER_LUA);
const DELIVERY_FIELD = 'delivery';
const OUTCOME_PREFIX = 'outcome:';
const CLAIM_PREFIX = 'claim:';
const GRANT_PREFIX = 'grant:';

const idempotencyRecordSchema = z.object({ fingerprint: z.string(), pauseId: z.string() });

/**
 * The Redis side of the store's notes (outcomes, webhook delivery status) and of API
 * idempotency keys: facts beside a pause that are not transitions of its state machine; and of
 * the one transition an agent reports after the fact (a handed-over decision it refused).
 */
export class RedisPauseNotes implements PauseReports, PauseNotesReader, IdempotencyKeys {
  private readonly stream: AuditStreamCopy;

  constructor(
    private readonly redis: RedisClient,
    private readonly keys: StoreKeys,
    private readonly retentionMs: number,
    private readonly sealer: AuditSealer,
    log?: Pick<Log, 'error'>,
  ) {
    this.stream = new AuditStreamCopy(redis, keys.audit, log);
  }

  async recordOutcome(input: OutcomeInput): Promise<OutcomeResult> {
    const { pauseId, callId, outcome, actor } = input;
    const code = await this.addNote(
      pauseId,
      `${OUTCOME_PREFIX}${callId}`,
      outcome,
      outcomeAudit(outcome, actor, callId),
      callId,
    );
    return code === 1 ? 'recorded' : code === -1 ? 'unknown_gate' : 'not_found';
  }

  async refuseHandOver(
    input: HandOverRefusal,
  ): Promise<'refused' | 'not_handed_over' | 'not_found'> {
    const { pauseId, actor, error, at } = input;
    const audit = handOverRefusedAudit(actor, error, at);
    const key = this.keys.pause(pauseId);
    const raw = await redisCall(`${REFUSE_HAND_OVER.name} on ${key}`, () =>
      REFUSE_HAND_OVER.run(this.redis, [key], [error, JSON.stringify(audit)]),
    );
    const code = await this.sealed(REFUSE_HAND_OVER.name, pauseId, raw, audit);
    return code === 1 ? 'refused' : code === -1 ? 'not_handed_over' : 'not_found';
  }

  async claimGateRun(input: GateRunClaim): Promise<'claimed' | 'taken'> {
    const key = this.keys.notes(input.pauseId);
    const field = `${CLAIM_PREFIX}${input.callId}`;
    const value = JSON.stringify({ by: input.by, at: input.at });
    // HSETNX: one command, so of two replicas' claims exactly one sets the field.
    const set = await redisCall(`claim ${key}`, () => this.redis.hsetnx(key, field, value));
    if (set !== 1) return 'taken';
    await redisCall(`expire ${key}`, () => this.redis.pexpire(key, this.retentionMs));
    return 'claimed';
  }

  async recordDelivery(input: DeliveryInput): Promise<'recorded' | 'not_found'> {
    const { pauseId, delivery, actor } = input;
    const code = await this.addNote(
      pauseId,
      DELIVERY_FIELD,
      delivery,
      deliveryAudit(delivery, actor),
      '',
    );
    return code === 1 ? 'recorded' : 'not_found';
  }

  async recordGrantEvent(input: GrantEventInput): Promise<OutcomeResult> {
    const { pauseId, callId, grantId, event, at } = input;
    const code = await this.addNote(
      pauseId,
      `${GRANT_PREFIX}${grantId}`,
      { event, at },
      grantAudit(input),
      callId,
    );
    return code === 1 ? 'recorded' : code === -1 ? 'unknown_gate' : 'not_found';
  }

  async readNotes(pauseId: string): Promise<PauseNotes> {
    const key = this.keys.notes(pauseId);
    const fields = await redisCall(`read ${key}`, () => this.redis.hgetall(key));
    const notes: PauseNotes = { outcomes: {} };
    for (const [field, text] of Object.entries(fields)) {
      if (field === DELIVERY_FIELD) {
        notes.delivery = parseNote(key, field, text, deliveryStatusSchema);
      } else if (field.startsWith(OUTCOME_PREFIX)) {
        const callId = field.slice(OUTCOME_PREFIX.length);
        notes.outcomes[callId] = parseNote(key, field, text, gateOutcomeSchema);
      } else if (field.startsWith(CLAIM_PREFIX)) {
        const callId = field.slice(CLAIM_PREFIX.length);
        notes.claims = { ...notes.claims, [callId]: parseNote(key, field, text, gateClaimSchema) };
      }
    }
    return notes;
  }

  async claimIdempotencyKey(input: IdempotencyInput): Promise<IdempotencyResult> {
    const key = this.keys.idempotency(input.key);
    const value = JSON.stringify({ fingerprint: input.fingerprint, pauseId: input.pauseId });
    // SET … NX GET (Redis ≥ 7): one command, so two replicas cannot both claim the key.
    const previous = await redisCall(`claim ${key}`, () =>
      this.redis.call('SET', key, value, 'PX', input.ttlMs, 'NX', 'GET'),
    );
    if (previous === null) return { kind: 'claimed' };
    const parsed =
      typeof previous === 'string' ? parseJsonText(previous) : ({ ok: false } as const);
    const record = parsed.ok ? idempotencyRecordSchema.safeParse(parsed.value) : undefined;
    if (!record?.success)
      throw new StoreError('corrupt_record', `${key} is not an idempotency record`);
    return { kind: 'seen', ...record.data };
  }

  private async addNote(
    pauseId: string,
    field: string,
    note: GateOutcome | DeliveryStatus | { event: string; at: number },
    audit: NoteAuditEntry,
    callId: string,
  ): Promise<number> {
    const keys = [this.keys.pause(pauseId), this.keys.notes(pauseId)];
    const raw = await redisCall(`${ADD_NOTE.name} on ${keys[0]}`, () =>
      ADD_NOTE.run(this.redis, keys, [
        field,
        JSON.stringify(note),
        JSON.stringify(audit),
        this.retentionMs,
        callId,
      ]),
    );
    return this.sealed(ADD_NOTE.name, pauseId, raw, audit);
  }

  /** A note script's reply: its code, after sealing the trail entry it wrote (if it wrote one). */
  private async sealed(
    script: string,
    pauseId: string,
    raw: unknown,
    audit: NoteAuditEntry,
  ): Promise<number> {
    const reply = z
      .union([
        z.tuple([z.literal(1), z.string(), z.string()]),
        z.tuple([z.literal(0)]),
        z.tuple([z.literal(-1)]),
      ])
      .safeParse(raw);
    if (!reply.success) throw new StoreError('script', `script ${script} answered ${String(raw)}`);
    const [code, head, unsealed] = reply.data;
    if (head !== undefined && unsealed !== undefined) {
      const sealed = await this.sealer.seal(this.keys.pause(pauseId), { head, unsealed });
      await this.mirror(pauseId, audit.at, sealed);
    }
    return code;
  }

  /**
   * The lines this call sealed, copied to the store-wide audit, as the transitions' are
   * (redis-indexes.ts): after the fact, so a copy that fails is logged (AuditStreamCopy), not
   * thrown: the note is recorded. (A deciding line left unsealed by a transition that failed to
   * seal it, and sealed here, is not added to the people's recent decisions.)
   */
  private async mirror(
    pauseId: string,
    at: string,
    sealed: readonly ScriptAuditEntry[],
  ): Promise<void> {
    const entries = sealed.map((entry) => ({ pauseId, entry, at }));
    await this.stream.copy(entries).catch(() => {});
  }
}

function parseNote<T>(key: string, field: string, text: string, schema: z.ZodType<T>): T {
  const json = parseJsonText(text);
  const parsed = json.ok ? schema.safeParse(json.value) : undefined;
  if (!parsed?.success)
    throw new StoreError('corrupt_record', `${key} field ${field} is not a valid note`);
  return parsed.data;
}
