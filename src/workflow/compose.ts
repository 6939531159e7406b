import type { AdkClient } from '../adk/client.js';
import type { Clock } from '../approvals/clock.js';
import { type DelegationStore, MemoryDelegationStore } from '../approvals/delegations.js';
import { type GrantStore, MemoryGrantStore } from '../approvals/grants.js';
import type { HomeViewers } from '../approvals/home-viewers.js';
import type { PauseSignals } from '../approvals/pause-signals.js';
import type { ApproverDirectory, Policy } from '../approvals/policy.js';
import { MemoryRunThreadRecords, type RunThreadRecords } from '../approvals/run-threads.js';
import { MemoryStartedRuns, type StartedRuns } from '../approvals/started-runs.js';
import type { ApprovalStore } from '../approvals/store.js';
import type { Log } from '../log.js';
import { type Metrics, noMetrics } from '../metrics.js';
import type { PersonNames } from '../slack/transport/person-names.js';
import type { SlackPort } from '../slack/transport/port.js';
import { type ApprovalTracing, noTracing } from '../tracing/approval-tracing.js';
import { withDecisionSpans } from '../tracing/decision-spans.js';
import { AgentRuns } from './agent-runs.js';
import { ApiRuns } from './api-run-control.js';
import { AppHomes } from './app-homes.js';
import { ApprovalChecks } from './approval-checks.js';
import { ApprovalWorkflow } from './approval-workflow.js';
import { BatchVotes } from './batch-votes.js';
import { CardRefresher } from './card-refresher.js';
import { QueuedCardUpdates } from './card-updates.js';
import { ApprovalCards } from './cards.js';
import { CriticalPath } from './critical-path.js';
import { Decider } from './decider.js';
import { DecisionQueue } from './decision-queue.js';
import { Delegations } from './delegations.js';
import { ExternalPauses } from './external-pauses.js';
import { GrantDecisions } from './grant-decisions.js';
import { PauseRecorder } from './pause-recorder.js';
import { Reminders } from './reminders.js';
import { ResumeScheduler } from './resume-scheduler.js';
import type { ResumerOptions } from './resume-sender.js';
import { ResumeTargets } from './resume-targets.js';
import { RunIntents } from './run-intents.js';
import { RunLauncher } from './run-launcher.js';
import { RunOrigins } from './run-origins.js';
import { RunRecovery } from './run-recovery.js';
import { RunStatusBoard } from './run-status-board.js';
import { RunStreamer } from './run-streamer.js';
import { RunThreads } from './run-thread.js';
import { SweptWork } from './swept-work.js';
import { ThreadReplies } from './thread-replies.js';
import { Undos } from './undos.js';
import { VoteVerifier } from './vote-verifier.js';
import type { WebhookDeliveryOptions, WebhookKey } from './webhook-deliveries.js';
import { Withdrawals } from './withdrawals.js';
import { KeyedWorkQueue } from './work-queue.js';

type WorkflowAdk = Pick<AdkClient, 'listApps' | 'createSession' | 'getSession' | 'runSse'>;

/** What pauses posted through the approvals API need beyond the Slack flow. */
export interface ExternalDeps {
  /** Wakes long-polls on every replica when a pause changes. */
  signals: PauseSignals;
  /** ADK servers the app may resume by name; the default (`ADK_BASE_URL`) is `default`. */
  adkTargets: ReadonlyMap<string, WorkflowAdk>;
  signingSecretOf: (keyName: string) => string | undefined;
  webhookKeyOf: (keyName: string) => WebhookKey | undefined;
  webhook?: Omit<WebhookDeliveryOptions, 'owner'>;
}

/**
 * Longest a card, run root or Home redraw waits for the decisions and resumes under way (see
 * `CriticalPath`): about what a burst of a couple of hundred clicks takes to be decided and sent.
 */
const REDRAW_MAX_WAIT_MS = 1_000;

