import type {
  AdvanceRunInput,
  ClaimDeadRunsInput,
  RecordRunInput,
  RunIntent,
} from '../../store.js';

interface HeldIntent {
  intent: RunIntent;
  owner: string;
  leaseUntil: number;
}

/** The twin of `run_intent` (scripts/run-intent.lua.ts) and the `runs` index around it. */
export class MemoryRunIntents {
  private readonly held = new Map<string, HeldIntent>();

  record({ intent, owner, now, leaseMs }: RecordRunInput): void {
    this.held.set(intent.id, { intent: { ...intent }, owner, leaseUntil: now + leaseMs });
  }

  advance({ runId, owner, now, leaseMs, progress }: AdvanceRunInput): 'renewed' | 'lost' {
    const entry = this.held.get(runId);
    if (entry === undefined || entry.owner !== owner) return 'lost';
    entry.leaseUntil = now + leaseMs;
    for (const [name, value] of Object.entries(progress ?? {})) {
      if (value !== undefined) Object.assign(entry.intent, { [name]: value });
    }
    return 'renewed';
  }

  finish({ runId, owner }: { runId: string; owner: string }): void {
    if (this.held.get(runId)?.owner === owner) this.held.delete(runId);
  }

  claimDead({ now, owner, leaseMs }: ClaimDeadRunsInput, limit: number): RunIntent[] {
    const due = [...this.held.values()]
      .filter((entry) => entry.leaseUntil <= now)
      .sort((a, b) => a.leaseUntil - b.leaseUntil)
      .slice(0, limit);
    for (const entry of due) {
      entry.owner = owner;
      entry.leaseUntil = now + leaseMs;
    }
    return due.map((entry) => ({ ...entry.intent }));
  }
}
