import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { AdkClient } from './adk/client.js';
import { systemClock } from './approvals/clock.js';
import {
  emptyPolicy,
  loadPolicyFile,
  type Policy,
  SlackApproverDirectory,
} from './approvals/policy.js';
import { MemoryConfirmationStore } from './approvals/store/memory-store.js';
import { connectRedis } from './approvals/store/redis-connection.js';
import { RedisConfirmationStore } from './approvals/store/redis-store.js';
import { startSweeper } from './approvals/store/sweeper.js';
import type { ConfirmationStore } from './approvals/store.js';
import type { Config } from './config.js';
import { registerListeners } from './listeners/index.js';
import type { LineLogger } from './log.js';
import { createSlackApp, type ReadinessCheck, type SlackTransport } from './slack/bolt-app.js';
import { WebApiSlackPort } from './slack/web-api-port.js';
import { ApprovalWorkflow } from './workflow/approval-workflow.js';

/** What the app needs beyond the configuration: where ADK and Slack actually are. */
export interface AppTargets {
  adkBaseUrl: string;
  slack: SlackTransport;
}

export interface RunningApp {
  /** The HTTP port: `/slack/events` (over HTTP), `/healthz`, `/readyz`. */
  port: number;
  /** Stops taking work, finishes or hands back what is in flight, closes connections. */
  stop(): Promise<void>;
}

/** A resume lease's length without renewal (renewed every third of it while streaming). */
export const RESUME_LEASE_MS = 10_000;

/**
 * How old a pause without a card must be before another replica posts it: longer than a live
 * replica can take to post one (three 10 s attempts, or a 30 s rate-limit wait, and then some),
 * so that a slow post is not doubled.
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
  // The policy first: a mistake in it stops the start before anything is connected.
  const policy = await loadPolicy(config, log);
  const store = await openStore(config, log);
  await store.placeMarker(clock());

  const adk = new AdkClient({
    baseUrl: targets.adkBaseUrl,
    ...(config.adk.token === undefined ? {} : { token: config.adk.token }),
    runTimeoutMs: config.adk.runTimeoutMs,
  });

  const owner = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  const slackApp = createSlackApp({
    transport: targets.slack,
    port: config.port,
    log,
    readiness: readinessChecks(store, adk),
  });
  const slack = new WebApiSlackPort({
    client: slackApp.app.client,
    modalClient: slackApp.modalClient,
  });
  const directory = new SlackApproverDirectory(slackApp.app.client);

  const workflow = new ApprovalWorkflow({
    store,
    adk,
    slack,
    directory,
    policy: () => policy,
    clock,
    log: log.child('workflow'),
    options: {
      defaultApp: config.adk.defaultApp,
      owner,
      // Short, and renewed while the resume streams: a dead replica's resume is taken over
      // within one lease and one sweep.
      leaseMs: RESUME_LEASE_MS,
      resumable: config.adk.resumable,
      retryDelaysMs: [1_000, 4_000],
    },
  });
  registerListeners(slackApp.app, { workflow, slack, log: log.child('listeners') });

  const port = await slackApp.start();
  const sweeper = startSweeper({
    store,
    intervalMs: config.sweepIntervalMs,
    now: clock,
    onExpired: (gates) => workflow.onExpired(gates),
    onResumeDue: (pauseIds) => workflow.onResumeDue(pauseIds),
    cardless: {
      owner,
      graceMs: CARDLESS_GRACE_MS,
      leaseMs: CARDLESS_GRACE_MS,
      onCardless: (pauseIds) => workflow.onCardless(pauseIds),
    },
    log: log.child('sweeper'),
  });
  log.info('app started', { port, transport: targets.slack.mode, adk: targets.adkBaseUrl });

  return {
    port,
    async stop() {
      log.info('stopping: no new work; finishing what is in flight');
      await slackApp.stop();
      await sweeper.stop();
      const drained = await workflow.drain(DRAIN_TIMEOUT_MS);
      if (!drained) {
        log.warn(
          'in-flight work did not finish in time; its resume leases lapse and another replica takes over',
        );
      }
      await store.close();
      log.info('stopped');
    },
  };
}

async function openStore(config: Config, log: LineLogger): Promise<ConfirmationStore> {
  if (config.redis === undefined) {
    log.warn(
      'REDIS_URL is not set: using the in-process store. It is single-instance and loses every pending approval on restart; set REDIS_URL for anything but a trial.',
    );
    return new MemoryConfirmationStore();
  }
  const redis = await connectRedis(config.redis.url);
  return new RedisConfirmationStore({
    redis,
    keyPrefix: config.redis.keyPrefix,
    ownsClient: true,
    log: log.child('store'),
  });
}

async function loadPolicy(config: Config, log: LineLogger): Promise<Policy> {
  const policy =
    config.policyFile === undefined ? emptyPolicy() : await loadPolicyFile(config.policyFile);
  for (const warning of policy.warnings) log.warn(`policy: ${warning}`);
  log.info('policy loaded', { source: policy.source, rules: policy.rules.length });
  return policy;
}

function readinessChecks(store: ConfirmationStore, adk: AdkClient): Record<string, ReadinessCheck> {
  return {
    store: async () => {
      if ((await store.checkMarker()) === 'missing') {
        throw new Error(
          'the store has lost its data (its marker key is gone): pending approvals are lost; their cards say so when clicked',
        );
      }
    },
    adk: async () => {
      await adk.listApps();
    },
  };
}