export interface WorkflowDeps {
  store: ApprovalStore;
  adk: WorkflowAdk;
  slack: SlackPort;
  /** Absent: no approvals API (pauses come only from `/agent` runs). */
  external?: ExternalDeps;
  /**
   * Each run thread's one record: its root message and status, and which ADK session replies in
   * it continue. Default: this process's memory.
   */
  runThreads?: RunThreadRecords;
  /** Where people's scoped grants are kept. Default: this process's memory. */
  grants?: GrantStore;
  /** Runs started over the API or by alerts. Default: this process's memory. */
  startedRuns?: StartedRuns;
  /** Who looked at their App Home lately (their Homes follow changes). Default: this process's memory. */
  homeViewers?: HomeViewers;
  /** Hand-overs while away, by delegator. Default: this process's memory. */
  delegations?: DelegationStore;
  directory: ApproverDirectory;
  /** The policy as it is now; read on every decision. */
  policy: () => Policy;
  clock: Clock;
  log: Log;
  /** Where latencies and outcomes are reported. Default: nowhere. */
  metrics?: Metrics;
  /** Where approvals' spans go (OpenTelemetry). Default: nowhere. */
  tracing?: ApprovalTracing;
  /** Deciders' names for decisions read outside Slack. Default: their user ids. */
  people?: PersonNames;
  options: ResumerOptions & {
    defaultApp: string | undefined;
    /** Decisions handled at once (see `DecisionQueue`). Default 8. */
    decisionConcurrency?: number;
    /** Agent runs and resumes streaming at once (long tasks, mostly waiting on a model). Default 64. */
    runConcurrency?: number;
    /**
     * The lease of a run intent, renewed every third of it while the run goes on: a run whose
     * replica died is told to its requester one lease (and a sweep) later. Default `leaseMs`.
     */
    runLeaseMs?: number;
    /** How far a hand-over while away reaches (`DELEGATION_MAX_HOPS`). Default 1. */
    delegationMaxHops?: number;
  };
}

/** The workflow's entry points, each for the caller that uses it. */
export interface ComposedWorkflow {
  /** Clicks, modals, commands and thread replies (the Slack listeners). */
  workflow: ApprovalWorkflow;
  /** Each person's App Home: opened, refreshed after a click, its batch candidates. */
  homes: AppHomes;
  /** Scoped grants: revoked from the App Home and the API, listed by the API. */
  grants: GrantDecisions;
  /** Hand-overs while away, set and ended from the App Home; swept for starts and ends. */
  delegations: Delegations;
  /** The approvals API's pauses; absent without it. */
  external: ExternalPauses | undefined;
  /** What the sweeper hands this replica. */
  sweeps: SweptWork;
  /** Runs started over the API (`POST /v1/runs`) or by alerts: start, join, cancel, stand down. */
  runs: ApiRuns;
}

/**
 * Builds the workflow from its parts, each given what it calls as a named port: `CardUpdates`
 * (a pause changed: redraw its card, its Homes follow), `ResumeScheduling` (a pause is decided:
 * resume it), `ApprovalChecks` (who may decide what, now). Nothing here decides anything; the
 * way from a click to the agent is docs/architecture.md.
 */
