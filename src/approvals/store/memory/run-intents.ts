import type {
  AdvanceRunInput,
  ClaimDeadRunsInput,
  RecordRunInput,
  RunIntent,
  RunIntentStore,
} from '../../store-roles/run-intents.js';
import { DEFAULT_LIMIT } from '../rules.js';

interface HeldIntent {
  intent: RunIntent;
  owner: string;
  leaseUntil: number;
}

/** The twin of `run_intent` (scripts/run-intent.lua.ts) and the `runs` index around it. */
export class MemoryRunIntents implements RunIntentStore {
  private readonly held = new Map<string, HeldIntent>();

  async recordRun({ intent, owner, now, leaseMs }: RecordRunInput): Promise<void> {
    this.held.set(intent.id, { intent: { ...intent }, owner, leaseUntil: now + leaseMs });
  }

  async advanceRun(input: AdvanceRunInput): Promise<'renewed' | 'lost'> {
    const { runId, owner, now, leaseMs, progress } = input;
    const entry = this.held.get(runId);
    if (entry === undefined || entry.owner !== owner) return 'lost';
    entry.leaseUntil = now + leaseMs;
    for (const [name, value] of Object.entries(progress ?? {})) {
      if (value !== undefined) Object.assign(entry.intent, { [name]: value });
    }
    return 'renewed';
  }

  async finishRun({ runId, owner }: { runId: string; owner: string }): Promise<void> {
    if (this.held.get(runId)?.owner === owner) this.held.delete(runId);
  }

  async claimDeadRuns(input: ClaimDeadRunsInput): Promise<RunIntent[]> {
    const { now, owner, leaseMs, limit = DEFAULT_LIMIT } = input;
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
