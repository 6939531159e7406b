import { readFileSync } from 'node:fs';
import * as util from 'node:util';
import { z } from 'zod';

/**
 * The environment, parsed once. This module is the only reader of `process.env`; everything
 * else receives a typed `Config`. A bad variable stops the app before anything starts, with a
 * message naming the variable and what it expected.
 */

const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
const LOG_FORMATS = ['text', 'json'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];
const TRACES_EXPORTERS = ['otlp', 'console', 'none'] as const;

/** An unset variable and an empty one mean the same: `FOO=` in a .env file is "not set". */
const optionalString = z
  .string()
  .optional()
  .transform((value) => (value === undefined || value.trim() === '' ? undefined : value.trim()));

const httpUrl = (what: string) =>
  optionalString.pipe(
    z
      .url({ protocol: /^https?$/, error: `expected an http(s) URL ${what}` })
      .optional()
      .transform((value) => value?.replace(/\/+$/, '')),
  );

const redisUrl = optionalString.pipe(
  z.url({ protocol: /^rediss?$/, error: 'expected a redis:// or rediss:// URL' }).optional(),
);

/**
 * `host:port,host:port` or `redis[s]://[user:password@]host:port,…`: the seed nodes of a Redis
 * Cluster. TLS (`rediss://`) and credentials come from the URL form and apply to every node (a
 * cluster has one password), so the nodes must agree on them.
 */
const clusterNodes = optionalString.transform(
  (value, ctx): RedisClusterConfig['cluster'] | undefined => {
    if (value === undefined) return undefined;
    const entries = value
      .split(',')
      .map((entry) => entry.trim())
      .filter((entry) => entry !== '');
    const parsed = entries.map((entry) => parseClusterNode(entry));
    const bad = parsed.indexOf(undefined);
    if (bad !== -1 || parsed.length === 0) {
      // The entry is named by position, not quoted: it may hold a password.
      const which = parsed.length === 0 ? 'no node given' : `entry ${bad + 1} is neither`;
      ctx.addIssue({
        code: 'custom',
        message: `expected host:port or redis[s]://[user:password@]host:port, comma-separated; ${which}`,
      });
      return z.NEVER;
    }
    const nodes = parsed.filter((node) => node !== undefined);
    const first = nodes[0];
    if (first === undefined) return z.NEVER;
    const disagree = nodes.some(
      (node) =>
        node.tls !== first.tls ||
        node.username !== first.username ||
        node.password !== first.password,
    );
    if (disagree) {
      ctx.addIssue({
        code: 'custom',
        message: 'every node must use the same scheme (redis:// or rediss://) and credentials',
      });
      return z.NEVER;
    }
    return {
      nodes: nodes.map(({ host, port }) => ({ host, port })),
      tls: first.tls,
      username: first.username,
      password: first.password,
    };
  },
);

interface ParsedClusterNode {
  host: string;
  port: number;
  tls: boolean;
  username: string | undefined;
  password: string | undefined;
}

