import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { SpanExporter } from '@opentelemetry/sdk-trace';
import { AdkClient } from './adk/client.js';
import { checkAdkAtStart } from './adk/start-check.js';
import { alertRoutes } from './api/alert-routes.js';
import { apiRoutes, DEFAULT_ADK_TARGET } from './api/routes.js';
import { webhookAllowed } from './approvals/api-keys/api-key-scope.js';
import { type ApiKey, loadApiKeysFile } from './approvals/api-keys/api-keys-file.js';
import { systemClock } from './approvals/clock.js';
import type { PauseSignals } from './approvals/pause-signals.js';
import { PolicyWatcher } from './approvals/policy/policy-watcher.js';
import {
  emptyPolicy,
  loadPolicyFile,
  type Policy,
  SlackApproverDirectory,
} from './approvals/policy.js';
import { loadRunbooksFile, noRunbooks, type Runbooks } from './approvals/runbooks/runbooks-file.js';
import { RunbooksWatcher } from './approvals/runbooks/runbooks-watcher.js';
import { startSweeper } from './approvals/store/sweeper.js';
import type { ApprovalStore } from './approvals/store.js';
import { StoreReadiness } from './approvals/store-readiness.js';
import type { Config } from './config.js';
import { newCorrelationId, withCorrelation } from './correlation.js';
import { errorMessage } from './error-message.js';
import { registerListeners } from './listeners/index.js';
import type { LineLogger } from './log.js';
import { openStore } from './open-stores.js';
import { PrometheusMetrics } from './prometheus-metrics.js';
import { createSlackApp, type SlackTransport } from './slack/transport/bolt-app.js';
import { SlackPersonNames } from './slack/transport/person-names.js';
import { WebApiSlackPort } from './slack/transport/web-api-port.js';
import { noTracing } from './tracing/approval-tracing.js';
import { openTracing } from './tracing/otel-tracing.js';
import { AlertIntake } from './workflow/alert-intake.js';
import { AlertStandDowns } from './workflow/alert-stand-downs.js';
import type { RunStarts } from './workflow/api-runs.js';
import { type ComposedWorkflow, composeWorkflow, type ExternalDeps } from './workflow/compose.js';
import type { WebhookDeliveryOptions } from './workflow/webhook-deliveries.js';

/** What the app needs beyond the configuration: where ADK and Slack actually are. */
export interface AppTargets {
  adkBaseUrl: string;
  slack: SlackTransport;
  /** Webhook delivery timing (tests shorten the backoff). */
  webhook?: Omit<WebhookDeliveryOptions, 'owner'>;
  /** Where spans go instead of the exporter OTEL_TRACES_EXPORTER names (tests), when tracing is on. */
  spanExporter?: SpanExporter;
  /** How old Slack's verdict on the bot token may get before `/readyz` re-asks (tests shorten it). */
  botTokenRecheckMs?: number;
}

export interface RunningApp {
  /** The HTTP port: `/slack/events` (over HTTP), `/healthz`, `/readyz`, `/metrics`. */
  port: number;
  /** Runs started over the API or by alerts (what the alert receivers start and stand down). */
  runs: RunStarts;
  /** Stops taking work, finishes or hands back what is in flight, closes connections. */
  stop(): Promise<void>;
}

/** How long a replica holds a reminder it claimed: ample for a few DMs; then another sends it. */
export const NUDGE_LEASE_MS = 60_000;

/** A resume lease's length without renewal (renewed every third of it while streaming). */
export const RESUME_LEASE_MS = 10_000;

/**
 * How old a pause without a card must be before the sweeper posts it: longer than a live replica
 * takes to claim its card and start posting it. A post that waits longer (behind Slack's rate
 * limit) holds the card's claim, which keeps the sweeper off it (`CardClaims`).
 */
const CARDLESS_GRACE_MS = 90_000;

/** How long shutdown waits for in-flight decisions and streams before it lets go of them. */
const DRAIN_TIMEOUT_MS = 10_000;

/**
 * Builds and starts the app: policy → store → ADK client → Slack (Bolt) → workflow → listeners
 * → sweeper. Only this function and `main.ts` construct concrete clients.
 */
