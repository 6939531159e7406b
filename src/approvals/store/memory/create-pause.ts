import type { NewPause } from '../../store-roles/pauses.js';
import { gateExpiresAt, gateFactsOf, pauseFactsOf } from '../rules.js';
import { type MemoryPause, PauseRun } from './prelude.js';

/**
 * Twin of scripts/create-pause.lua.ts: records a pause and its gates, unless the pause already
 * exists (then nothing is written). `detail` is the audit detail of the creation.
 */
export function createPause(
  pauses: Map<string, MemoryPause>,
  input: NewPause,
  callIds: readonly string[],
  detail: string,
): { created: boolean; run: PauseRun } {
  const { id, gates, now, ...fields } = input;
  const existing = pauses.get(id);
  if (existing) return { created: false, run: new PauseRun(existing, now) };
  // Every field of the new pause but its gates is kept (fields added to both types carry over).
  const entry: MemoryPause = {
    pause: structuredClone({
      ...fields,
      id,
      callIds: [...callIds],
      resume: { state: 'idle', attempts: 0 },
      createdAt: now,
      version: 1,
    }),
    gates: gates.map(({ policy, ...gate }) => {
      const expiresAt = gateExpiresAt(policy, now);
      const record = structuredClone({
        ...gate,
        pauseId: id,
        policy,
        state: 'pending' as const,
        votes: [],
        createdAt: now,
        ...(expiresAt === undefined ? {} : { expiresAt }),
        version: 1,
      });
      return { record, voters: new Set<string>(), approvals: 0 };
    }),
    facts: Object.fromEntries([
      ['', pauseFactsOf(input)],
      ...gates.map((gate) => [gate.confirmationCallId, gateFactsOf(gate, input.adk.appName)]),
    ]),
    auditSeq: 0,
  };
  pauses.set(id, entry);
  const run = new PauseRun(entry, now);
  run.audit('created', input.requester, '', detail);
  return { created: true, run };
}
