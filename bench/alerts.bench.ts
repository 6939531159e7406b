import { performance } from 'node:perf_hooks';
import { CHANNELS, PEOPLE, type SandboxMessage } from '@adk-slack-approvals/slack-sandbox';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { ACTION_IDS } from '../src/slack/codecs/action-ids.js';
import { type ApiApp, startApiApp } from './support/api-app.js';
import { FAKE_APP } from './support/fake-adk.js';
import { ms, type Spread, spread, table } from './support/figures.js';

/**
 * Alert received → first card posted: an Alertmanager notification (payload version 4, as it
 * sends one) POSTed to `/v1/alerts/alertmanager` until the run's card is in its thread, next to
 * the bare `/agent` start (the slash command until its card). The app runs in a child process as
 * a replica does, on real Redis and the Slack sandbox; the fake ADK server pauses at once, so
 * the agent's own time is left out. One at a time (the latency of one incident, not a storm).
 * Prints figures; asserts nothing. Goal: p95 ≤ 2 s.
 */

const WARM_UP = 5;
const SAMPLES = 60;
const WAIT_MS = 30_000;
const CHANNEL = CHANNELS.ops.id;

const RUNBOOKS = `runbooks:
  - name: bench
    match: { alertname: BenchStuck }
    app: ${FAKE_APP}
    channel: ${CHANNEL}
    prompt: "transfer {{labels.service}}: {{annotations.summary}}"
`;

let stack: ApiApp;

function print(line: string): void {
  process.stdout.write(`[bench alerts] ${line}\n`);
}

beforeAll(async () => {
  stack = await startApiApp({ runbooks: RUNBOOKS });
});

afterAll(async () => {
  await stack?.stop();
});

/** The first card in the thread of the top-level message that reads `marker`. */
function cardFor(marker: string): SandboxMessage | undefined {
  const { sandbox } = stack;
  const root = sandbox
    .messages(CHANNEL)
    .find((message) => JSON.stringify(message.blocks).includes(marker));
  if (root === undefined) return undefined;
  return sandbox
    .replies(CHANNEL, root.ts)
    .find((message) => JSON.stringify(message.blocks).includes(ACTION_IDS.approve));
}

async function timed(marker: string, start: () => Promise<unknown>): Promise<number> {
  const began = performance.now();
  await start();
  await stack.sandbox.waitFor(() => cardFor(marker), { timeoutMs: WAIT_MS });
  return performance.now() - began;
}

function notification(service: string): object {
  const labels = { alertname: 'BenchStuck', service };
  return {
    version: '4',
    groupKey: `{}:{alertname="BenchStuck", service="${service}"}`,
    truncatedAlerts: 0,
    status: 'firing',
    receiver: 'slack-runbooks',
    groupLabels: labels,
    commonLabels: labels,
    commonAnnotations: { summary: 'consumer lag rising' },
    externalURL: 'http://alertmanager:9093',
    alerts: [
      {
        status: 'firing',
        labels,
        annotations: { summary: 'consumer lag rising' },
        startsAt: new Date().toISOString(),
        endsAt: '0001-01-01T00:00:00Z',
        generatorURL: '',
        fingerprint: `f-${service}`,
      },
    ],
  };
}

async function alertToCard(n: number): Promise<number> {
  const service = `alert-svc-${n}`;
  return timed(`transfer ${service}`, async () => {
    const response = await fetch(`${stack.base}/v1/alerts/alertmanager`, {
      method: 'POST',
      headers: { authorization: `Bearer ${stack.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(notification(service)),
    });
    if (response.status !== 200) throw new Error(`the alert was answered ${response.status}`);
  });
}

async function agentToCard(n: number): Promise<number> {
  const text = `${FAKE_APP} transfer agent-svc-${n}`;
  return timed(`transfer agent-svc-${n}`, async () => {
    const result = await stack.sandbox.slashCommand({
      user: PEOPLE.alice.id,
      channel: CHANNEL,
      command: '/agent',
      text,
    });
    if (!result.answered || result.status !== 200) throw new Error('/agent was not acknowledged');
  });
}

describe('alerts', () => {
  it('alert received → first card posted, next to the bare /agent start', async () => {
    const alerts: number[] = [];
    const agents: number[] = [];
    for (let n = 0; n < WARM_UP + SAMPLES; n++) {
      // Interleaved, so that both see the same machine (and the same Redis size).
      const alert = await alertToCard(n);
      const agent = await agentToCard(n);
      if (n >= WARM_UP) {
        alerts.push(alert);
        agents.push(agent);
      }
    }
    const row = (what: string, s: Spread) => [
      what,
      String(s.count),
      ms(s.p50),
      ms(s.p95),
      ms(s.p99),
      ms(s.max),
    ];
    for (const line of table(
      ['start → first card posted (ms)', 'n', 'p50', 'p95', 'p99', 'max'],
      [
        row('alert (POST /v1/alerts/alertmanager)', spread(alerts)),
        row('/agent (slash command)', spread(agents)),
      ],
    )) {
      print(line);
    }
  });
});