export async function startApp(
  config: Config,
  targets: AppTargets,
  log: LineLogger,
): Promise<RunningApp> {
  const clock = systemClock;
  const metrics = new PrometheusMetrics();
  const tracing =
    config.tracing === undefined ? noTracing : openTracing(config.tracing, targets.spanExporter);
  if (config.tracing !== undefined) {
    log.info('tracing: approvals spans on', {
      exporter: targets.spanExporter === undefined ? config.tracing.exporter : 'given',
      service: config.tracing.serviceName,
    });
  }
  // The policy first: a mistake in it stops the start before anything is connected.
  const policy = await loadPolicy(config, log);
  const policyWatcher =
    config.policyFile === undefined
      ? undefined
      : new PolicyWatcher({ path: config.policyFile, initial: policy, log: log.child('policy') });
  policyWatcher?.start();
  // The runbooks next, for the same reason.
  const runbooks = await loadRunbooks(config, log);
  const runbooksWatcher =
    config.runbooksFile === undefined
      ? undefined
      : new RunbooksWatcher({
          path: config.runbooksFile,
          initial: runbooks,
          log: log.child('runbooks'),
        });
  runbooksWatcher?.start();
  const reloadPolicy = () => {
    void policyWatcher?.reload();
    void runbooksWatcher?.reload();
  };
  process.on('SIGHUP', reloadPolicy);
  const apiKeys = await loadApiKeys(config, log);
  const { store, signals, runThreads, grants, homeViewers, startedRuns, alertTracks, delegations } =
    await openStore(config, log);
  await store.lifecycle.placeMarker({ now: clock() });
  const storeReadiness = new StoreReadiness({ store, clock, log: log.child('store') });
  metrics.countPendingGatesWith(() => store.pending.countPendingByApp());
  metrics.countPendingByApproverWith(() =>
    countPendingByApprover(store, policyWatcher?.current() ?? policy),
  );

  const adk = new AdkClient({
    baseUrl: targets.adkBaseUrl,
    ...(config.adk.token === undefined ? {} : { token: config.adk.token }),
    runTimeoutMs: config.adk.runTimeoutMs,
    metrics,
  });

  // The API's routes are given to Bolt, which the workflow's Slack port is built from: they reach
  // the workflow's entry points once it is composed, below.
  let composed: ComposedWorkflow | undefined;
  let alerts: { intake: AlertIntake; standDowns: AlertStandDowns } | undefined;
  const owner = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  const slackApp = createSlackApp({
    transport: targets.slack,
    port: config.port,
    log,
    readiness: { store: storeReadiness.check, adk: () => adk.listApps().then(() => {}) },
    warnings: (): Record<string, string> => {
      const broken = policyWatcher?.brokenFile();
      const brokenRunbooks = runbooksWatcher?.brokenFile();
      const lost = storeReadiness.warning();
      return {
        ...(broken === undefined ? {} : { policy: broken }),
        ...(brokenRunbooks === undefined ? {} : { runbooks: brokenRunbooks }),
        ...(lost === undefined ? {} : { store: lost }),
      };
    },
    routes: [
      ...apiRoutes(
        apiKeys === undefined
          ? undefined
          : {
              keys: apiKeys,
              pauses: () => {
                const pauses = composed?.external;
                if (pauses === undefined) throw new Error('the workflow is not started yet');
                return pauses;
              },
              store: () => store,
              grants: () => {
                if (composed === undefined) throw new Error('the workflow is not started yet');
                return composed.grants;
              },
              runs: () => {
                if (composed === undefined) throw new Error('the workflow is not started yet');
                return composed.runs;
              },
              log: log.child('api'),
            },
      ),
      ...(apiKeys === undefined
        ? []
        : alertRoutes({
            keys: apiKeys,
            intake: () => {
              if (alerts === undefined) throw new Error('the workflow is not started yet');
              return alerts.intake;
            },
            clock,
            log: log.child('alerts'),
          })),
    ],
    metrics: () => metrics.exposition(),
    ...(targets.botTokenRecheckMs === undefined
      ? {}
      : { botTokenRecheckMs: targets.botTokenRecheckMs }),
  });
  const slack = new WebApiSlackPort({
    client: slackApp.apiClient,
    modalClient: slackApp.modalClient,
    workspaceUrl: slackApp.workspaceUrl,
    metrics,
  });
  const directory = new SlackApproverDirectory(slackApp.botClient);

  composed = composeWorkflow({
    store,
    runThreads,
    grants,
    homeViewers,
    startedRuns,
    delegations,
    adk,
    slack,
    directory,
    people: new SlackPersonNames(slackApp.botClient),
    policy: () => policyWatcher?.current() ?? policy,
    clock,
    log: log.child('workflow'),
    ...(apiKeys === undefined
      ? {}
      : { external: externalDeps(config, targets, adk, apiKeys, signals) }),
    metrics,
    tracing,
    options: {
      defaultApp: config.adk.defaultApp,
      owner,
      // Short, and renewed while the resume streams: a dead replica's resume is taken over
      // within one lease and one sweep.
      leaseMs: RESUME_LEASE_MS,
      runLeaseMs: config.runLeaseMs,
      delegationMaxHops: config.delegationMaxHops,
      resumable: config.adk.resumable,
      retryDelaysMs: [1_000, 4_000],
    },
  });
  const { workflow, homes, grants: grantDecisions, sweeps } = composed;
  alerts = {
    intake: new AlertIntake({
      runbooks: () => runbooksWatcher?.current() ?? runbooks,
      runs: composed.runs,
      tracks: alertTracks,
      clock,
      log: log.child('alerts'),
    }),
    standDowns: new AlertStandDowns({
      tracks: alertTracks,
      runs: composed.runs,
      clock,
      log: log.child('alerts'),
      intervalMs: config.sweepIntervalMs,
    }),
  };
  registerListeners(slackApp.app, {
    workflow,
    homes,
    grants: grantDecisions,
    delegations: composed.delegations,
    slack,
    log: log.child('listeners'),
    metrics,
  });

  // Both said at start, by the variable's name: a bot token Slack refuses, an ADK that is down.
  const [port] = await Promise.all([
    slackApp.start(),
    checkAdkAtStart(
      adk,
      {
        variable: config.adk.baseUrl === undefined ? 'the local adk api_server' : 'ADK_BASE_URL',
        url: targets.adkBaseUrl,
      },
      log,
    ),
  ]);
  const sweeper = startSweeper({
    store,
    intervalMs: config.sweepIntervalMs,
    now: clock,
    // A sweep is work nobody clicked: it gets a correlation id of its own.
    onExpired: (gates) => withCorrelation(newCorrelationId(), () => sweeps.onExpired(gates)),
    onResumeDue: (pauseIds) =>
      withCorrelation(newCorrelationId(), () => sweeps.onResumeDue(pauseIds)),
    nudges: {
      leaseMs: NUDGE_LEASE_MS,
      onNudges: (nudges) => withCorrelation(newCorrelationId(), () => sweeps.onNudges(nudges)),
    },
    cardless: {
      owner,
      graceMs: CARDLESS_GRACE_MS,
      leaseMs: CARDLESS_GRACE_MS,
      onCardless: (pauseIds) =>
        withCorrelation(newCorrelationId(), () => sweeps.onCardless(pauseIds)),
    },
    deadRuns: {
      owner,
      leaseMs: config.runLeaseMs,
      onDeadRuns: (intents) =>
        withCorrelation(newCorrelationId(), () => sweeps.onDeadRuns(intents)),
    },
    auditRetentionMs: config.auditRetentionMs,
    onTick: () => composed.delegations.sweep(),
    log: log.child('sweeper'),
  });
  // Stand-downs due while no replica ran are found by the first sweep.
  alerts.standDowns.start();
  log.info('app started', { port, transport: targets.slack.mode, adk: targets.adkBaseUrl });

  return {
    port,
    runs: composed.runs,
    async stop() {
      log.info('stopping: no new work; finishing what is in flight');
      policyWatcher?.stop();
      runbooksWatcher?.stop();
      process.off('SIGHUP', reloadPolicy);
      await slackApp.stop();
      await sweeper.stop();
      await alerts?.standDowns.stop();
      const drained = await workflow.drain(DRAIN_TIMEOUT_MS);
      if (!drained) {
        log.warn(
          'in-flight work did not finish in time; its resume leases lapse and another replica takes over',
        );
      }
      await signals.close();
      await store.lifecycle.close();
      slackApp.apiClient.close();
      adk.close();
      await tracing.shutdown().catch((error: unknown) => {
        log.warn('could not export the last spans', { error: errorMessage(error) });
      });
      log.info('stopped');
    },
  };
}

