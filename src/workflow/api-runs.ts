import type { RunSource, StartedBy, StartedRunRecord } from '../approvals/started-runs.js';

/** A run started over the API or by an alert, as `GET /v1/runs/{id}` shows it. */
export type RunRecord = StartedRunRecord;

export interface StartRunInput {
  /** The ADK app. */
  app: string;
  /** What the agent is asked (a template already filled in). */
  prompt: string;
  /** The Slack channel id the run's thread starts in. */
  channel: string;
  startedBy: StartedBy;
  /** While a run with this key is open, another start joins it instead. */
  dedupeKey?: string;
  source: RunSource;
  /** The run's labels (an alert's labels): what policy rules' `labels` match. */
  labels?: Record<string, string>;
  /** The API key's name, when a key started it: only that key reads the run back. */
  keyId?: string;
}

/** Why a run is stood down: for now only an alert that resolved (`at`: epoch ms). */
export interface StandDownReason {
  kind: 'alert_resolved';
  at: number;
}

/**
 * Runs started by something other than a person's `/agent`: the API's `POST /v1/runs`, and the
 * alert receivers. Implemented by `ApiRuns` (api-run-control.ts); composed as `Workflow.runs`.
 */
export interface RunStarts {
  /**
   * Starts the run (its thread root posted, the agent streaming in the background), or joins the
   * open run with the same dedupe key (a line in its thread). Throws `RunStartRefused` when the
   * run cannot start (no channel for cards, Slack refused the root, unknown app).
   */
  start(input: StartRunInput): Promise<{ run: RunRecord; joined: boolean }>;
  /** A line in the run's thread; `text` is plain text, escaped here. Nothing before its thread exists. */
  note(runId: string, text: string): Promise<void>;
  /**
   * Closes the run's pending approvals as stood down ("Stood down: alert resolved at <time>" on
   * the cards and in the thread; the audit's actor `standdown:<runId>`); nothing resumes after
   * it. Nothing for a run that has ended.
   */
  standDown(runId: string, reason: StandDownReason): Promise<void>;
  /**
   * Closes the run's pending approvals as cancelled; nothing resumes. `by`: the API key's name
   * (the cards say "Cancelled by the agent (API key `by`)", the audit's actor is `api:<by>`).
   * Nothing for a run that has ended.
   */
  cancel(runId: string, by: string): Promise<void>;
  get(runId: string): Promise<RunRecord | undefined>;
}

/** Why a run could not start: `problem` names what to fix, in words for an API client. */
export class RunStartRefused extends Error {
  override readonly name = 'RunStartRefused';
  constructor(
    readonly kind: 'no_card_channel' | 'cannot_post' | 'unknown_app',
    readonly problem: string,
  ) {
    super(problem);
  }
}
