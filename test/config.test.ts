import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, withEnvFile } from '../src/config.js';

function configError(env: Record<string, string>): string {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.message;
    throw error;
  }
  throw new Error('expected loadConfig to fail');
}

describe('loadConfig', () => {
  it('with nothing set runs the local sandbox with the documented defaults', () => {
    const config = loadConfig({});
    expect(config.slack).toEqual({ mode: 'sandbox' });
    expect(config.port).toBe(3000);
    expect(config.sandboxPort).toBe(3001);
    expect(config.redis).toBeUndefined();
    expect(config.adk).toEqual({
      baseUrl: undefined,
      defaultApp: undefined,
      token: undefined,
      resumable: 'auto',
      runTimeoutMs: 300_000,
    });
    expect(config.logLevel).toBe('info');
    expect(config.sweepIntervalMs).toBe(1_000);
  });

  it('treats an empty variable as unset', () => {
    expect(loadConfig({ SLACK_BOT_TOKEN: '', PORT: ' ' }).slack).toEqual({ mode: 'sandbox' });
  });

  it('uses HTTP mode with a bot token and signing secret, and normalises SLACK_API_URL', () => {
    const config = loadConfig({
      SLACK_BOT_TOKEN: 'xoxb-1',
      SLACK_SIGNING_SECRET: 'shh',
      SLACK_API_URL: 'http://127.0.0.1:9000/api',
    });
    expect(config.slack).toEqual({
      mode: 'http',
      botToken: 'xoxb-1',
      signingSecret: 'shh',
      apiUrl: 'http://127.0.0.1:9000/api/',
    });
  });

  it('uses Socket Mode when an app-level token is set', () => {
    const config = loadConfig({ SLACK_BOT_TOKEN: 'xoxb-1', SLACK_APP_TOKEN: 'xapp-1' });
    expect(config.slack).toMatchObject({ mode: 'socket', appToken: 'xapp-1' });
  });

  it('parses Redis, ADK and numeric settings', () => {
    const config = loadConfig({
      REDIS_URL: 'redis://127.0.0.1:6379/2',
      REDIS_KEY_PREFIX: 'x:',
      ADK_BASE_URL: 'http://127.0.0.1:8000/',
      ADK_APP: 'ops',
      ADK_RESUMABLE: 'true',
      PORT: '0',
      LOG_LEVEL: 'debug',
    });
    expect(config.redis).toEqual({
      kind: 'server',
      url: 'redis://127.0.0.1:6379/2',
      keyPrefix: 'x:',
    });
    expect(config.adk.baseUrl).toBe('http://127.0.0.1:8000');
    expect(config.adk.defaultApp).toBe('ops');
    expect(config.adk.resumable).toBe('true');
    expect(config.port).toBe(0);
    expect(config.logLevel).toBe('debug');
    expect(config.logFormat).toBe('text');
    expect(loadConfig({ LOG_FORMAT: 'json' }).logFormat).toBe('json');
  });

  it('selects a Redis Cluster by its seed nodes, with TLS and credentials from the URL form', () => {
    expect(loadConfig({ REDIS_CLUSTER_NODES: '10.0.0.1:7000, 10.0.0.2:7001' }).redis).toEqual({
      kind: 'cluster',
      cluster: {
        nodes: [
          { host: '10.0.0.1', port: 7000 },
          { host: '10.0.0.2', port: 7001 },
        ],
        tls: false,
        username: undefined,
        password: undefined,
      },
      keyPrefix: 'adk-approvals:',
    });
    const secure = loadConfig({
      REDIS_CLUSTER_NODES:
        'rediss://app:s%40cret@a.example:6380,rediss://app:s%40cret@b.example:6380',
    }).redis;
    expect(secure).toMatchObject({
      kind: 'cluster',
      cluster: { tls: true, username: 'app', password: 's@cret' },
    });
  });

  it('refuses cluster nodes it cannot read, mixed schemes, and a cluster beside REDIS_URL', () => {
    const garbled = configError({ REDIS_CLUSTER_NODES: 'a:1,redis://user:hunter2@b' });
    expect(garbled).toContain('REDIS_CLUSTER_NODES: expected host:port');
    expect(garbled).toContain('entry 2 is neither');
    expect(garbled).not.toContain('hunter2');
    expect(configError({ REDIS_CLUSTER_NODES: 'redis://a:1,rediss://b:2' })).toContain(
      'REDIS_CLUSTER_NODES: every node must use the same scheme',
    );
    expect(
      configError({ REDIS_URL: 'redis://127.0.0.1:6379', REDIS_CLUSTER_NODES: 'a:1' }),
    ).toContain('REDIS_CLUSTER_NODES: set either REDIS_URL');
  });

  it('names the variable and what it expected', () => {
    expect(configError({ PORT: 'eighty' })).toContain('PORT: expected a port number');
    expect(configError({ PORT: '70000' })).toContain('PORT: expected a port number of at most');
    expect(configError({ REDIS_URL: 'http://x' })).toContain('REDIS_URL: expected a redis://');
    expect(configError({ ADK_BASE_URL: 'ftp://x' })).toContain(
      'ADK_BASE_URL: expected an http(s) URL',
    );
    expect(configError({ LOG_LEVEL: 'loud' })).toContain('LOG_LEVEL: expected one of debug, info');
    expect(configError({ LOG_FORMAT: 'xml' })).toContain('LOG_FORMAT: expected one of text, json');
    expect(configError({ ADK_RESUMABLE: 'maybe' })).toContain(
      'ADK_RESUMABLE: expected auto, true or false',
    );
    expect(configError({ SLACK_BOT_TOKEN: 'xoxp-1' })).toContain(
      'SLACK_BOT_TOKEN: expected a token starting with "xoxb-"',
    );
  });

  it('requires a signing secret over HTTP and a bot token with Socket Mode', () => {
    expect(configError({ SLACK_BOT_TOKEN: 'xoxb-1' })).toContain('SLACK_SIGNING_SECRET: required');
    expect(configError({ SLACK_APP_TOKEN: 'xapp-1' })).toContain('SLACK_BOT_TOKEN: required');
  });

  it('reports every bad variable at once', () => {
    const message = configError({ PORT: 'x', LOG_LEVEL: 'y' });
    expect(message).toContain('PORT:');
    expect(message).toContain('LOG_LEVEL:');
  });
});