async function loadApiKeys(config: Config, log: LineLogger): Promise<ApiKey[] | undefined> {
  if (config.apiKeysFile === undefined) {
    log.info('the approvals API is off: API_KEYS_FILE is not set (its /v1 paths answer 404)');
    return undefined;
  }
  const keys = await loadApiKeysFile(config.apiKeysFile);
  log.info('the approvals API is on', {
    keys: keys.length,
    targets: Object.keys(config.adkTargets).length + 1,
  });
  return keys;
}

/** ADK targets by name (`default` is ADK_BASE_URL), and each key's secrets, for the workflow. */
function externalDeps(
  config: Config,
  targets: AppTargets,
  adk: AdkClient,
  keys: readonly ApiKey[],
  signals: PauseSignals,
): ExternalDeps {
  const adkTargets = new Map<string, AdkClient>([[DEFAULT_ADK_TARGET, adk]]);
  for (const [name, baseUrl] of Object.entries(config.adkTargets)) {
    adkTargets.set(
      name,
      new AdkClient({
        baseUrl,
        ...(config.adk.token === undefined ? {} : { token: config.adk.token }),
        runTimeoutMs: config.adk.runTimeoutMs,
      }),
    );
  }
  const byName = new Map(keys.map((key) => [key.name, key]));
  return {
    signals,
    adkTargets,
    signingSecretOf: (name) => byName.get(name)?.signingSecret,
    webhookKeyOf: (name) => {
      const key = byName.get(name);
      return key === undefined
        ? undefined
        : { secret: key.signingSecret, allows: (url) => webhookAllowed(key, url) };
    },
    ...(targets.webhook === undefined ? {} : { webhook: targets.webhook }),
  };
}

