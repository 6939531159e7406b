import type { PauseView } from '../approvals/records.js';
import type { ClosedGate } from '../metrics.js';
import { formatTraceparent, type TraceParent } from './traceparent.js';

/**
 * Approvals inside the agent's trace: a pause's span (a child of the agent's `traceparent`, or a
 * new trace for an `/agent` run), and under it its card, each gate's decision (from the gate
 * recorded to its decision: the wait, with who decided) and the resume. The pause stores its
 * span's `traceparent`, so that the decision and the resume join the trace on whichever replica
 * they happen, hours later. Spans carry names and ids, never arguments or payloads.
 */
export interface ApprovalTracing {
  /** Starts a pause's span; `parent`: the agent's `traceparent`, if it sent one. */
  startPause(parent: TraceParent | undefined, attributes: PauseSpanAttributes): PauseSpan;
  /** The card posted (or not: `error`), from `startedAt` (ms since the epoch) to now. */
  cardPosted(view: PauseView, startedAt: number, error?: string): void;
  /** A gate left `pending`: its decision, expiry or withdrawal. */
  gateDecided(gate: ClosedGate): void;
  /** The decisions sent to the agent (ADK resume or webhook), from `startedAt` to now. */
  resumeSent(view: PauseView, sent: ResumeSent): void;
  /** Exports what is buffered; the app calls it when it stops. */
  shutdown(): Promise<void>;
}

export interface PauseSpanAttributes {
  app: string;
  tools: readonly string[];
  /** `api` for a pause posted through the approvals API, `slack` for an `/agent` run's. */
  source: 'api' | 'slack';
}

export interface PauseSpan {
  /**
   * What the pause stores: this span's context, so that later spans are its children. With
   * tracing off, the agent's own `traceparent`, so that a replica with tracing on
   * still joins its trace.
   */
  readonly traceparent: string | undefined;
  end(outcome: { pauseId?: string; error?: string }): void;
}

export interface ResumeSent {
  how: 'adk' | 'webhook';
  startedAt: number;
  attempt: number;
  /** Why the agent did not get the decisions (an ADK error reason, an HTTP status). */
  error?: string;
}

export const noTracing: ApprovalTracing = {
  startPause: (parent) => ({
    traceparent: parent === undefined ? undefined : formatTraceparent(parent),
    end: () => {},
  }),
  cardPosted: () => {},
  gateDecided: () => {},
  resumeSent: () => {},
  shutdown: async () => {},
};
