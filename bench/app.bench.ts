import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { connectRedis } from '../src/approvals/redis-connection.js';
import {
  CHANNELS,
  PEOPLE,
  type Person,
  type Sandbox,
  type SandboxMessage,
  startSandbox,
  USERGROUPS,
} from '../src/sandbox/index.js';
import { ACTION_IDS } from '../src/slack/action-ids.js';
import { deleteWithPrefix, REDIS_URL, randomPrefix } from '../test/support/redis.js';
import { epochMs } from './processes/epoch.js';
import { type ClickOutcome, firedSchema, type UnsignedRequest } from './processes/messages.js';
import { type ApproveClick, approveClick } from './support/approve-clicks.js';
import { type Child, compileProcesses, startChild } from './support/child-processes.js';
import { FAKE_APP, type FakeAdk, startFakeAdk } from './support/fake-adk.js';
import { ms, type Spread, spread, table } from './support/figures.js';

/**
 * The Slack app, whole, in child processes as replicas run it: real Redis, the Slack sandbox
 * standing in for Slack's Web API, and a fake ADK server that pauses at once. Measures the ack
 * latency of a burst of signed Approve clicks next to a bare Bolt app, and decisions per second
 * from click to the resume reaching ADK with one and with two app processes on one Redis.
 * Prints figures; asserts nothing.
 */

const WARM_UP_CLICKS = 20;
const BURST_CLICKS = 200;
const SLASH_COMMANDS_AT_ONCE = 16;
const WAIT_MS = 60_000;

const { alice, bob, carol, dave } = PEOPLE;
/** The app runs one `/agent` at a time per channel and requester: spread them to prepare faster. */
const REQUESTERS: ReadonlyArray<readonly [Person, string]> = [
  [alice, CHANNELS.general.id],
  [dave, CHANNELS.general.id],
  [alice, CHANNELS.ops.id],
  [dave, CHANNELS.ops.id],
  [alice, CHANNELS.payments.id],
];
const APPROVERS: readonly Person[] = [bob, carol];
const CARD_CHANNELS = [CHANNELS.general.id, CHANNELS.ops.id, CHANNELS.payments.id];

/** Bob and Carol approve through @oncall, so each click checks group membership (cached). */
const POLICY = `defaults:
  approvers: [${USERGROUPS.oncall.id}]
  expiresIn: 1h
`;

interface AckRow {
  target: string;
  acks: Spread;
  failed: number;
}

interface DecisionRow {
  processes: number;
  decisions: number;
  windowMs: number;
  resumed: number;
  duplicates: number;
  missing: number;
  strangers: number;
  clickToResume: Spread;
  /** From the first click until every card showed the agent resumed. */
  finalMs: number;
}

const ackRows: AckRow[] = [];
const decisionRows: DecisionRow[] = [];

const signingSecret = randomBytes(16).toString('hex');
const botToken = `xoxb-bench-${randomBytes(6).toString('hex')}`;
/** Run last to first in `afterAll`, whatever failed before. */
const cleanups: Array<() => Promise<unknown>> = [];
let sandbox: Sandbox;
let adk: FakeAdk;
let clicker: Child;
let redis: Redis;
let policyFile: string;

function print(line: string): void {
  process.stdout.write(`[bench app] ${line}\n`);
}

