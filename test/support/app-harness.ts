import { randomBytes } from 'node:crypto';
import { mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CHANNELS,
  PEOPLE,
  type Sandbox,
  type SandboxMessage,
  slackSignature,
  startSandbox,
} from '@adk-slack-approvals/slack-sandbox';
import type { SpanExporter } from '@opentelemetry/sdk-trace';
import { inject, vi } from 'vitest';
import { AdkClient } from '../../src/adk/client.js';
import { type RunningApp, startApp } from '../../src/app.js';
import type { PauseView } from '../../src/approvals/records.js';
import type { RedisClient } from '../../src/approvals/store/redis-connection.js';
import { openRedisStore } from '../../src/approvals/store/redis-store.js';
import type { ApprovalStore } from '../../src/approvals/store.js';
import { loadConfig } from '../../src/config.js';
import { createLog } from '../../src/log.js';
import { ACTION_IDS, parseButtonValue } from '../../src/slack/codecs/action-ids.js';
import {
  APP_REDIS_ENV,
  connectTestRedis,
  deleteWithPrefix,
  REDIS_URL,
  randomPrefix,
} from './redis.js';
import { type SlackFaultProxy, startSlackFaultProxy } from './slack-fault-proxy.js';
import { type StallingTcpProxy, startStallingTcpProxy } from './stalling-tcp-proxy.js';
import { type SwitchableProxy, startSwitchableProxy } from './switchable-proxy.js';

export { CHANNELS, PEOPLE };

export interface HarnessOptions {
  /** The approver policy, as YAML. */
  policy: string;
  /** Default 100 ms, so that expiry shows quickly. */
  sweepIntervalMs?: number;
  /** Put a proxy the test can take down between the app and the ADK server. */
  adkProxy?: boolean;
  /** Another ADK server than the shared real one (a fake at the HTTP boundary). */
  adkBaseUrl?: string;
  /** `ADK_RESUMABLE`; default unset (`auto`). */
  resumable?: 'auto' | 'true' | 'false';
  /** The approvals API keys file, as YAML; absent: the API is off. */
  apiKeys?: string;
  /** The runbooks file (`RUNBOOKS_FILE`), as YAML; absent: alerts match nothing. */
  runbooks?: string;
  /** Reuse this key prefix (a second replica over the same records). */
  keyPrefix?: string;
  webhook?: { timeoutMs?: number; backoffMs?: number; maxBackoffMs?: number };
  /** LOG_FORMAT of the app's log lines (`logs`). Default text. */
  logFormat?: 'text' | 'json';
  /** Put a proxy that hangs or rate-limits chosen calls between the app and Slack's Web API. */
  slackProxy?: boolean;
  /** Put a proxy that can hold back Redis's answers between the app and Redis. */
  redisProxy?: boolean;
  /**
   * Connect the app over Socket Mode (`SLACK_APP_TOKEN`) to the sandbox's WebSocket instead of
   * giving the sandbox its `/slack/events` URL: commands, clicks and events travel the socket.
   */
  socketMode?: boolean;
  /**
   * Turn tracing on (`OTEL_TRACES_EXPORTER=otlp`) with its spans going here instead of an OTLP
   * endpoint: the real SDK, an in-memory exporter.
   */
  spanExporter?: SpanExporter;
  /** The bot token the app is given, when not the one the sandbox accepts (a wrong one). */
  appBotToken?: string;
  /** How old Slack's verdict on the bot token may get before `/readyz` has it asked again. */
  botTokenRecheckMs?: number;
}

