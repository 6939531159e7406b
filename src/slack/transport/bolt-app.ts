import type { IncomingMessage, ServerResponse } from 'node:http';
import { type AddressInfo, createServer } from 'node:net';
import { App, type CustomRoute, HTTPReceiver, SocketModeReceiver } from '@slack/bolt';
import { WebClient } from '@slack/web-api';
import { newCorrelationId, withCorrelation } from '../../correlation.js';
import { errorMessage, isAddressInUse, PortInUseError } from '../../error-message.js';
import type { LineLogger } from '../../log.js';
import { BotToken } from './bot-token.js';
import { rejectMalformedBodies } from './malformed-bodies.js';
import { SlackHttpClient } from './slack-http-client.js';

export type SlackTransport =
  | { mode: 'http'; botToken: string; signingSecret: string; apiUrl: string | undefined }
  | { mode: 'socket'; botToken: string; appToken: string; apiUrl: string | undefined };

/** A named dependency that must answer for the app to be ready (Redis, ADK). */
export type ReadinessCheck = () => Promise<void>;

export interface SlackAppOptions {
  transport: SlackTransport;
  port: number;
  log: LineLogger;
  readiness: Record<string, ReadinessCheck>;
  /** More routes on the same port (the approvals API), served over HTTP and in Socket Mode. */
  routes?: CustomRoute[];
  /** Longest a readiness check may take before it counts as failed. Default 2 s. */
  readinessTimeoutMs?: number;
  /** What `GET /metrics` answers (Prometheus text). Absent: no such route. */
  metrics?: () => Promise<{ contentType: string; body: string }>;
  /**
   * Problems worth an operator's eye that do not make the app unready (a policy file that no
   * longer loads while the previous policy stays in force): `/readyz` lists them under `warnings`.
   */
  warnings?: () => Record<string, string>;
  /** How old Slack's verdict on the bot token may get before `/readyz` has it asked again. */
  botTokenRecheckMs?: number;
}

/**
 * Stamped on every request Bolt passes to a listener (as `context.receivedAt`), right after the
 * receiver has read and verified it: where the ack latency starts.
 */
export const stampArrival = () => ({ receivedAt: performance.now() });

export interface SlackApp {
  app: App;
  /** A client of its own for `views.open`, which must answer within a trigger's 3 s. */
  modalClient: WebClient;
  /**
   * The client of the calls every decision makes (posts, updates, Homes): lighter than Bolt's
   * `WebClient`, with the same timeout and retries.
   */
  apiClient: SlackHttpClient;
  /** A `WebClient` with the bot token, for the lookups (user groups, members, names). */
  botClient: WebClient;
  /**
   * Starts listening, and asks Slack whether it accepts the bot token (waiting a few seconds at
   * most for the answer); resolves with the HTTP port (for /slack/events over HTTP, the probes).
   */
  start(): Promise<number>;
  /** Stops taking requests; the clients stay usable (in-flight work still calls Slack). */
  stop(): Promise<void>;
}

/** Longest one Web API request may take; a hung call then fails and is retried. */
const SLACK_REQUEST_TIMEOUT_MS = 10_000;
/** Tries after a failed one (connection, timeout, 5xx), each wait doubling: seconds, not minutes. */
const RETRIES = { retries: 2, factor: 2, minTimeout: 500, maxTimeout: 2_000 };
/** `views.open` has to land within the trigger's 3 s, retries included. */
const MODAL_REQUEST_TIMEOUT_MS = 2_500;
/** How long the start waits for Slack's word on the bot token before it goes on without it. */
const TOKEN_CHECK_AT_START_MS = 5_000;

/**
 * Bolt with the transport the configuration asks for: the HTTP receiver at `/slack/events`
 * (signature-verified), or Socket Mode with the app-level token. Either way `/healthz` and
 * `/readyz` (and `/metrics` when given) answer on `port`. The Web API client retries for seconds,
 * not Slack's default half hour, times out a hung request, and hands 429s back instead of pausing
 * every call for the `Retry-After` (the Slack port keeps rate limits per method and channel).
 */
