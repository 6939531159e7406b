import { createHash, randomBytes } from 'node:crypto';
import type { SandboxMessage } from '@adk-slack-approvals/slack-sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisStartedRuns } from '../../src/approvals/store/redis-started-runs.js';
import { apiCall } from '../support/api-calls.js';
import {
  buttons,
  CHANNELS,
  cardText,
  type Harness,
  PEOPLE,
  startHarness,
} from '../support/app-harness.js';

/**
 * Runs started over the API (issue 36) against the whole app: real Redis, the real adk
 * api_server (the `payments` test agent: `transfer <n>` calls the gated `transfer_money`), the
 * Slack sandbox. One app for the file.
 */
const { bob } = PEOPLE;
const OPS = CHANNELS.ops.id;
const KEY = `key-${randomBytes(12).toString('hex')}`;
const NO_RUNS_KEY = `key-${randomBytes(12).toString('hex')}`;
const SECRET = randomBytes(24).toString('hex');
const sha = (text: string) => createHash('sha256').update(text).digest('hex');

const POLICY = `
rules:
  - name: warning-transfers
    match: { app: payments, tool: transfer_money, source: alert, labels: { severity: warning } }
    decision: allow
  - match: { app: payments }
    channel: ${OPS}
    approvers: [${bob.id}]
`;

let harness: Harness;
let base: string;

beforeAll(async () => {
  harness = await startHarness({
    policy: POLICY,
    apiKeys: `
keys:
  - name: runbooks
    sha256: ${sha(KEY)}
    apps: [payments]
    signingSecret: ${SECRET}
    runs: true
  - name: pauses-only
    sha256: ${sha(NO_RUNS_KEY)}
    apps: [payments]
    signingSecret: ${SECRET}
`,
  });
  base = `http://127.0.0.1:${harness.app.port}`;
}, 60_000);

afterAll(async () => {
  await harness?.stop();
});

interface RunBody {
  id: string;
  status: string;
  channel: string;
  threadTs: string;
  joined: boolean;
  sessionId: string | null;
  pendingPauses: string[];
}

function api(path: string, init: { method?: string; body?: unknown; key?: string } = {}) {
  return apiCall(base, init.key ?? KEY, path, init);
}

function runRequest(overrides: Record<string, unknown> = {}) {
  return {
    app: 'payments',
    template: 'transfer {{amount}}',
    variables: { amount: '250' },
    channel: OPS,
    startedBy: { kind: 'alert', id: 'fp-1', name: 'HighErrorRate <Alertmanager>' },
    source: 'alert',
    labels: { severity: 'critical' },
    ...overrides,
  };
}

async function getRun(id: string): Promise<RunBody> {
  const response = await api(`/v1/runs/${id}`);
  expect(response.status).toBe(200);
  return (await response.json()) as RunBody;
}

/** Waits until the run reads as `status` (the stream goes on after the start is answered). */
async function runReaching(id: string, status: string): Promise<RunBody> {
  for (let i = 0; i < 400; i++) {
    const run = await getRun(id);
    if (run.status === status && (status !== 'waiting' || run.pendingPauses.length > 0)) return run;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`the run did not reach ${status} in 20 s`);
}

function root(run: RunBody): SandboxMessage {
  const found = harness.sandbox.messages(OPS).find((m) => m.ts === run.threadTs);
  if (found === undefined) throw new Error('no thread root');
  return found;
}

async function transferRuns(run: RunBody): Promise<number> {
  const fresh = await getRun(run.id);
  if (fresh.sessionId === null) throw new Error('the run has no session');
  const session = await harness.adk.getSession('payments', 'api:runbooks', fresh.sessionId);
  return session.events.filter((event) =>
    (event.content?.parts ?? []).some(
      (part) =>
        part.functionResponse?.name === 'transfer_money' &&
        JSON.stringify(part.functionResponse.response).includes('transferred'),
    ),
  ).length;
}