function parseClusterNode(entry: string): ParsedClusterNode | undefined {
  const bare = /^([^:/@\s]+|\[[0-9a-fA-F:]+\]):(\d{1,5})$/.exec(entry);
  if (bare?.[1] && bare[2]) {
    return {
      host: bare[1].replace(/^\[|\]$/g, ''),
      port: Number(bare[2]),
      tls: false,
      username: undefined,
      password: undefined,
    };
  }
  if (!/^rediss?:\/\//.test(entry)) return undefined;
  let url: URL;
  try {
    url = new URL(entry);
  } catch {
    return undefined;
  }
  if (url.hostname === '' || url.port === '') return undefined;
  return {
    host: url.hostname.replace(/^\[|\]$/g, ''),
    port: Number(url.port),
    tls: url.protocol === 'rediss:',
    username: url.username === '' ? undefined : decodeURIComponent(url.username),
    password: url.password === '' ? undefined : decodeURIComponent(url.password),
  };
}

const wholeNumber = (what: string, fallback: number, range: { min: number; max: number }) =>
  optionalString.pipe(
    z
      .string()
      .regex(/^\d+$/, `expected ${what}`)
      .transform(Number)
      .pipe(
        z
          .number()
          .min(range.min, `expected ${what} of at least ${range.min}`)
          .max(range.max, `expected ${what} of at most ${range.max}`),
      )
      .optional()
      .transform((value) => value ?? fallback),
  );

const slackToken = (prefix: string) =>
  optionalString.pipe(
    z.string().startsWith(prefix, `expected a token starting with "${prefix}"`).optional(),
  );

/** `ADK_TARGETS=ops=https://ops-adk.internal:8000,py=http://10.0.0.5:8000`: name=URL pairs. */
const adkTargets = z.string().transform((text, ctx) => {
  const targets: Record<string, string> = {};
  for (const entry of text.split(',')) {
    const at = entry.indexOf('=');
    const name = entry.slice(0, at).trim();
    const url = entry.slice(at + 1).trim();
    if (at < 1 || !/^[A-Za-z0-9_-]{1,64}$/.test(name) || name === 'default') {
      ctx.addIssue({
        code: 'custom',
        message:
          'expected name=URL pairs separated by commas; names are letters, digits, _ or - (not "default", which is ADK_BASE_URL)',
      });
      return z.NEVER;
    }
    const parsed = z.url({ protocol: /^https?$/ }).safeParse(url);
    if (!parsed.success) {
      ctx.addIssue({ code: 'custom', message: `target ${name}: expected an http(s) URL` });
      return z.NEVER;
    }
    targets[name] = parsed.data.replace(/\/+$/, '');
  }
  return targets;
});

const environmentSchema = z
  .object({
    SLACK_BOT_TOKEN: slackToken('xoxb-'),
    SLACK_SIGNING_SECRET: optionalString,
    SLACK_APP_TOKEN: slackToken('xapp-'),
    SLACK_API_URL: httpUrl('ending in /api/'),
    PORT: wholeNumber('a port number', 3000, { min: 0, max: 65535 }),
    SANDBOX_PORT: wholeNumber('a port number', 3001, { min: 0, max: 65535 }),
    DEMO_ADK_PORT: wholeNumber('a port number', 0, { min: 0, max: 65535 }),
    REDIS_URL: redisUrl,
    REDIS_CLUSTER_NODES: clusterNodes,
    REDIS_KEY_PREFIX: optionalString.pipe(z.string().default('adk-approvals:')),
    ADK_BASE_URL: httpUrl('such as http://127.0.0.1:8000'),
    ADK_APP: optionalString,
    ADK_TOKEN: optionalString,
    ADK_RESUMABLE: optionalString.pipe(
      z.enum(['auto', 'true', 'false'], { error: 'expected auto, true or false' }).default('auto'),
    ),
    ADK_TIMEOUT_MS: wholeNumber('milliseconds', 300_000, { min: 1, max: 86_400_000 }),
    POLICY_FILE: optionalString,
    API_KEYS_FILE: optionalString,
    RUNBOOKS_FILE: optionalString,
    ADK_TARGETS: optionalString.pipe(adkTargets.optional()),
    SWEEP_INTERVAL_MS: wholeNumber('milliseconds', 1_000, { min: 50, max: 3_600_000 }),
    RUN_LEASE_MS: wholeNumber('milliseconds', 10_000, { min: 300, max: 600_000 }),
    DELEGATION_MAX_HOPS: wholeNumber('a number of hops', 1, { min: 1, max: 5 }),
    AUDIT_RETENTION: optionalString.pipe(
      z
        .string()
        .regex(/^\d+d$/, 'expected a number of days such as 400d')
        .transform((text) => Number(text.slice(0, -1)))
        .pipe(
          z
            .number()
            .min(1, 'expected at least 1d')
            .max(3_650, 'expected at most 3650d (ten years)'),
        )
        .default(400),
    ),
    OTEL_SDK_DISABLED: optionalString.pipe(
      z.enum(['true', 'false'], { error: 'expected true or false' }).optional(),
    ),
    OTEL_TRACES_EXPORTER: optionalString.pipe(
      z
        .enum(TRACES_EXPORTERS, {
          error: `expected one of ${TRACES_EXPORTERS.join(', ')} (the app exports its spans by OTLP or to the console)`,
        })
        .optional(),
    ),
    OTEL_EXPORTER_OTLP_ENDPOINT: httpUrl('such as http://127.0.0.1:4318'),
    OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: httpUrl('such as http://127.0.0.1:4318/v1/traces'),
    OTEL_SERVICE_NAME: optionalString.pipe(z.string().default('adk-slack-approvals')),
    OTEL_RESOURCE_ATTRIBUTES: optionalString.transform((text, ctx) => {
      if (text === undefined) return {};
      const attributes = resourceAttributes(text);
      if (attributes === undefined) {
        ctx.addIssue({ code: 'custom', message: 'expected key=value pairs, comma-separated' });
        return z.NEVER;
      }
      return attributes;
    }),
    LOG_LEVEL: optionalString.pipe(
      z.enum(LOG_LEVELS, { error: `expected one of ${LOG_LEVELS.join(', ')}` }).default('info'),
    ),
    LOG_FORMAT: optionalString.pipe(
      z.enum(LOG_FORMATS, { error: `expected one of ${LOG_FORMATS.join(', ')}` }).default('text'),
    ),
  })
  .superRefine((env, ctx) => {
    if (env.REDIS_URL !== undefined && env.REDIS_CLUSTER_NODES !== undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['REDIS_CLUSTER_NODES'],
        message: 'set either REDIS_URL (one server) or REDIS_CLUSTER_NODES (a cluster), not both',
      });
    }
  })
  .transform((env, ctx) => ({ ...env, slack: slackConfig(env, ctx) }));