export function createSlackApp(options: SlackAppOptions): SlackApp {
  const { transport, log } = options;
  const slackApiUrl = transport.apiUrl === undefined ? {} : { slackApiUrl: transport.apiUrl };
  const clientOptions = {
    ...slackApiUrl,
    timeout: SLACK_REQUEST_TIMEOUT_MS,
    rejectRateLimitedCalls: true,
    retryConfig: RETRIES,
  };
  const boltLog = log.child('bolt');
  const apiClient = new SlackHttpClient({
    token: transport.botToken,
    ...(transport.apiUrl === undefined ? {} : { apiUrl: transport.apiUrl }),
    timeoutMs: SLACK_REQUEST_TIMEOUT_MS,
    retries: RETRIES.retries,
    retryDelayMs: RETRIES.minTimeout,
    maxRetryDelayMs: RETRIES.maxTimeout,
  });
  const botToken = new BotToken({
    token: transport.botToken,
    client: apiClient,
    log: log.child('slack'),
    ...(options.botTokenRecheckMs === undefined ? {} : { recheckMs: options.botTokenRecheckMs }),
  });
  const customRoutes = [
    ...healthRoutes({
      ...options,
      readiness: { slack: botToken.readiness, ...options.readiness },
      warnings: () => {
        const tokenWarning = botToken.warning();
        return {
          ...(tokenWarning === undefined ? {} : { slack: tokenWarning }),
          ...options.warnings?.(),
        };
      },
    }),
    ...(options.routes ?? []),
  ];
  // No conversation store: nothing reads `context.conversation`, and Bolt's default one costs
  // every request a lookup and a write. `authorize` rather than `token`: Bolt would call
  // `auth.test` itself, once, and a wrong token would end in a rejection nobody handles.
  const appOptions = {
    authorize: botToken.authorize,
    logger: boltLog,
    clientOptions,
    convoStore: false,
  } as const;
  const botClient = new WebClient(transport.botToken, { ...clientOptions, logger: boltLog });
  const checkToken = () =>
    Promise.race([
      botToken.verify(),
      new Promise((resolve) => setTimeout(resolve, TOKEN_CHECK_AT_START_MS).unref()),
    ]);
  const modalClient = new WebClient(transport.botToken, {
    ...slackApiUrl,
    timeout: MODAL_REQUEST_TIMEOUT_MS,
    rejectRateLimitedCalls: true,
    retryConfig: { retries: 0 },
    logger: log.child('modals'),
  });

  if (transport.mode === 'socket') {
    const receiver = new SocketModeReceiver({
      appToken: transport.appToken,
      customRoutes,
      customPropertiesExtractor: stampArrival,
      // The client that calls `apps.connections.open` goes where the Web API does.
      installerOptions: { port: options.port, clientOptions: slackApiUrl },
      logger: boltLog,
    });
    const app = new App({ ...appOptions, receiver });
    correlatePerRequest(app);
    return {
      app,
      modalClient,
      apiClient,
      botClient,
      async start() {
        // Bolt's Socket Mode receiver listens for the probes without handling a taken port.
        await ensurePortFree(options.port);
        await Promise.all([app.start(), checkToken()]);
        return options.port;
      },
      stop: () => app.stop().then(() => undefined),
    };
  }

  const receiver = new HTTPReceiver({
    signingSecret: transport.signingSecret,
    endpoints: '/slack/events',
    customRoutes,
    customPropertiesExtractor: stampArrival,
    logger: boltLog,
  });
  rejectMalformedBodies(receiver, {
    endpoint: '/slack/events',
    signingSecret: transport.signingSecret,
    log: boltLog,
  });
  const app = new App({ ...appOptions, receiver });
  correlatePerRequest(app);
  return {
    app,
    modalClient,
    apiClient,
    botClient,
    async start() {
      const [server] = await Promise.all([
        receiver.start(options.port).catch((error: unknown) => {
          throw isAddressInUse(error)
            ? new PortInUseError('PORT', options.port, { cause: error })
            : error;
        }),
        checkToken(),
      ]);
      const address = server.address();
      return isAddressInfo(address) ? address.port : options.port;
    },
    stop: () => receiver.stop(),
  };
}

/** Each command, click or submission gets a correlation id, carried into everything it starts. */
function correlatePerRequest(app: App): void {
  app.use(({ next }) => withCorrelation(newCorrelationId(), next));
}

function healthRoutes(options: SlackAppOptions): CustomRoute[] {
  const timeoutMs = options.readinessTimeoutMs ?? 2_000;
  const { metrics } = options;
  const metricsRoute: CustomRoute[] =
    metrics === undefined
      ? []
      : [
          {
            path: '/metrics',
            method: ['GET'],
            handler: async (_req: IncomingMessage, res: ServerResponse) => {
              try {
                const { contentType, body } = await metrics();
                res.writeHead(200, { 'content-type': contentType });
                res.end(body);
              } catch (error) {
                options.log.error('collecting metrics failed', { error: errorMessage(error) });
                sendJson(res, 500, { error: 'collecting metrics failed' });
              }
            },
          },
        ];
  return [
    ...metricsRoute,
    {
      path: '/healthz',
      method: ['GET'],
      handler: (_req: IncomingMessage, res: ServerResponse) => {
        sendJson(res, 200, { status: 'ok' });
      },
    },
    {
      path: '/readyz',
      method: ['GET'],
      handler: async (_req: IncomingMessage, res: ServerResponse) => {
        const results = await Promise.all(
          Object.entries(options.readiness).map(async ([name, check]) => {
            try {
              await withTimeout(
                check(),
                timeoutMs,
                `${name} did not answer within ${timeoutMs} ms`,
              );
              return [name, 'ok'] as const;
            } catch (error) {
              return [name, errorMessage(error)] as const;
            }
          }),
        );
        const ready = results.every(([, outcome]) => outcome === 'ok');
        if (!ready) options.log.warn('not ready', Object.fromEntries(results));
        const warnings = options.warnings?.() ?? {};
        sendJson(res, ready ? 200 : 503, {
          status: ready ? 'ready' : 'not ready',
          checks: Object.fromEntries(results),
          ...(Object.keys(warnings).length === 0 ? {} : { warnings }),
        });
      },
    },
  ];
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

async function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Throws a `PortInUseError` naming PORT when another process listens on `port`. */
async function ensurePortFree(port: number): Promise<void> {
  if (port === 0) return;
  const probe = createServer();
  await new Promise<void>((resolve, reject) => {
    probe.once('error', (error) =>
      reject(isAddressInUse(error) ? new PortInUseError('PORT', port, { cause: error }) : error),
    );
    probe.listen(port, () => probe.close(() => resolve()));
  });
}

function isAddressInfo(address: string | AddressInfo | null): address is AddressInfo {
  return typeof address === 'object' && address !== null;
}
