import { createHash, randomBytes } from 'node:crypto';
import { rename, writeFile } from 'node:fs/promises';
import type { SandboxMessage } from '@adk-slack-approvals/slack-sandbox';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { webhookSignature } from '../../src/workflow/webhook-deliveries.js';
import { type Alertmanager, startAlertmanager } from '../support/alertmanager.js';
import { CHANNELS, cardText, type Harness, PEOPLE, startHarness } from '../support/app-harness.js';
import { keysWithPrefix } from '../support/redis.js';

/**
 * Runbooks started by alerts, against a real Alertmanager (Debian's `prometheus-alertmanager`)
 * whose webhook receiver points at the whole app (real Redis, the real adk api_server with the
 * `ops_runbook` test agent, the Slack sandbox). Alerts are posted to Alertmanager's own API; each
 * test uses its own `service`, so its own group and run.
 */
const OPS = CHANNELS.ops.id;
const KEY = `key-${randomBytes(12).toString('hex')}`;
const PAGER_SECRET = randomBytes(24).toString('hex');
/** The runbook's grace: long enough for Alertmanager to carry a flap's re-fire within it. */
const GRACE_MS = 3_000;
const RUNBOOKS = `
runbooks:
  - name: restart-stuck-consumer
    match: { alertname: "Consumer*" }
    app: ops_runbook
    channel: ${OPS}
    prompt: "restart {{labels.service}}: {{annotations.summary}}"
    standDownAfter: ${GRACE_MS / 1000}s
`;
const sha = (text: string) => createHash('sha256').update(text).digest('hex');

let harness: Harness;
let alertmanager: Alertmanager;
let base: string;

beforeAll(async () => {
  harness = await startHarness({
    policy: `
rules:
  - match: { app: ops_runbook }
    channel: ${OPS}
    approvers: [${PEOPLE.bob.id}]
`,
    apiKeys: `
keys:
  - name: alertmanager
    sha256: ${sha(KEY)}
    apps: [ops_runbook]
    signingSecret: ${randomBytes(24).toString('hex')}
    runs: true
  - name: pager
    sha256: ${sha(`other-${KEY}`)}
    apps: [ops_runbook]
    signingSecret: ${PAGER_SECRET}
    runs: true
`,
    runbooks: RUNBOOKS,
  });
  base = `http://127.0.0.1:${harness.app.port}`;
  alertmanager = await startAlertmanager({
    webhookUrl: `${base}/v1/alerts/alertmanager`,
    bearer: KEY,
    groupBy: ['alertname', 'service'],
    repeatInterval: '1s',
  });
}, 60_000);

afterAll(async () => {
  await alertmanager?.stop();
  await harness?.stop();
});

const iso = (ms: number) => new Date(ms).toISOString();

function alert(service: string, instance: string, ended = false) {
  return {
    labels: { alertname: 'ConsumerStuck', service, instance },
    annotations: { summary: `lag <rising> on ${instance}` },
    startsAt: iso(Date.now() - 60_000),
    ...(ended ? { endsAt: iso(Date.now() - 1_000) } : {}),
  };
}

function roots(service: string): SandboxMessage[] {
  return harness.sandbox
    .messages(OPS)
    .filter(
      (m) =>
        (m.threadTs === undefined || m.threadTs === m.ts) &&
        cardText(m).includes(`restart ${service}:`),
    );
}

/** The run's thread root and its card, once the alert started it. */
async function startedRun(service: string) {
  const root = await harness.sandbox.waitFor(() => roots(service)[0], { timeoutMs: 15_000 });
  const card = await harness.card(OPS, root.ts);
  return { root, card };
}

function threadLines(root: SandboxMessage, needle: string): SandboxMessage[] {
  return harness.thread(OPS, root).filter((m) => cardText(m).includes(needle));
}

function waitForLines(root: SandboxMessage, needle: string, count: number) {
  return harness.sandbox.waitFor(() => threadLines(root, needle).length >= count, {
    timeoutMs: 15_000,
  });
}