describe('POST /v1/runs', () => {
  it('refuses a key without runs: true, naming the setting, and a missing template variable', async () => {
    const refused = await api('/v1/runs', { body: runRequest(), key: NO_RUNS_KEY });
    expect(refused.status).toBe(403);
    expect(JSON.stringify(await refused.json())).toContain('runs: true');
    const missing = await api('/v1/runs', { body: runRequest({ variables: {} }) });
    expect(missing.status).toBe(422);
    expect(JSON.stringify(await missing.json())).toContain('variables.amount');
  });

  it('starts one run in a thread saying what started it; the same dedupeKey joins it, also when racing', async () => {
    const body = runRequest({ dedupeKey: `group-${randomBytes(4).toString('hex')}` });
    const [first, second] = await Promise.all([
      api('/v1/runs', { body }),
      api('/v1/runs', { body }),
    ]);
    expect([first.status, second.status].sort()).toEqual([200, 201]);
    const [a, b] = [(await first.json()) as RunBody, (await second.json()) as RunBody];
    expect(a.id).toBe(b.id);
    expect([a.joined, b.joined].sort()).toEqual([false, true]);
    const created = first.status === 201 ? a : b;
    expect(created.threadTs).toEqual(expect.any(String));

    const card = await harness.card(OPS, created.threadTs);
    expect(buttons(card).length).toBeGreaterThan(0);
    const rootText = cardText(root(created));
    expect(rootText).toContain('Started by alert *HighErrorRate &lt;Alertmanager&gt;*');
    await harness.reply(OPS, created.threadTs, 'Joined: alert');

    const third = await api('/v1/runs', { body });
    expect(third.status).toBe(200);
    expect(((await third.json()) as RunBody).id).toBe(created.id);
    // The first run of the file: one root for three starts with one dedupe key.
    const roots = harness.sandbox.messages(OPS).filter((m) => cardText(m).includes('Started by'));
    expect(roots.map((m) => m.ts)).toEqual([created.threadTs]);

    const waiting = await runReaching(created.id, 'waiting');
    expect(waiting.pendingPauses).toHaveLength(1);
    const other = await api(`/v1/runs/${created.id}`, { key: NO_RUNS_KEY });
    expect(other.status).toBe(403);
  });

  it('DELETE cancels: the card is closed with no live buttons, a line in the thread, and the tool never runs', async () => {
    const created = (await (
      await api('/v1/runs', { body: runRequest({ variables: { amount: '310' } }) })
    ).json()) as RunBody;
    const card = await harness.card(OPS, created.threadTs);
    await runReaching(created.id, 'waiting');
    const cancelled = await api(`/v1/runs/${created.id}`, { method: 'DELETE' });
    expect(cancelled.status).toBe(200);
    expect(((await cancelled.json()) as RunBody).status).toBe('cancelled');
    const closed = await harness.messageReading(OPS, card.ts, /Cancelled/);
    expect(buttons(closed)).toEqual([]);
    await harness.reply(OPS, created.threadTs, 'Cancelled by');
    expect((await getRun(created.id)).pendingPauses).toEqual([]);
    expect(await transferRuns(created)).toBe(0);
    const again = await api(`/v1/runs/${created.id}`, { method: 'DELETE' });
    expect(again.status).toBe(409);
  });

  it("a stand-down closes the card as stood down, with the alert's time, and the tool never runs", async () => {
    const created = (await (
      await api('/v1/runs', { body: runRequest({ variables: { amount: '420' } }) })
    ).json()) as RunBody;
    const card = await harness.card(OPS, created.threadTs);
    const waiting = await runReaching(created.id, 'waiting');
    await harness.app.runs.standDown(created.id, {
      kind: 'alert_resolved',
      at: Date.parse('2026-11-28T03:12:00Z'),
    });
    const closed = await harness.messageReading(OPS, card.ts, /Stood down/);
    expect(cardText(closed)).toContain('Stood down: alert resolved at 2026-11-28 03:12 UTC');
    expect(buttons(closed)).toEqual([]);
    await harness.reply(OPS, created.threadTs, 'Stood down: alert resolved');
    expect((await getRun(created.id)).status).toBe('stood_down');
    const view = await harness.store.pauses.getPause(waiting.pendingPauses[0] ?? '');
    expect(view?.gates[0]?.state).toBe('cancelled');
    expect(await transferRuns(created)).toBe(0);
  });

  it("the policy matches the run's source and labels: a warning alert's transfer is allowed", async () => {
    const created = (await (
      await api('/v1/runs', {
        body: runRequest({ variables: { amount: '55' }, labels: { severity: 'warning' } }),
      })
    ).json()) as RunBody;
    await runReaching(created.id, 'done');
    expect(harness.openCards(OPS, root(created))).toEqual([]);
    expect(await transferRuns(created)).toBe(1);
  });
});

describe('a run whose replica died', () => {
  it('before the agent started: its thread says so and the run ends, so its dedupe key starts a new run', async () => {
    const dedupeKey = `dead-${randomBytes(4).toString('hex')}`;
    const thread = harness.sandbox.postAsPerson({ user: bob.id, channel: OPS, text: 'incident' });
    // What a replica that died just after posting the run's root leaves behind: the run, its
    // dedupe key, and an intent whose lease lapsed a minute ago.
    const lapsed = Date.now() - 60_000;
    const runs = new RedisStartedRuns(harness.redis, harness.keyPrefix);
    const begun = await runs.begin({
      id: `dead-run-${dedupeKey}`,
      app: 'payments',
      channel: OPS,
      status: 'running',
      startedBy: { kind: 'api', id: 'a-runbook' },
      source: 'api',
      dedupeKey,
      keyId: 'runbooks',
      pauseIds: [],
      createdAt: lapsed,
    });
    expect(begun.kind).toBe('begun');
    await runs.update(begun.run.id, { threadTs: thread.ts });
    await harness.store.runs.recordRun({
      intent: {
        id: `dead-intent-${dedupeKey}`,
        requester: 'api:runbooks',
        channelId: OPS,
        text: 'transfer 5',
        acceptedAt: lapsed,
        threadTs: thread.ts,
        appName: 'payments',
      },
      owner: 'a-replica-that-died',
      now: lapsed,
      leaseMs: 1_000,
    });

    await harness.reply(OPS, thread.ts, 'The app restarted before the agent started');
    await expect
      .poll(async () => (await getRun(begun.run.id)).status, { timeout: 10_000 })
      .toBe('failed');
    const again = await api('/v1/runs', { body: runRequest({ dedupeKey }) });
    expect(again.status).toBe(201);
    const started = (await again.json()) as RunBody;
    expect(started.joined).toBe(false);
    expect(started.id).not.toBe(begun.run.id);
  });
});