beforeAll(async () => {
  await compileProcesses();
  const dir = await mkdtemp(join(tmpdir(), 'bench-app-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  policyFile = join(dir, 'policy.yml');
  await writeFile(policyFile, POLICY);

  redis = await connectRedis(REDIS_URL);
  cleanups.push(() => redis.quit());
  sandbox = await startSandbox({ port: 0, signingSecret, botToken });
  cleanups.push(() => sandbox.stop());
  adk = await startFakeAdk();
  cleanups.push(() => adk.stop());
  clicker = await startChild('clicker', 'clicker', {});
  cleanups.push(() => clicker.stop());

  const version = /redis_version:(\S+)/.exec(await redis.info('server'))?.[1] ?? 'unknown';
  const cores = availableParallelism();
  print(
    `${cores} cores (${cpus()[0]?.model.trim() ?? 'unknown CPU'}), load average ${loadavg()
      .map((load) => load.toFixed(2))
      .join(' ')}, Node ${process.version}, Redis ${version}`,
  );
  print(
    `note: figures are from a shared ${cores}-core machine; the app, Redis, the sandbox, the fake ADK server and the clicker all run on it`,
  );
}, 120_000);

afterAll(async () => {
  for (const cleanup of cleanups.reverse()) {
    await cleanup().catch((error: unknown) => print(`cleanup failed: ${String(error)}`));
  }
  printSummary();
}, 120_000);

describe('the Slack app', () => {
  it('ack latency next to a bare Bolt app, and decisions per second, with one app process', async () => {
    const bare = await startChild('bare-bolt', 'bare Bolt app', {
      SLACK_BOT_TOKEN: botToken,
      SLACK_SIGNING_SECRET: signingSecret,
      SLACK_API_URL: sandbox.apiUrl,
    });
    cleanups.push(() => bare.stop());
    await measure(1, bare);
    await bare.stop();
  }, 240_000);

  it('decisions per second with two app processes on one Redis', async () => {
    await measure(2, undefined);
  }, 240_000);
});

/**
 * One configuration: `processes` app replicas on a fresh key prefix; warm-up clicks, then a
 * burst of clicks spread round-robin over the replicas, each on a pause of its own.
 */
async function measure(processes: number, bare: Child | undefined): Promise<void> {
  const keyPrefix = randomPrefix();
  cleanups.push(() => deleteWithPrefix(redis, keyPrefix));
  const apps = await startApps(processes, keyPrefix);
  const label = `this app, ${processes} process${processes === 1 ? '' : 'es'}`;

  const preparing = performance.now();
  const cards = await preparePauses(WARM_UP_CLICKS + BURST_CLICKS);
  print(
    `${label}: ${cards.length} pauses prepared in ${ms(performance.now() - preparing)} ms (/agent through the sandbox)`,
  );
  const clicks = cards.map((card, i) =>
    approveClick({ card, voter: APPROVERS[i % APPROVERS.length] ?? bob, sandboxUrl: sandbox.url }),
  );
  const warmUp = clicks.slice(0, WARM_UP_CLICKS);
  const burst = clicks.slice(WARM_UP_CLICKS);

  await fire(roundRobin(warmUp, apps));
  if (bare) await fire(roundRobin(warmUp, [bare]));
  await settle(warmUp, cards.slice(0, WARM_UP_CLICKS));

  if (bare) ackRows.push(ackRow('bare Bolt app (ack only)', await fire(roundRobin(burst, [bare]))));
  const outcomes = await fire(roundRobin(burst, apps));
  ackRows.push(ackRow(label, outcomes));
  const settledAt = await settle(burst, cards.slice(WARM_UP_CLICKS));
  decisionRows.push(decisionRow(processes, burst, outcomes, settledAt));
  const row = decisionRows.at(-1);
  if (row) {
    print(
      `${label}: ${row.resumed}/${row.decisions} resumed in ${ms(row.windowMs)} ms, ${row.duplicates} duplicates`,
    );
  }

  await Promise.all(apps.map((app) => app.stop()));
  for (const app of apps) {
    const { count, first } = app.problems();
    if (count > 0)
      print(`${app.label} logged ${count} warnings or errors, first:\n  ${first.join('\n  ')}`);
  }
  sandbox.reset();
}

async function startApps(count: number, keyPrefix: string): Promise<Child[]> {
  const apps = await Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const app = await startChild('app', `app process ${i + 1}`, {
        SLACK_BOT_TOKEN: botToken,
        SLACK_SIGNING_SECRET: signingSecret,
        SLACK_API_URL: sandbox.apiUrl,
        ADK_BASE_URL: adk.baseUrl,
        REDIS_URL,
        REDIS_KEY_PREFIX: keyPrefix,
        POLICY_FILE: policyFile,
        PORT: '0',
        LOG_LEVEL: 'info',
      });
      cleanups.push(() => app.stop());
      return app;
    }),
  );
  const first = apps[0];
  if (!first) throw new Error('no app process');
  sandbox.setAppEventsUrl(eventsUrl(first));
  return apps;
}

function eventsUrl(child: Child): string {
  return `http://127.0.0.1:${child.port}/slack/events`;
}

/** Runs `/agent` `count` times through the sandbox and waits for every card. */
async function preparePauses(count: number): Promise<SandboxMessage[]> {
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < count; i = next++) {
      const [person, channel] = REQUESTERS[i % REQUESTERS.length] ?? [alice, CHANNELS.ops.id];
      const result = await sandbox.slashCommand({
        user: person.id,
        channel,
        command: '/agent',
        text: `${FAKE_APP} transfer ${i + 1} to savings`,
      });
      if (!result.answered || result.status !== 200) {
        throw new Error(`/agent was not acknowledged: ${JSON.stringify(result)}`);
      }
    }
  };
  await Promise.all(Array.from({ length: SLASH_COMMANDS_AT_ONCE }, worker));
  return poll(() => {
    const found = currentCards();
    return found.length >= count ? found : undefined;
  }, `${count} approval cards`);
}

/** Every approval card in the sandbox, in the order their runs were posted. */
function currentCards(): SandboxMessage[] {
  return CARD_CHANNELS.flatMap((channel) =>
    sandbox
      .messages(channel)
      .filter((root) => root.botId !== undefined)
      .flatMap((root) =>
        sandbox
          .replies(channel, root.ts)
          .filter((reply) => JSON.stringify(reply.blocks).includes(ACTION_IDS.approve)),
      ),
  );
}

/** Clicks spread over the targets: click i goes to target i mod n. */
function roundRobin(clicks: readonly ApproveClick[], targets: readonly Child[]): UnsignedRequest[] {
  return clicks.map((click, i) => {
    const target = targets[i % targets.length];
    if (!target) throw new Error('no target to click');
    return { url: eventsUrl(target), body: click.body };
  });
}