const RESOLVED_NOTE = 'Every alert of this run has resolved';

/** Replaces the runbooks file as a config map does, and waits for the app's log line about it. */
async function replaceRunbooks(text: string, logged: string): Promise<void> {
  const mark = harness.logs.length;
  await writeFile(`${harness.runbooksFile}.next`, text);
  await rename(`${harness.runbooksFile}.next`, harness.runbooksFile);
  await vi.waitFor(
    () => {
      if (!harness.logs.slice(mark).some((line) => line.includes(logged))) {
        throw new Error(`the app has not logged "${logged}" yet`);
      }
    },
    { timeout: 10_000, interval: 50 },
  );
}

/** Waits until a grace that began before `since` (ms) has passed, and a few sweeps more. */
async function pastGrace(since: number): Promise<void> {
  const wait = since + GRACE_MS + 1_000 - Date.now();
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
}

/** Waits until the app tracks, for some run, one alert resolved and another still firing. */
async function trackedMixed(): Promise<void> {
  await vi.waitFor(
    async () => {
      for (const key of await keysWithPrefix(harness.redis, `${harness.keyPrefix}{alerts}:run:`)) {
        const fields = await harness.redis.hgetall(key);
        const alerts = Object.entries(fields).filter(([name]) => name.startsWith('f:'));
        const resolved = alerts.some(([, value]) => /^\d+$/.test(value));
        if (resolved && alerts.some(([, value]) => value === 'firing')) return;
      }
      throw new Error('no run tracks a resolved and a firing alert yet');
    },
    { timeout: 15_000, interval: 100 },
  );
}

describe('runbooks started by Alertmanager', () => {
  it('an alert starts one run in the mapped channel, its gated tool gets a card there, and its repeats join that run', async () => {
    await alertmanager.post([alert('orders-consumer', 'a')]);
    const { root, card } = await startedRun('orders-consumer');
    expect(cardText(root)).toContain('Started by alert *ConsumerStuck*');
    // The alert's text reaches Slack escaped, and the agent as written (its tool's argument).
    expect(cardText(root)).toContain('lag &lt;rising&gt; on a');
    expect(cardText(card)).toContain('restart_service');
    // Alertmanager repeats the firing group (repeat_interval): the run is joined, twice.
    await waitForLines(root, 'Joined: alert', 2);
    expect(roots('orders-consumer')).toHaveLength(1);
  });

  it('resolving the alert stands the pending card down after the grace, with that reason, and the tool never runs', async () => {
    await alertmanager.post([alert('billing-consumer', 'a')]);
    const { root, card } = await startedRun('billing-consumer');
    await alertmanager.post([alert('billing-consumer', 'a', true)]);
    await waitForLines(root, RESOLVED_NOTE, 1);
    const stoodDown = await harness.messageReading(OPS, card.ts, /stood down/i);
    expect(cardText(stoodDown)).toMatch(/alert resolved at/);
    expect(cardText(stoodDown)).not.toMatch(/rejected/i);
    await waitForLines(root, 'Stood down', 1);
    expect(await harness.toolRuns(card, 'restart_service', 'billing-consumer')).toBe(0);
  });

  it('a group with one alert resolved and one still firing keeps its run', async () => {
    await alertmanager.post([alert('search-consumer', 'a'), alert('search-consumer', 'b')]);
    const { root, card } = await startedRun('search-consumer');
    await alertmanager.post([alert('search-consumer', 'a', true)]);
    // Alertmanager's group says `firing` at its root: the resolved alert is seen by its own status.
    await trackedMixed();
    await pastGrace(Date.now());
    expect(cardText(harness.sandbox.message(OPS, card.ts) ?? card)).not.toMatch(/stood down/i);
    expect(threadLines(root, 'Stood down')).toHaveLength(0);
  });

  it('an alert that fires again inside the grace keeps its run', async () => {
    await alertmanager.post([alert('mail-consumer', 'a')]);
    const { root, card } = await startedRun('mail-consumer');
    await alertmanager.post([alert('mail-consumer', 'a', true)]);
    await waitForLines(root, RESOLVED_NOTE, 1);
    const resolvedSeen = Date.now();
    const joins = threadLines(root, 'Joined: alert').length;
    await alertmanager.post([{ ...alert('mail-consumer', 'a'), startsAt: iso(Date.now()) }]);
    await waitForLines(root, 'Joined: alert', joins + 1);
    await pastGrace(resolvedSeen);
    expect(cardText(harness.sandbox.message(OPS, card.ts) ?? card)).not.toMatch(/stood down/i);
    expect(threadLines(root, 'Stood down')).toHaveLength(0);
  });
});