export function composeWorkflow(deps: WorkflowDeps): ComposedWorkflow {
  const { store, slack, clock, options, directory, policy, external } = deps;
  const log = deps.log;
  const tracing = deps.tracing ?? noTracing;
  const metrics = withDecisionSpans(deps.metrics ?? noMetrics, tracing);
  const people = deps.people === undefined ? {} : { people: deps.people };
  const runThreads = deps.runThreads ?? new MemoryRunThreadRecords();
  const grantStore = deps.grants ?? new MemoryGrantStore();
  const startedRuns = deps.startedRuns ?? new MemoryStartedRuns();
  const origins = new RunOrigins(startedRuns, clock);
  const delegationStore = deps.delegations ?? new MemoryDelegationStore();
  const handOvers = {
    delegations: delegationStore,
    ...(options.delegationMaxHops === undefined
      ? {}
      : { delegationMaxHops: options.delegationMaxHops }),
  };
  /** Votes, and resumes until sent: redraws wait for them. */
  const criticalPath = new CriticalPath(REDRAW_MAX_WAIT_MS);
  const runs = new KeyedWorkQueue(log.child('runs'), {
    concurrency: options.runConcurrency ?? 64,
  });

  const checks = new ApprovalChecks({
    store,
    directory,
    policy,
    clock,
    log: log.child('decide'),
    grants: grantStore,
    origins,
    ...handOvers,
  });
  const homes = new AppHomes({
    store,
    slack,
    directory,
    policy,
    checks,
    clock,
    log: log.child('homes'),
    ...(deps.homeViewers === undefined ? {} : { viewers: deps.homeViewers }),
    grants: grantStore,
    criticalPath,
    ...handOvers,
  });
  const approvalCards = new ApprovalCards({
    store,
    slack,
    clock,
    log: log.child('cards'),
    homes,
    tracing,
    ...handOvers,
  });
  const refresher = new CardRefresher({
    cards: approvalCards,
    log: log.child('cards'),
    criticalPath,
  });
  const cards = new QueuedCardUpdates({ refresher, homes });
  const delegations = new Delegations({
    store: delegationStore,
    pending: store.pending,
    cards,
    homes,
    clock,
    log: log.child('hand-overs'),
  });
  const threads = new RunThreads({ slack, log: log.child('thread') });
  const runStatus = new RunStatusBoard({
    runs: runThreads,
    slack,
    log: log.child('run-status'),
    criticalPath,
  });

  // Decide → resume → stream → record → (the policy) decide: the one loop of the flow. The
  // scheduler is built before what decides and gets its targets once they exist, below.
  const resumes = new ResumeScheduler({
    runs,
    criticalPath,
    cards: refresher,
    ...(external === undefined ? {} : { signals: external.signals }),
    log,
  });
  const decider = new Decider({
    store,
    checks,
    cards,
    resumes,
    clock,
    log: log.child('decide'),
    metrics,
    ...people,
  });
  const runIntents = new RunIntents({
    store,
    clock,
    log: log.child('run-intents'),
    owner: options.owner,
    leaseMs: options.runLeaseMs ?? options.leaseMs,
  });
  const apiRuns = new ApiRuns({
    runs: startedRuns,
    adk: deps.adk,
    threads,
    runStatus: runThreads,
    board: runStatus,
    store,
    cards,
    policy,
    clock,
    log: log.child('api-runs'),
    work: runs,
    intents: runIntents,
  });
  const recorder = new PauseRecorder({
    store,
    cards: approvalCards,
    threads,
    policy,
    clock,
    log: log.child('pauses'),
    metrics,
    tracing,
    runStatus,
    slack,
    votes: decider,
    grants: grantStore,
    checks,
    runThreads,
    origins,
    startedRuns: apiRuns,
  });
  const streamer = new RunStreamer({
    adk: deps.adk,
    threads,
    pauses: recorder,
    log: log.child('stream'),
  });
  const launcher = new RunLauncher({
    adk: deps.adk,
    threads,
    sessions: runThreads,
    streamer,
    log: log.child('runs'),
    runStatus,
  });
  apiRuns.launchOn(launcher);
  resumes.resumeOn(
    new ResumeTargets({
      resumers: {
        store,
        cards,
        threads,
        clock,
        metrics,
        tracing,
        options,
        runStatus,
        checks,
      },
      adk: deps.adk,
      streamer,
      log,
      ...(external === undefined
        ? {}
        : {
            external: {
              adkTargets: external.adkTargets,
              pauses: recorder,
              cards: approvalCards,
              ...people,
              webhookKeyOf: external.webhookKeyOf,
              webhook: { owner: options.owner, ...external.webhook },
            },
          }),
    }),
  );

  const verifier = new VoteVerifier({
    store,
    clock,
    log: log.child('verify'),
    resumes,
    cards,
  });
  const decisions = new DecisionQueue({
    criticalPath,
    resumes,
    verifier,
    log,
    ...(options.decisionConcurrency === undefined
      ? {}
      : { concurrency: options.decisionConcurrency }),
  });
  const grants = new GrantDecisions({
    store,
    grants: grantStore,
    checks,
    decider,
    policy,
    threads,
    clock,
    log: log.child('grants'),
    homes,
  });
  const workflow = new ApprovalWorkflow({
    store,
    slack,
    log,
    decisions,
    runs,
    checks,
    decider,
    resumes,
    batches: new BatchVotes({ store, checks, decider, decisions }),
    grants,
    withdrawals: new Withdrawals({
      store,
      policy,
      threads,
      clock,
      log: log.child('withdraw'),
      metrics,
      cards,
      resumes,
      ...people,
    }),
    undos: new Undos({ store, policy, threads, clock, log: log.child('undo'), cards }),
    runIntents,
    agentRuns: new AgentRuns({
      adk: deps.adk,
      launcher,
      defaultApp: options.defaultApp,
      policy,
      clock,
      log: log.child('runs'),
    }),
    threadReplies: new ThreadReplies({
      sessions: runThreads,
      store,
      threads,
      streamer,
      log: log.child('replies'),
    }),
    redraws: { cards: refresher, homes, runStatus },
  });
  const sweeps = new SweptWork({
    store,
    decisions,
    runs,
    resumes,
    cards,
    approvalCards,
    runStatus,
    reminders: new Reminders({
      store,
      slack,
      directory,
      clock,
      log: log.child('reminders'),
      cards,
      ...handOvers,
    }),
    runRecovery: new RunRecovery({
      adk: deps.adk,
      slack,
      threads,
      streamer,
      sessions: runThreads,
      startedRuns: apiRuns,
      log: log.child('run-recovery'),
    }),
    clock,
    log,
    metrics,
    owner: options.owner,
  });
  return {
    workflow,
    homes,
    grants,
    delegations,
    external:
      external === undefined
        ? undefined
        : new ExternalPauses({
            store,
            signals: external.signals,
            cards: approvalCards,
            threads,
            policy,
            clock,
            log: log.child('api-pauses'),
            adkTargets: new Set(external.adkTargets.keys()),
            signingSecretOf: external.signingSecretOf,
            ...people,
            votes: decider,
            grants: grantStore,
            checks,
            slack,
            tracing,
            owner: options.owner,
          }),
    sweeps,
    runs: apiRuns,
  };
}