export type SlackConfig =
  /** A real workspace (or whatever SLACK_API_URL names), events over HTTP. */
  | { mode: 'http'; botToken: string; signingSecret: string; apiUrl: string | undefined }
  /** A real workspace, events over a WebSocket opened with the app-level token. */
  | {
      mode: 'socket';
      botToken: string;
      appToken: string;
      signingSecret: string | undefined;
      apiUrl: string | undefined;
    }
  /** No workspace: the local Slack sandbox stands in for Slack. */
  | { mode: 'sandbox' };

/** One Redis server (`REDIS_URL`). */
export interface RedisServerConfig {
  kind: 'server';
  url: string;
  keyPrefix: string;
}

/** A Redis Cluster reached through its seed nodes (`REDIS_CLUSTER_NODES`). */
export interface RedisClusterConfig {
  kind: 'cluster';
  cluster: {
    nodes: Array<{ host: string; port: number }>;
    tls: boolean;
    username: string | undefined;
    password: string | undefined;
  };
  keyPrefix: string;
}

export type RedisConfig = RedisServerConfig | RedisClusterConfig;

export interface Config {
  slack: SlackConfig;
  port: number;
  /** Where the local Slack sandbox listens, when it runs (no SLACK_BOT_TOKEN). */
  sandboxPort: number;
  /** Where the demo agents' local adk api_server listens, when it runs (no ADK_BASE_URL); 0: a free port. */
  demoAdkPort: number;
  /** Absent: the in-process store (single instance, lost on restart). */
  redis: RedisConfig | undefined;
  /** Absent base URL: the demo ADK server is started on loopback. */
  adk: {
    baseUrl: string | undefined;
    defaultApp: string | undefined;
    token: string | undefined;
    /**
     * Whether a resume sends the paused `invocationId`: `auto` sends it and, when an app refuses it
     * (Python non-resumable apps, Go's unknown field), resends without it and remembers; `true`
     * does the same but warns, since the setting is wrong; `false` never sends it.
     */
    resumable: ResumableSetting;
    runTimeoutMs: number;
  };
  policyFile: string | undefined;
  /** Absent: the approvals API is off (its paths answer 404). */
  apiKeysFile: string | undefined;
  /** Which alerts start which runs (docs/runbooks.md); absent: alerts match nothing. */
  runbooksFile: string | undefined;
  /** ADK servers API pauses may resume on, by name, beside `default` (ADK_BASE_URL). */
  adkTargets: Record<string, string>;
  sweepIntervalMs: number;
  /** The lease of an `/agent` run's intent: a run whose replica died is told after it lapses. */
  runLeaseMs: number;
  /** How far a hand-over reaches: 1 (the default) is one hop, Bob's approvals to Carol. */
  delegationMaxHops: number;
  /** How long the store-wide audit keeps an entry (AUDIT_RETENTION, default 400 days). */
  auditRetentionMs: number;
  logLevel: LogLevel;
  /** `text` lines for people, or `json` lines for a log collector. */
  logFormat: LogFormat;
  /** Absent: no spans (the default). */
  tracing: TracingConfig | undefined;
}

