/**
 * Run intents: an `/agent` command accepted and not yet ended, held by the replica running it
 * under a lease it renews (`advanceRun`) while the run goes on. A replica that dies stops
 * renewing, and `claimDeadRuns` hands the intent to one other replica to tell the requester.
 */
export interface RunIntentStore {
  recordRun(input: RecordRunInput): Promise<void>;
  /** Renews the lease and records progress; `lost` when another replica has taken the run over. */
  advanceRun(input: AdvanceRunInput): Promise<'renewed' | 'lost'>;
  /** The run ended (a card, an answer, an error said): the owner's intent is removed. */
  finishRun(input: { runId: string; owner: string }): Promise<void>;
  /** Intents whose lease lapsed at `now`, each claimed for `leaseMs` by `owner`. */
  claimDeadRuns(input: ClaimDeadRunsInput): Promise<RunIntent[]>;
}

/** What is known of an accepted `/agent` run, so that another replica can say what happened. */
export interface RunIntent {
  id: string;
  requester: string;
  teamId?: string;
  channelId: string;
  /** The command text (what the person asked). */
  text: string;
  acceptedAt: number;
  /** Once the run's root message is posted: the thread. */
  threadTs?: string;
  /** Once the ADK session exists. */
  appName?: string;
  sessionId?: string;
}

export type RunProgress = Pick<RunIntent, 'threadTs' | 'appName' | 'sessionId'>;

export interface RecordRunInput {
  intent: RunIntent;
  owner: string;
  now: number;
  leaseMs: number;
}

export interface AdvanceRunInput {
  runId: string;
  owner: string;
  now: number;
  leaseMs: number;
  progress?: RunProgress;
}

export interface ClaimDeadRunsInput {
  now: number;
  owner: string;
  leaseMs: number;
  limit?: number;
}