export interface Harness {
  sandbox: Sandbox;
  app: RunningApp;
  adk: AdkClient;
  /** Present with `adkProxy`: take the ADK server out of the app's reach and back. */
  adkProxy: SwitchableProxy | undefined;
  /** Present with `slackProxy`: make Slack hang or rate-limit chosen methods and channels. */
  slackProxy: SlackFaultProxy | undefined;
  /** Present with `redisProxy`: make Redis stop answering the app (it still runs commands). */
  redisProxy: StallingTcpProxy | undefined;
  /** A second connection to the app's records, as another replica would see them. */
  store: ApprovalStore;
  /** The client under `store`, and the app's key prefix, for reading raw keys. */
  redis: RedisClient;
  keyPrefix: string;
  /** Deletes every key of the app's store, as a Redis restarted without persistence would. */
  loseStoreData(): Promise<void>;
  /** Every log line of the app, for a failing test's output. */
  logs: string[];
  /** The app's events URL and signing secret: for requests Slack would never send (forgeries). */
  appEventsUrl: string;
  /** Posts an interaction `payload` to the app, signed as Slack signs it: a forgery. */
  postInteraction(payload: object): Promise<Response>;
  /** The policy file the app reads (and re-reads when it changes). */
  policyFile: string;
  /** The runbooks file the app reads with `runbooks` (and re-reads when it changes). */
  runbooksFile: string;
  signingSecret: string;
  /** Runs `/agent <text>` as `user` in `channel`; resolves with the run's thread root. */
  runAgent(user: string, channel: string, text: string): Promise<SandboxMessage>;
  /** Waits for the approval card in a thread (the first bot reply with approval buttons). */
  card(channel: string, threadTs: string): Promise<SandboxMessage>;
  /** The replies in a run's thread so far, without its root. */
  thread(channel: string, root: SandboxMessage): SandboxMessage[];
  /** The thread's messages that still carry approval buttons: the cards open for decisions. */
  openCards(channel: string, root: SandboxMessage): SandboxMessage[];
  /** Waits for a reply in the thread whose text contains `needle`. */
  reply(channel: string, threadTs: string, needle: string): Promise<SandboxMessage>;
  /** Waits until the message (updated in place) reads `pattern` (its blocks' text); resolves with it. */
  messageReading(channel: string, ts: string, pattern: RegExp): Promise<SandboxMessage>;
  /**
   * `user` clicks Approve on a one-gate card; resolves once the card says the agent resumed, with
   * the click's HTTP status.
   */
  approveUntilResumed(user: string, channel: string, card: SandboxMessage): Promise<number>;
  /** The records behind a card (found through its buttons' opaque ids). */
  pauseOf(card: SandboxMessage): Promise<PauseView>;
  /** How many responses of `tool` the card's ADK session holds whose body contains `marker`. */
  toolRuns(card: SandboxMessage, tool: string, marker: string): Promise<number>;
  stop(): Promise<void>;
}

/**
 * The whole app, as `npm start` wires it, against real Redis (a random key prefix; the Redis
 * Cluster named by REDIS_CLUSTER_NODES under `npm run test:cluster`), the real ADK
 * api_server with the test agents, and the local Slack sandbox standing in for Slack at the
 * HTTP boundary: requests reach the app signed, exactly as Slack sends them.
 */