/**
 * OpenTelemetry spans of approvals, from the standard `OTEL_*` variables: on when
 * `OTEL_TRACES_EXPORTER` is `otlp` or `console`, or when it is unset and an OTLP endpoint is;
 * `OTEL_SDK_DISABLED=true` turns them off. The OTLP exporter reads its own
 * `OTEL_EXPORTER_OTLP_*` variables (endpoint, headers, timeout).
 */
export interface TracingConfig {
  exporter: 'otlp' | 'console';
  serviceName: string;
  resourceAttributes: Record<string, string>;
}

export type ResumableSetting = 'auto' | 'true' | 'false';

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

export interface EnvironmentWithFile {
  env: Record<string, string | undefined>;
  /** The file that was read; absent when there is none. */
  file: string | undefined;
}

/**
 * The environment with a `.env` file under it: values from the file fill in what the real
 * environment leaves unset (the real environment wins, as with `node --env-file`). No file is
 * fine; a file that cannot be read is an error, not a silent fall back to the sandbox.
 */
export function withEnvFile(
  env: Record<string, string | undefined>,
  path: string,
): EnvironmentWithFile {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = z.object({ code: z.string() }).safeParse(error);
    if (code.success && code.data.code === 'ENOENT') return { env, file: undefined };
    throw new ConfigError(`Cannot read ${path} (${code.success ? code.data.code : 'unreadable'})`);
  }
  // `util.parseEnv` is Node's own .env parser (Node ≥ 20.12); `engines` allows older 20s.
  const parseEnv: unknown = Reflect.get(util, 'parseEnv');
  if (typeof parseEnv !== 'function') {
    throw new ConfigError(`${path} exists, but reading it needs Node 20.12 or newer`);
  }
  const parsed = z.record(z.string(), z.string()).safeParse(parseEnv(text));
  if (!parsed.success) throw new ConfigError(`Cannot parse ${path}`);
  const merged: Record<string, string | undefined> = { ...parsed.data };
  for (const [name, value] of Object.entries(env)) if (value !== undefined) merged[name] = value;
  return { env: merged, file: path };
}

export function loadConfig(env: Record<string, string | undefined>): Config {
  const parsed = environmentSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => {
      const variable = issue.path.join('.') || 'environment';
      return `  ${variable}: ${issue.message}`;
    });
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  return {
    slack: e.slack,
    port: e.PORT,
    sandboxPort: e.SANDBOX_PORT,
    demoAdkPort: e.DEMO_ADK_PORT,
    redis: redisConfig(e.REDIS_URL, e.REDIS_CLUSTER_NODES, e.REDIS_KEY_PREFIX),
    adk: {
      baseUrl: e.ADK_BASE_URL,
      defaultApp: e.ADK_APP,
      token: e.ADK_TOKEN,
      resumable: e.ADK_RESUMABLE,
      runTimeoutMs: e.ADK_TIMEOUT_MS,
    },
    policyFile: e.POLICY_FILE,
    apiKeysFile: e.API_KEYS_FILE,
    runbooksFile: e.RUNBOOKS_FILE,
    adkTargets: e.ADK_TARGETS ?? {},
    sweepIntervalMs: e.SWEEP_INTERVAL_MS,
    runLeaseMs: e.RUN_LEASE_MS,
    delegationMaxHops: e.DELEGATION_MAX_HOPS,
    auditRetentionMs: e.AUDIT_RETENTION * 86_400_000,
    logLevel: e.LOG_LEVEL,
    logFormat: e.LOG_FORMAT,
    tracing: tracingConfig(e),
  };
}

