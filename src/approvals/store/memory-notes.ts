import type { PauseNotes } from '../records.js';
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
import { addNote } from './memory/add-note.js';
import { refuseHandOver } from './memory/refuse-hand-over.js';
import type { MemoryPauseBook } from './memory-pause-book.js';
import { deliveryAudit, grantAudit, outcomeAudit } from './rules.js';

/**
 * The twin of redis-notes.ts: what is reported on a pause after its decision (each report an
 * entry in its trail), and the approvals API's idempotency keys.
 */
export class MemoryPauseNotes implements PauseReports, PauseNotesReader, IdempotencyKeys {
  /** Idempotency keys: the request each was first used for, until `expiresAt`. */
  private readonly idempotency = new Map<
    string,
    { fingerprint: string; pauseId: string; expiresAt: number }
  >();

  constructor(private readonly book: MemoryPauseBook) {}

  async recordOutcome(input: OutcomeInput): Promise<OutcomeResult> {
    const { pauseId, callId, outcome, actor } = input;
    const run = this.book.load(pauseId, outcome.at);
    if (!run) return 'not_found';
    const notes = this.book.notesOf(pauseId);
    const result = addNote(
      run,
      notes,
      (into) => {
        into.outcomes[callId] = structuredClone(outcome);
        this.book.notes.set(pauseId, into);
      },
      outcomeAudit(outcome, actor, callId),
      callId,
    );
    this.book.mirror(run);
    return result;
  }

  async refuseHandOver(input: HandOverRefusal) {
    const run = this.book.load(input.pauseId, input.at);
    if (!run) return 'not_found';
    const result = refuseHandOver(run, input);
    this.book.mirror(run);
    return result;
  }

  async claimGateRun(input: GateRunClaim): Promise<'claimed' | 'taken'> {
    const notes = this.book.notesOf(input.pauseId);
    if (notes.claims?.[input.callId] !== undefined) return 'taken';
    const claims = { ...notes.claims, [input.callId]: { by: input.by, at: input.at } };
    this.book.notes.set(input.pauseId, { ...notes, claims });
    return 'claimed';
  }

  async recordDelivery(input: DeliveryInput): Promise<'recorded' | 'not_found'> {
    const { pauseId, delivery, actor } = input;
    const run = this.book.load(pauseId, delivery.at);
    if (!run) return 'not_found';
    addNote(
      run,
      this.book.notesOf(pauseId),
      (into) => {
        into.delivery = structuredClone(delivery);
        this.book.notes.set(pauseId, into);
      },
      deliveryAudit(delivery, actor),
      undefined,
    );
    this.book.mirror(run);
    return 'recorded';
  }

  async recordGrantEvent(input: GrantEventInput): Promise<OutcomeResult> {
    const run = this.book.load(input.pauseId, input.at);
    if (!run) return 'not_found';
    // The trail entry is the record: the grant itself lives in the grant store.
    const result = addNote(
      run,
      this.book.notesOf(input.pauseId),
      () => {},
      grantAudit(input),
      input.callId,
    );
    this.book.mirror(run);
    return result;
  }

  async readNotes(pauseId: string): Promise<PauseNotes> {
    return structuredClone(this.book.notesOf(pauseId));
  }

  async claimIdempotencyKey(input: IdempotencyInput): Promise<IdempotencyResult> {
    const now = Date.now();
    const seen = this.idempotency.get(input.key);
    if (seen !== undefined && seen.expiresAt > now) {
      return { kind: 'seen', fingerprint: seen.fingerprint, pauseId: seen.pauseId };
    }
    const { fingerprint, pauseId } = input;
    this.idempotency.set(input.key, { fingerprint, pauseId, expiresAt: now + input.ttlMs });
    return { kind: 'claimed' };
  }
}