async function loadRunbooks(config: Config, log: LineLogger): Promise<Runbooks> {
  if (config.runbooksFile === undefined) return noRunbooks();
  const runbooks = await loadRunbooksFile(config.runbooksFile);
  log.info('runbooks loaded', {
    source: runbooks.source,
    runbooks: runbooks.runbooks.length,
    version: runbooks.version.slice(0, 12),
  });
  return runbooks;
}

async function loadPolicy(config: Config, log: LineLogger): Promise<Policy> {
  const policy =
    config.policyFile === undefined ? emptyPolicy() : await loadPolicyFile(config.policyFile);
  for (const warning of policy.warnings) log.warn(`policy: ${warning}`);
  log.info('policy loaded', {
    source: policy.source,
    rules: policy.rules.length,
    version: policy.version.slice(0, 12),
  });
  return policy;
}

/**
 * Gates pending for each user the policy names as an approver (or an escalation target): user
 * groups and channel members are known only to Slack, so they are not counted here.
 */
async function countPendingByApprover(
  store: Pick<ApprovalStore, 'pending' | 'lifecycle'>,
  policy: Policy,
): Promise<Map<string, number>> {
  const users = new Set<string>();
  for (const { policy: snapshot } of [
    policy.defaults,
    ...policy.rules.map((rule) => rule.resolved),
  ]) {
    for (const approver of [...snapshot.approvers, ...(snapshot.escalateTo ?? [])]) {
      if (approver.kind === 'user') users.add(approver.id);
    }
  }
  const counts = new Map<string, number>();
  for (const user of users) {
    counts.set(
      user,
      (await store.pending.listPendingByApprover(user, PENDING_BY_APPROVER_MAX)).length,
    );
  }
  return counts;
}

/** Counted up to this many per approver (a count, not a listing). */
const PENDING_BY_APPROVER_MAX = 1_000;
