import { z } from 'zod';
import { type PauseView, policyRuleOf } from './records.js';

/**
 * Where a run stands, as its thread's root message shows it: kept in the store beside what the
 * root says, so that any replica can redraw it.
 */
export const runStatusSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('running') }),
  /** `card`: where the approval card is, for a link. */
  z.object({
    kind: z.literal('waiting'),
    card: z.object({ channelId: z.string().min(1), ts: z.string().min(1) }).optional(),
  }),
  z.object({ kind: z.literal('done') }),
  z.object({ kind: z.literal('rejected') }),
  /** Only the policy said no (`decision: deny`): no person rejected anything. */
  z.object({ kind: z.literal('denied') }),
  z.object({ kind: z.literal('expired') }),
  z.object({ kind: z.literal('withdrawn') }),
  z.object({ kind: z.literal('failed') }),
  /** A run started over the API, cancelled there (`DELETE /v1/runs/{id}`). */
  z.object({ kind: z.literal('cancelled') }),
  /** A run started by an alert that resolved. */
  z.object({ kind: z.literal('stood_down') }),
]);
export type RunStatus = z.infer<typeof runStatusSchema>;

/** Whether a status ends its run: nothing but a new run in the thread follows it. */
export function isRunEnd(status: RunStatus): boolean {
  return status.kind !== 'running' && status.kind !== 'waiting';
}

/** What the root message says besides the status (see `renderThreadRoot`). */
export const runRootSchema = z.object({
  userId: z.string().min(1),
  appName: z.string().min(1),
  prompt: z.string(),
  defaulted: z.boolean().optional(),
  /** A run started over the API or by an alert: what started it (`started-runs.ts`). */
  startedBy: z
    .object({
      kind: z.enum(['alert', 'webhook', 'api']),
      id: z.string().min(1),
      name: z.string().min(1).optional(),
    })
    .optional(),
});
export type RunRoot = z.infer<typeof runRootSchema>;

export interface RunRecord {
  root: RunRoot;
  status: RunStatus;
}

/** A run's thread: the channel and its root message's ts. */
export interface RunThreadRef {
  channelId: string;
  threadTs: string;
}

/** Runs by their thread. Writes are last-writer-wins: each is a whole status. */
export interface RunStatusStore {
  /** Remembers a run's root message; its status starts as `running`. */
  saveRoot(thread: RunThreadRef, root: RunRoot): Promise<void>;
  /**
   * Sets the status of a known run and answers the record as it now stands; nothing (undefined)
   * for a thread whose root was never saved.
   */
  setStatus(thread: RunThreadRef, status: RunStatus): Promise<RunRecord | undefined>;
  read(thread: RunThreadRef): Promise<RunRecord | undefined>;
}

/** How a run ended once a pause was answered and the agent finished without pausing again. */
export function endedStatus(view: PauseView): RunStatus {
  const states = new Set(view.gates.map((gate) => gate.state));
  if (states.has('approved')) return { kind: 'done' };
  if (states.has('withdrawn')) return { kind: 'withdrawn' };
  const rejected = view.gates.filter((gate) => gate.state === 'rejected');
  if (rejected.some((gate) => policyRuleOf(gate.decision?.by ?? '') === undefined)) {
    return { kind: 'rejected' };
  }
  if (rejected.length > 0) return { kind: 'denied' };
  if (states.has('expired')) return { kind: 'expired' };
  return { kind: 'done' };
}