export async function startHarness(options: HarnessOptions): Promise<Harness> {
  const adkBaseUrl = options.adkBaseUrl ?? inject('adkBaseUrl');
  const adkProxy = options.adkProxy ? await startSwitchableProxy(adkBaseUrl) : undefined;
  const dir = await mkdtemp(join(tmpdir(), 'approvals-e2e-'));
  const policyFile = join(dir, 'policy.yml');
  await writeFile(policyFile, options.policy);
  const apiKeysFile = join(dir, 'api-keys.yml');
  if (options.apiKeys !== undefined) await writeFile(apiKeysFile, options.apiKeys);
  const runbooksFile = join(dir, 'runbooks.yml');
  if (options.runbooks !== undefined) await writeFile(runbooksFile, options.runbooks);
  const keyPrefix = options.keyPrefix ?? randomPrefix();
  const logs: string[] = [];
  const log = createLog('debug', 'app', (line) => logs.push(line), options.logFormat ?? 'text');

  const signingSecret = randomBytes(16).toString('hex');
  const botToken = `xoxb-test-${randomBytes(6).toString('hex')}`;
  const appToken = `xapp-1-test-${randomBytes(6).toString('hex')}`;
  const sandbox = await startSandbox({
    port: 0,
    signingSecret,
    botToken,
    ...(options.socketMode ? { appToken } : {}),
  });
  const slackProxy = options.slackProxy ? await startSlackFaultProxy(sandbox.apiUrl) : undefined;
  const redisTarget = new URL(REDIS_URL);
  const redisProxy = options.redisProxy
    ? await startStallingTcpProxy(redisTarget.hostname, Number(redisTarget.port))
    : undefined;
  const config = loadConfig({
    ...(redisProxy
      ? { REDIS_URL: `redis://${redisProxy.host}:${redisProxy.port}` }
      : APP_REDIS_ENV),
    REDIS_KEY_PREFIX: keyPrefix,
    POLICY_FILE: policyFile,
    ADK_BASE_URL: adkProxy?.url ?? adkBaseUrl,
    ...(options.apiKeys === undefined ? {} : { API_KEYS_FILE: apiKeysFile }),
    ...(options.runbooks === undefined ? {} : { RUNBOOKS_FILE: runbooksFile }),
    PORT: '0',
    SWEEP_INTERVAL_MS: String(options.sweepIntervalMs ?? 100),
    ADK_TIMEOUT_MS: '60000',
    LOG_LEVEL: 'debug',
    ...(options.resumable === undefined ? {} : { ADK_RESUMABLE: options.resumable }),
    ...(options.spanExporter === undefined ? {} : { OTEL_TRACES_EXPORTER: 'otlp' }),
  });
  const appBotToken = options.appBotToken ?? botToken;
  const app = await startApp(
    config,
    {
      adkBaseUrl: adkProxy?.url ?? adkBaseUrl,
      slack: options.socketMode
        ? {
            mode: 'socket',
            botToken: appBotToken,
            appToken,
            apiUrl: slackProxy?.apiUrl ?? sandbox.apiUrl,
          }
        : {
            mode: 'http',
            botToken: appBotToken,
            signingSecret,
            apiUrl: slackProxy?.apiUrl ?? sandbox.apiUrl,
          },
      ...(options.webhook === undefined ? {} : { webhook: options.webhook }),
      ...(options.botTokenRecheckMs === undefined
        ? {}
        : { botTokenRecheckMs: options.botTokenRecheckMs }),
      ...(options.spanExporter === undefined ? {} : { spanExporter: options.spanExporter }),
    },
    log,
  );
  if (!options.socketMode) sandbox.setAppEventsUrl(`http://127.0.0.1:${app.port}/slack/events`);

  const redis = await connectTestRedis();
  const store = openRedisStore({ redis, keyPrefix, ownsClient: true });

  const harness: Harness = {
    sandbox,
    app,
    adkProxy,
    slackProxy,
    redisProxy,
    store,
    redis,
    keyPrefix,
    adk: new AdkClient({ baseUrl: adkBaseUrl }),
    logs,
    appEventsUrl: `http://127.0.0.1:${app.port}/slack/events`,
    postInteraction(payload) {
      const body = new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
      const timestamp = Math.floor(Date.now() / 1000);
      return fetch(`http://127.0.0.1:${app.port}/slack/events`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          'x-slack-request-timestamp': String(timestamp),
          'x-slack-signature': slackSignature(signingSecret, timestamp, body),
        },
        body,
      });
    },
    policyFile,
    runbooksFile,
    signingSecret,
    loseStoreData: () => deleteWithPrefix(redis, keyPrefix),
    async runAgent(user, channel, text) {
      const before = new Set(sandbox.messages(channel).map((message) => message.ts));
      const result = await sandbox.slashCommand({ user, channel, command: '/agent', text });
      if (!result.answered || result.status !== 200) {
        throw new Error(`/agent was not acknowledged: ${JSON.stringify(result)}`);
      }
      return sandbox.waitFor(
        () =>
          sandbox
            .messages(channel)
            .find((message) => message.botId !== undefined && !before.has(message.ts)),
        { timeoutMs: 15_000 },
      );
    },
    card(channel, threadTs) {
      return sandbox.waitFor(
        () =>
          sandbox
            .replies(channel, threadTs)
            .find((message) => JSON.stringify(message.blocks).includes(ACTION_IDS.approve)),
        { timeoutMs: 15_000 },
      );
    },
    thread(channel, root) {
      return sandbox.replies(channel, root.ts).filter((message) => message.ts !== root.ts);
    },
    openCards(channel, root) {
      return harness
        .thread(channel, root)
        .filter((message) => JSON.stringify(message.blocks).includes(ACTION_IDS.approve));
    },
    reply(channel, threadTs, needle) {
      return sandbox.waitFor(
        () =>
          sandbox
            .replies(channel, threadTs)
            .find((message) => JSON.stringify(message).includes(needle)),
        { timeoutMs: 15_000 },
      );
    },
    messageReading(channel, ts, pattern) {
      return sandbox.waitFor(
        () => {
          const now = sandbox.message(channel, ts);
          return now !== undefined && pattern.test(cardText(now)) && now;
        },
        { timeoutMs: 15_000 },
      );
    },
    async approveUntilResumed(user, channel, card) {
      const clicked = await sandbox.clickButton({
        user,
        channel,
        messageTs: card.ts,
        actionId: ACTION_IDS.approve,
      });
      await sandbox.waitFor(
        () => {
          const now = sandbox.message(channel, card.ts);
          return now !== undefined && cardText(now).includes('Agent resumed') && now;
        },
        { timeoutMs: 15_000 },
      );
      return clicked.answered ? clicked.status : 0;
    },
    async pauseOf(card) {
      const pauseId = buttons(card).flatMap((button) => {
        const value = parseButtonValue(button.value);
        return value === undefined ? [] : [value.pauseId];
      })[0];
      if (pauseId === undefined) throw new Error('the card has no button naming its pause');
      const view = await store.pauses.getPause(pauseId);
      if (view === undefined) throw new Error(`no records for pause ${pauseId}`);
      return view;
    },
    async toolRuns(card, tool, marker) {
      const { pause } = await harness.pauseOf(card);
      const { appName, userId, sessionId } = pause.adk;
      const session = await harness.adk.getSession(appName, userId, sessionId);
      return session.events.filter((event) =>
        (event.content?.parts ?? []).some(
          (part) =>
            part.functionResponse?.name === tool &&
            JSON.stringify(part.functionResponse.response).includes(marker),
        ),
      ).length;
    },
    async stop() {
      await slackProxy?.stop();
      redisProxy?.stall(false);
      await app.stop();
      await sandbox.stop();
      await redisProxy?.stop();
      await adkProxy?.stop();
      await deleteWithPrefix(redis, keyPrefix);
      await store.lifecycle.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
  return harness;
}