function tracingConfig(e: z.infer<typeof environmentSchema>): TracingConfig | undefined {
  if (e.OTEL_SDK_DISABLED === 'true' || e.OTEL_TRACES_EXPORTER === 'none') return undefined;
  const endpoint = e.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? e.OTEL_EXPORTER_OTLP_ENDPOINT;
  const exporter = e.OTEL_TRACES_EXPORTER ?? (endpoint === undefined ? undefined : 'otlp');
  if (exporter === undefined) return undefined;
  return {
    exporter,
    serviceName: e.OTEL_SERVICE_NAME,
    resourceAttributes: e.OTEL_RESOURCE_ATTRIBUTES,
  };
}

/** `OTEL_RESOURCE_ATTRIBUTES`: `key=value,…`, values percent-encoded; undefined when malformed. */
function resourceAttributes(text: string): Record<string, string> | undefined {
  const attributes: Record<string, string> = {};
  for (const pair of text.split(',')) {
    const at = pair.indexOf('=');
    const key = pair.slice(0, at).trim();
    if (at < 1 || key === '') return undefined;
    try {
      attributes[key] = decodeURIComponent(pair.slice(at + 1).trim());
    } catch {
      return undefined;
    }
  }
  return attributes;
}

function redisConfig(
  url: string | undefined,
  cluster: RedisClusterConfig['cluster'] | undefined,
  keyPrefix: string,
): RedisConfig | undefined {
  if (cluster !== undefined) return { kind: 'cluster', cluster, keyPrefix };
  if (url !== undefined) return { kind: 'server', url, keyPrefix };
  return undefined;
}

type SlackVariables = Partial<
  Record<
    'SLACK_BOT_TOKEN' | 'SLACK_SIGNING_SECRET' | 'SLACK_APP_TOKEN' | 'SLACK_API_URL',
    string | undefined
  >
>;

function slackConfig(e: SlackVariables, ctx: z.RefinementCtx): SlackConfig {
  const apiUrl = e.SLACK_API_URL === undefined ? undefined : `${e.SLACK_API_URL}/`;
  const botToken = e.SLACK_BOT_TOKEN;
  if (e.SLACK_APP_TOKEN) {
    if (botToken) {
      return {
        mode: 'socket',
        botToken,
        appToken: e.SLACK_APP_TOKEN,
        signingSecret: e.SLACK_SIGNING_SECRET,
        apiUrl,
      };
    }
    ctx.addIssue({
      code: 'custom',
      path: ['SLACK_BOT_TOKEN'],
      message: 'required with SLACK_APP_TOKEN: Socket Mode still posts with the bot token',
    });
    return { mode: 'sandbox' };
  }
  if (!botToken) return { mode: 'sandbox' };
  if (e.SLACK_SIGNING_SECRET) {
    return { mode: 'http', botToken, signingSecret: e.SLACK_SIGNING_SECRET, apiUrl };
  }
  ctx.addIssue({
    code: 'custom',
    path: ['SLACK_SIGNING_SECRET'],
    message:
      'required with SLACK_BOT_TOKEN over HTTP, to verify that requests come from Slack (or set SLACK_APP_TOKEN for Socket Mode)',
  });
  return { mode: 'sandbox' };
}