async function fire(requests: UnsignedRequest[]): Promise<ClickOutcome[]> {
  clicker.send({ kind: 'fire', signingSecret, requests });
  const fired = await clicker.receive(firedSchema, WAIT_MS);
  return fired.outcomes;
}

/**
 * Waits for every click's resume to reach ADK, then for every card to show the agent resumed
 * (the last thing the app does for a decision); returns when that was, in epoch ms. A resume
 * that never comes is counted as missing, not thrown: the figures still print.
 */
async function settle(
  clicks: readonly ApproveClick[],
  cards: readonly SandboxMessage[],
): Promise<number> {
  await adk
    .waitForResumes(
      clicks.map((click) => click.callId),
      WAIT_MS,
    )
    .catch((error: unknown) => print(`waiting for resumes: ${String(error)}`));
  await poll(
    () => cards.every((card) => resumedCard(sandbox.message(card.channel, card.ts))) || undefined,
    'every card to show the agent resumed',
  ).catch((error: unknown) => print(`waiting for cards: ${String(error)}`));
  return epochMs();
}

function resumedCard(card: SandboxMessage | undefined): boolean {
  return card !== undefined && JSON.stringify(card.blocks).includes('Agent resumed');
}

async function poll<T>(probe: () => T | undefined, what: string): Promise<T> {
  const deadline = performance.now() + WAIT_MS;
  for (;;) {
    const found = probe();
    if (found !== undefined) return found;
    if (performance.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function ackRow(target: string, outcomes: readonly ClickOutcome[]): AckRow {
  const acked = outcomes.flatMap((outcome) =>
    'status' in outcome && outcome.status === 200 ? [outcome.ackMs] : [],
  );
  return { target, acks: spread(acked), failed: outcomes.length - acked.length };
}

function decisionRow(
  processes: number,
  clicks: readonly ApproveClick[],
  outcomes: readonly ClickOutcome[],
  settledAt: number,
): DecisionRow {
  const firstClick = Math.min(...outcomes.map((outcome) => outcome.sentAt));
  let lastResume = Number.NEGATIVE_INFINITY;
  let duplicates = 0;
  let missing = 0;
  const clickToResume: number[] = [];
  clicks.forEach((click, i) => {
    const arrivals = adk.arrivals(click.callId);
    const first = arrivals[0];
    duplicates += Math.max(0, arrivals.length - 1);
    if (first === undefined) {
      missing += 1;
      return;
    }
    lastResume = Math.max(lastResume, first);
    const sentAt = outcomes[i]?.sentAt;
    if (sentAt !== undefined) clickToResume.push(first - sentAt);
  });
  return {
    processes,
    decisions: clicks.length,
    windowMs: lastResume - firstClick,
    resumed: clicks.length - missing,
    duplicates,
    missing,
    strangers: adk.strangers(),
    clickToResume: spread(clickToResume),
    finalMs: settledAt - firstClick,
  };
}

function printSummary(): void {
  print('');
  print(
    `Ack latency: ${BURST_CLICKS} signed Approve clicks sent at once (after ${WARM_UP_CLICKS} warm-up clicks), ms from sending to the end of the response`,
  );
  const acks = table(
    ['target', 'clicks', 'p50', 'p99', 'max', 'not acked'],
    ackRows.map((row) => [
      row.target,
      String(row.acks.count),
      ms(row.acks.p50),
      ms(row.acks.p99),
      ms(row.acks.max),
      String(row.failed),
    ]),
  );
  for (const line of acks) print(line);
  const bare = ackRows.find((row) => row.target.startsWith('bare'));
  const app = ackRows.find((row) => row.target.startsWith('this app, 1'));
  if (bare && app) {
    print(
      `ratio this app / bare Bolt: p50 ${(app.acks.p50 / bare.acks.p50).toFixed(1)}x, p99 ${(app.acks.p99 / bare.acks.p99).toFixed(1)}x, max ${(app.acks.max / bare.acks.max).toFixed(1)}x`,
    );
  }
  print('');
  print(
    `Decisions end to end: the same ${BURST_CLICKS} approvals, one per pause; window = first click to last resume received by the fake ADK server; cards final = first click to every card showing "Agent resumed"`,
  );
  const decisions = table(
    [
      'app processes',
      'decisions',
      'window ms',
      'decisions/s',
      'click→resume p50',
      'p99',
      'resumed',
      'duplicates',
      'missing',
      'cards final ms',
    ],
    decisionRows.map((row) => [
      String(row.processes),
      String(row.decisions),
      ms(row.windowMs),
      (row.resumed / (row.windowMs / 1000)).toFixed(0),
      ms(row.clickToResume.p50),
      ms(row.clickToResume.p99),
      String(row.resumed),
      String(row.duplicates),
      String(row.missing),
      ms(row.finalMs),
    ]),
  );
  for (const line of decisions) print(line);
  if (decisionRows.some((row) => row.strangers > 0)) {
    print(`resumes naming a call id never issued: ${decisionRows.at(-1)?.strangers ?? 0}`);
  }
}