describe('the signed generic webhook', () => {
  const body = JSON.stringify({
    fingerprint: 'pager-incident-42',
    status: 'firing',
    labels: { alertname: 'ConsumerLag', service: 'pager-consumer' },
    annotations: { summary: 'paged' },
  });
  const post = (signature: string, payload = body) =>
    fetch(`${base}/v1/alerts/webhook/pager`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-approvals-signature': signature },
      body: payload,
    });
  const now = () => Math.floor(Date.now() / 1000);

  it('a bad signature or a stale timestamp is refused, saying which', async () => {
    const forged = await post(webhookSignature('not-the-secret', now(), body));
    expect(forged.status).toBe(401);
    expect(JSON.stringify(await forged.json())).toContain('does not match');
    const stale = await post(webhookSignature(PAGER_SECRET, now() - 600, body));
    expect(stale.status).toBe(401);
    expect(JSON.stringify(await stale.json())).toContain('stale');
    expect(roots('pager-consumer')).toHaveLength(0);
  });

  it('a signed alert starts a run with a card in the mapped channel', async () => {
    const response = await post(webhookSignature(PAGER_SECRET, now(), body));
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      status: 'received',
      runbooks: [{ runbook: 'restart-stuck-consumer', run: 'started' }],
    });
    const { root, card } = await startedRun('pager-consumer');
    expect(cardText(root)).toContain('Started by webhook *ConsumerLag*');
    expect(cardText(card)).toContain('restart_service');
  });

  it('a runbooks file changed on disk maps the next alert; one that does not load keeps the runbooks in force', async () => {
    const disk = JSON.stringify({
      fingerprint: 'pager-incident-44',
      status: 'firing',
      labels: { alertname: 'DiskFull', service: 'disk-consumer' },
    });
    const unmatched = await post(webhookSignature(PAGER_SECRET, now(), disk), disk);
    expect(await unmatched.json()).toMatchObject({ status: 'unmatched', unmatched: 1 });
    await replaceRunbooks(
      `${RUNBOOKS}  - name: disk\n    match: { alertname: DiskFull }\n    app: ops_runbook\n    channel: ${OPS}\n    prompt: "restart {{labels.service}}: disk full"\n`,
      'runbooks reloaded',
    );
    await replaceRunbooks(
      'runbooks:\n  - name: [\n',
      'runbooks: the file changed but does not load',
    );
    const matched = await post(webhookSignature(PAGER_SECRET, now(), disk), disk);
    expect(await matched.json()).toMatchObject({ runbooks: [{ runbook: 'disk', run: 'started' }] });
    await startedRun('disk-consumer');
  });

  it('a resolve with no firing before it starts nothing, and says so', async () => {
    const resolved = JSON.stringify({
      fingerprint: 'pager-incident-43',
      status: 'resolved',
      labels: { alertname: 'ConsumerLag', service: 'quiet-consumer' },
    });
    const response = await post(webhookSignature(PAGER_SECRET, now(), resolved), resolved);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      runbooks: [{ run: 'none', why: 'resolved_without_firing' }],
    });
    expect(roots('quiet-consumer')).toHaveLength(0);
  });
});