describe('a .env file', () => {
  function inDirectory(text: string | undefined, test: (path: string) => void): void {
    const directory = mkdtempSync(join(tmpdir(), 'env-file-'));
    try {
      const path = join(directory, '.env');
      if (text !== undefined) writeFileSync(path, text);
      test(path);
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  }

  it('configures the app: a bot token in .env means Slack, not the sandbox', () => {
    const file = [
      '# copied from .env.example',
      'SLACK_BOT_TOKEN=xoxb-from-the-file',
      'SLACK_SIGNING_SECRET="a secret with spaces"',
      'PORT=4010',
      'REDIS_URL=',
    ].join('\n');
    inDirectory(file, (path) => {
      const { env, file: read } = withEnvFile({}, path);
      expect(read).toBe(path);
      const config = loadConfig(env);
      expect(config.slack).toEqual({
        mode: 'http',
        botToken: 'xoxb-from-the-file',
        signingSecret: 'a secret with spaces',
        apiUrl: undefined,
      });
      expect(config.port).toBe(4010);
      expect(config.redis).toBeUndefined();
    });
  });

  it('loses to the real environment, value by value', () => {
    inDirectory('PORT=4010\nLOG_LEVEL=debug\n', (path) => {
      const config = loadConfig(withEnvFile({ PORT: '5020' }, path).env);
      expect(config.port).toBe(5020);
      expect(config.logLevel).toBe('debug');
    });
  });

  it('is optional: without one the environment is used as it is', () => {
    inDirectory(undefined, (path) => {
      const environment = { PORT: '5020' };
      expect(withEnvFile(environment, path)).toEqual({ env: environment, file: undefined });
    });
  });

  it('with a bad value stops the app naming the variable', () => {
    inDirectory('LOG_LEVEL=loud\n', (path) => {
      expect(() => loadConfig(withEnvFile({}, path).env)).toThrow(/LOG_LEVEL: expected one of/);
    });
  });
});

describe('tracing (the standard OTEL_* variables)', () => {
  it('is off by default, and with OTEL_SDK_DISABLED or OTEL_TRACES_EXPORTER=none', () => {
    expect(loadConfig({}).tracing).toBeUndefined();
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' };
    expect(loadConfig({ ...endpoint, OTEL_SDK_DISABLED: 'true' }).tracing).toBeUndefined();
    expect(loadConfig({ ...endpoint, OTEL_TRACES_EXPORTER: 'none' }).tracing).toBeUndefined();
  });

  it('is on by OTLP when an OTLP endpoint is set, or when OTEL_TRACES_EXPORTER names one', () => {
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' }).tracing).toEqual({
      exporter: 'otlp',
      serviceName: 'adk-slack-approvals',
      resourceAttributes: {},
    });
    expect(
      loadConfig({
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces',
        OTEL_SERVICE_NAME: 'approvals-eu',
        OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment=prod,team=platform%20ops',
      }).tracing,
    ).toEqual({
      exporter: 'otlp',
      serviceName: 'approvals-eu',
      resourceAttributes: { 'deployment.environment': 'prod', team: 'platform ops' },
    });
    expect(loadConfig({ OTEL_TRACES_EXPORTER: 'console' }).tracing?.exporter).toBe('console');
  });

  it('names a bad variable', () => {
    expect(configError({ OTEL_TRACES_EXPORTER: 'zipkin' })).toMatch(
      /OTEL_TRACES_EXPORTER: expected one of otlp, console, none/,
    );
    expect(configError({ OTEL_RESOURCE_ATTRIBUTES: 'no-equals-sign' })).toMatch(
      /OTEL_RESOURCE_ATTRIBUTES: expected key=value pairs/,
    );
    expect(configError({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' })).toMatch(
      /OTEL_EXPORTER_OTLP_ENDPOINT: expected an http\(s\) URL/,
    );
  });
});
