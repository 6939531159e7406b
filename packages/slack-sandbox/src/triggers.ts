import { randomBytes } from 'node:crypto';

/**
 * Trigger ids: issued with every interaction, they let the app open a modal for that person.
 * Slack accepts each once, within 3 seconds.
 */
export type TriggerExchange =
  | { ok: true; user: string }
  | { ok: false; error: 'invalid_trigger_id' | 'expired_trigger_id' | 'exchanged_trigger_id' };

interface Issued {
  user: string;
  issuedAtMs: number;
  exchanged: boolean;
}

export class Triggers {
  private readonly issued = new Map<string, Issued>();
  private sequence = 0;

  constructor(
    private readonly ttlMs: number,
    private readonly nowMs: () => number = Date.now,
  ) {}

  /** Shaped like Slack's: `13345224609.738474920.8088930838d88f008e0aa8b6bbb4d5c1`. */
  issue(user: string): string {
    this.sequence += 1;
    const id = `${this.nowMs()}.${this.sequence}.${randomBytes(16).toString('hex')}`;
    this.issued.set(id, { user, issuedAtMs: this.nowMs(), exchanged: false });
    return id;
  }

  exchange(id: string): TriggerExchange {
    const trigger = this.issued.get(id);
    if (!trigger) return { ok: false, error: 'invalid_trigger_id' };
    if (trigger.exchanged) return { ok: false, error: 'exchanged_trigger_id' };
    if (this.nowMs() - trigger.issuedAtMs >= this.ttlMs)
      return { ok: false, error: 'expired_trigger_id' };
    trigger.exchanged = true;
    return { ok: true, user: trigger.user };
  }
}