export interface FoundButton {
  action_id: string;
  value: string | undefined;
  text: string;
}

/** Every button in a message's blocks, in order. */
export function buttons(message: { blocks: unknown[] }): FoundButton[] {
  const found: FoundButton[] = [];
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) {
      for (const child of node) visit(child);
      return;
    }
    if (typeof node !== 'object' || node === null) return;
    const entries = Object.fromEntries(Object.entries(node));
    if (entries.type === 'button' && typeof entries.action_id === 'string') {
      const text = entries.text;
      found.push({
        action_id: entries.action_id,
        value: typeof entries.value === 'string' ? entries.value : undefined,
        text: typeof text === 'object' && text !== null && 'text' in text ? String(text.text) : '',
      });
    }
    for (const value of Object.values(entries)) visit(value);
  };
  visit(message.blocks);
  return found;
}

/** All the text of a message's blocks, joined: what a reader of the card sees. */
export function cardText(message: { blocks: unknown[] }): string {
  const texts: string[] = [];
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) {
      for (const child of node) visit(child);
      return;
    }
    if (typeof node !== 'object' || node === null) return;
    for (const [key, value] of Object.entries(node)) {
      if (key === 'text' && typeof value === 'string') texts.push(value);
      else visit(value);
    }
  };
  visit(message.blocks);
  return texts.join('\n');
}

/**
 * Replaces the harness's policy file as a config map does (a new file renamed over it), and waits
 * until the app says it reloaded it.
 */
export async function replacePolicy(harness: Harness, text: string): Promise<void> {
  const mark = harness.logs.length;
  await writeFile(`${harness.policyFile}.next`, text);
  await rename(`${harness.policyFile}.next`, harness.policyFile);
  await vi.waitFor(
    () => {
      if (!harness.logs.slice(mark).some((line) => line.includes('policy reloaded'))) {
        throw new Error('the policy is not reloaded yet');
      }
    },
    { timeout: 10_000, interval: 50 },
  );
}
