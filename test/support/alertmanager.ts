import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, startServerProcess } from './server-process.js';

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
  const server = await startServerProcess({
    label: 'Alertmanager',
    command: ALERTMANAGER_BIN,
    args: [
      `--config.file=${config}`,
      `--storage.path=${join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--cluster.listen-address=',
      '--log.level=warn',
    ],
    readyUrl: `${url}/-/ready`,
    timeoutMs: 20_000,
    pollMs: 100,
  });
  return {
    url,
    output: server.output,
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
      await server.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
