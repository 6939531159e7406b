import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './python-adk.js';

/** Debian's `prometheus-alertmanager` (`.ci/run` installs it). */
export const ALERTMANAGER_BIN = process.env.ALERTMANAGER_BIN ?? '/usr/bin/prometheus-alertmanager';

export interface Alertmanager {
  url: string;
  /** Posts alerts to Alertmanager's own API (`POST /api/v2/alerts`). */
  post(alerts: readonly PostableAlert[]): Promise<void>;
  output: string[];
  stop(): Promise<void>;
}

export interface PostableAlert {
  labels: Record<string, string>;
  annotations?: Record<string, string>;
  startsAt?: string;
  /** In the past: the alert is resolved. */
  endsAt?: string;
}

/**
 * A real Alertmanager, on a free port, with one webhook receiver that sends every group (firing
 * and resolved) to `webhookUrl` with `Authorization: Bearer <bearer>`. Its timers are as short as
 * it allows, so that a test sees a repeat and a resolve within seconds; clustering is off.
 */
export async function startAlertmanager(options: {
  webhookUrl: string;
  bearer: string;
  groupBy: readonly string[];
  repeatInterval: string;
}): Promise<Alertmanager> {
  const dir = await mkdtemp(join(tmpdir(), 'alertmanager-'));
  const config = join(dir, 'alertmanager.yml');
  await writeFile(
    config,
    JSON.stringify({
      route: {
        receiver: 'slack-runbooks',
        group_by: options.groupBy,
        group_wait: '200ms',
        group_interval: '500ms',
        repeat_interval: options.repeatInterval,
      },
      receivers: [
        {
          name: 'slack-runbooks',
          webhook_configs: [
            {
              url: options.webhookUrl,
              send_resolved: true,
              http_config: { authorization: { type: 'Bearer', credentials: options.bearer } },
            },
          ],
        },
      ],
    }),
  );
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(
    ALERTMANAGER_BIN,
    [
      `--config.file=${config}`,
      `--storage.path=${join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--cluster.listen-address=',
      '--log.level=warn',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const output: string[] = [];
  const keep = (chunk: Buffer) => {
    output.push(chunk.toString('utf8'));
    if (output.length > 200) output.shift();
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  const deadline = Date.now() + 20_000;
  for (;;) {
    if (child.exitCode !== null) {
      throw new Error(`Alertmanager exited (${child.exitCode}): ${output.join('')}`);
    }
    const ready = await fetch(`${url}/-/ready`).then(
      (response) => response.ok,
      () => false,
    );
    if (ready) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`Alertmanager did not start in 20 s: ${output.join('')}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    url,
    output,
    async post(alerts) {
      const response = await fetch(`${url}/api/v2/alerts`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(alerts),
      });
      if (!response.ok) {
        throw new Error(
          `Alertmanager refused the alerts: ${response.status} ${await response.text()}`,
        );
      }
    },
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
      await rm(dir, { recursive: true, force: true });
    },
  };
}
