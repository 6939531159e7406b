import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import {
  type ApiCall,
  CHANNELS,
  PEOPLE,
  type Person,
  type Sandbox,
  type SandboxMessage,
  startSandbox,
  USERGROUPS,
} from '@adk-slack-approvals/slack-sandbox';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { connectRedis } from '../src/approvals/store/redis-connection.js';
import { ACTION_IDS } from '../src/slack/codecs/action-ids.js';
import { deleteWithPrefix, REDIS_URL, randomPrefix } from '../test/support/redis.js';
import { epochMs } from './processes/epoch.js';
import { type ClickOutcome, firedSchema, type UnsignedRequest } from './processes/messages.js';
import { type ApproveClick, approveClick } from './support/approve-clicks.js';
import { type BudgetRow, budgetTable, range } from './support/budget.js';
import { type Child, compileProcesses, startChild } from './support/child-processes.js';
import { FAKE_APP, type FakeAdk, startFakeAdk } from './support/fake-adk.js';
import { ms, type Spread, spread, table } from './support/figures.js';
import { profileLines } from './support/profile-summary.js';

/**
 * The Slack app, whole, in child processes as replicas run it: real Redis, the Slack sandbox
 * standing in for Slack's Web API, and a fake ADK server that pauses at once. Measures the ack
 * latency of bursts of signed Approve clicks next to a bare Bolt app, and decisions per second
 * from click to the resume reaching ADK with one and with two app processes on one Redis.
 * Prints figures; asserts nothing.
 */

/** Per app process: its CPU per decision keeps falling for a couple of hundred clicks (JIT). */
const WARM_UP_CLICKS = 200;
const BURST_CLICKS = 200;
/** Bursts per configuration, each on fresh pauses: one burst's p99 is its second-slowest ack. */
const BURSTS = 3;
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

/** Every burst's acks for one target, pooled. */
interface AckRow {
  target: string;
  acks: number[];
  /** Answered with another status, or not at all. */
  failed: number;
  p99PerBurst: number[];
}

interface DecisionRow {
  processes: number;
  burst: number;
  decisions: number;
  windowMs: number;
  resumed: number;
  duplicates: number;
  missing: number;
  strangers: number;
  clickToResume: Spread;
  /** From the first click until every card showed the agent resumed. */
  finalMs: number;
  /** CPU ms each part used from just before the burst until every card was final. */
  cpu: CpuSnapshot;
  wallMs: number;
  /** Slack Web API calls the apps made from the first click until every card was final. */
  slackCalls: Map<string, number>;
  /**
   * Slack Web API calls of the burst's whole `/agent` decision cycles, by method (`chat.update`
   * by card or root): from the first command until every run's root showed it done (root and
   * card posted, the root's status, the card's decision, the agent's answer, the root's end).
   */
  cycleCalls: Map<string, number>;
  /** Commands Redis ran in the same window (scripts' own included), and scripts called. */
  redisCommands: { run: number; scripts: number };
}

interface CpuSnapshot {
  /** Every core's busy time, whoever used it (`os.cpus()`). */
  machine: number;
  apps: number;
  /** This process: the sandbox, the fake ADK server and the benchmark's own polling. */
  bench: number;
  redis: number;
  clicker: number;
}

const ackRows: AckRow[] = [];
/** The bare Bolt app's CPU ms per click (it only acks), burst by burst: the floor of app CPU. */
const bareCpuPerClick: number[] = [];
const decisionRows: DecisionRow[] = [];

/**
 * BENCH_CPU_PROF=<dir>: each burst's app processes are profiled from the first click until every
 * card is final, and the last one-process burst's top frames are printed.
 */
const PROFILE_DIR = process.env.BENCH_CPU_PROF;
const PROFILE_TOP_FRAMES = 25;
let lastProfile: string | undefined;

function profileFile(processes: number, burst: number): string {
  return join(PROFILE_DIR ?? '.', `decisions-${processes}-process-burst-${burst}`);
}

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
  if (lastProfile !== undefined) await printProfile(lastProfile);
}, 120_000);

async function printProfile(file: string): Promise<void> {
  print('');
  print(`CPU profile of the last one-process burst, first click to every card final (${file})`);
  for (const line of await profileLines(file, PROFILE_TOP_FRAMES)) print(line);
}

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
 * One configuration: `processes` app replicas on a fresh key prefix; warm-up clicks, then bursts
 * of clicks spread round-robin over the replicas, each click on a pause of its own. With `bare`,
 * each burst's clicks go to the bare Bolt app first.
 */
async function measure(processes: number, bare: Child | undefined): Promise<void> {
  const keyPrefix = randomPrefix();
  cleanups.push(() => deleteWithPrefix(redis, keyPrefix));
  const apps = await startApps(processes, keyPrefix);
  const label = `this app, ${processes} process${processes === 1 ? '' : 'es'}`;
  const appAcks = ackRow(label);
  const bareAcks = bare ? ackRow('bare Bolt app (ack only)') : undefined;

  const warmUp = await prepareClicks(WARM_UP_CLICKS * processes);
  await fire(roundRobin(warmUp.clicks, apps));
  if (bare) await fire(roundRobin(warmUp.clicks, [bare]));
  await settle(warmUp);

  for (let burst = 1; burst <= BURSTS; burst++) {
    // Earlier cards are final and no longer touched: forgetting them keeps the sandbox's lookups
    // as quick in the last burst as in the first.
    sandbox.reset();
    const cycleCallsBefore = sandbox.calls().length;
    const preparing = performance.now();
    const prepared = await prepareClicks(BURST_CLICKS);
    const prepareMs = performance.now() - preparing;
    if (bare && bareAcks) {
      const bareCpu = await bare.cpuMs();
      addAcks(bareAcks, await fire(roundRobin(prepared.clicks, [bare])));
      bareCpuPerClick.push(((await bare.cpuMs()) - bareCpu) / prepared.clicks.length);
    }
    const profile = PROFILE_DIR === undefined ? undefined : profileFile(processes, burst);
    if (profile !== undefined)
      await Promise.all(apps.map((app) => app.profile({ kind: 'profile', action: 'start' })));
    const callsBefore = sandbox.calls().length;
    const redisBefore = await redisCommandCounts();
    const cpuBefore = await cpuSnapshot(apps);
    const wallBefore = performance.now();
    const outcomes = await fire(roundRobin(prepared.clicks, apps));
    addAcks(appAcks, outcomes);
    const settledAt = await settle(prepared);
    const wallMs = performance.now() - wallBefore;
    const cpu = cpuSince(cpuBefore, await cpuSnapshot(apps));
    if (profile !== undefined) {
      await Promise.all(
        apps.map((app, i) =>
          app.profile({
            kind: 'profile',
            action: 'stop',
            file: `${profile}-app-${i + 1}.cpuprofile`,
          }),
        ),
      );
      if (processes === 1) lastProfile = `${profile}-app-1.cpuprofile`;
    }
    const row = decisionRow(processes, burst, prepared.clicks, outcomes, settledAt);
    const slackCalls = countByMethod(sandbox.calls().slice(callsBefore));
    // The roots are redrawn last (done), after the cards: not part of the timed window above.
    await rootsDone(prepared);
    const cycleCalls = countCycleCalls(sandbox.calls().slice(cycleCallsBefore), prepared.cards);
    const redisAfter = await redisCommandCounts();
    const redisCommands = {
      run: redisAfter.run - redisBefore.run,
      scripts: redisAfter.scripts - redisBefore.scripts,
    };
    decisionRows.push({ ...row, cpu, wallMs, slackCalls, cycleCalls, redisCommands });
    print(
      `${label}, burst ${burst}: ${BURST_CLICKS} pauses prepared in ${ms(prepareMs)} ms; ` +
        `${row.resumed}/${row.decisions} resumed in ${ms(row.windowMs)} ms, ${row.duplicates} duplicates`,
    );
  }
  if (bareAcks) ackRows.push(bareAcks);
  ackRows.push(appAcks);

  await Promise.all(apps.map((app) => app.stop()));
  for (const app of apps) {
    const { count, first } = app.problems();
    if (count > 0) {
      print(`${app.label} logged ${count} warnings or errors, first:\n  ${first.join('\n  ')}`);
    }
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

interface Prepared {
  cards: SandboxMessage[];
  clicks: ApproveClick[];
}

/**
 * Runs `/agent` `count` times through the sandbox, waits for the new cards, and builds an Approve
 * click for each, by Bob and Carol in turn.
 */
async function prepareClicks(count: number): Promise<Prepared> {
  const known = new Set(currentCards().map((card) => card.ts));
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
  const cards = await poll(() => {
    const found = currentCards().filter((card) => !known.has(card.ts));
    return found.length >= count ? found : undefined;
  }, `${count} approval cards`);
  const clicks = cards.map((card, i) =>
    approveClick({ card, voter: APPROVERS[i % APPROVERS.length] ?? bob, sandboxUrl: sandbox.url }),
  );
  return { cards, clicks };
}

/** Every approval card in the sandbox, channel by channel. */
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
async function settle({ clicks, cards }: Prepared): Promise<number> {
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

/** Waits for every run's root to say it is done (its last redraw); a miss is printed, not thrown. */
async function rootsDone({ cards }: Prepared): Promise<void> {
  const done = (card: SandboxMessage) => {
    const root =
      card.threadTs === undefined ? undefined : sandbox.message(card.channel, card.threadTs);
    return root !== undefined && JSON.stringify(root.blocks).includes(':white_check_mark: Done');
  };
  await poll(() => cards.every(done) || undefined, 'every run root to show it is done').catch(
    (error: unknown) => print(`waiting for roots: ${String(error)}`),
  );
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

async function cpuSnapshot(apps: readonly Child[]): Promise<CpuSnapshot> {
  const [appMs, clickerMs, redisInfo] = await Promise.all([
    Promise.all(apps.map((app) => app.cpuMs())),
    clicker.cpuMs(),
    redis.info('cpu'),
  ]);
  const seconds = (field: string) =>
    Number(new RegExp(`${field}:([\\d.]+)`).exec(redisInfo)?.[1] ?? Number.NaN);
  const { user, system } = process.cpuUsage();
  const machine = cpus().reduce(
    (sum, { times }) => sum + times.user + times.nice + times.sys + times.irq,
    0,
  );
  return {
    machine,
    apps: appMs.reduce((sum, value) => sum + value, 0),
    bench: (user + system) / 1000,
    redis: (seconds('used_cpu_user') + seconds('used_cpu_sys')) * 1000,
    clicker: clickerMs,
  };
}

/**
 * Commands Redis has run so far (`total_commands_processed`, which counts the commands scripts
 * call too) and scripts it was asked to run (`EVALSHA`, `EVAL`). The whole server's: the bench's
 * own polling is in it, a few commands a second.
 */
async function redisCommandCounts(): Promise<{ run: number; scripts: number }> {
  const [stats, commandStats] = await Promise.all([
    redis.info('stats'),
    redis.info('commandstats'),
  ]);
  const run = Number(/total_commands_processed:(\d+)/.exec(stats)?.[1] ?? Number.NaN);
  let scripts = 0;
  for (const match of commandStats.matchAll(/cmdstat_(?:evalsha|eval):calls=(\d+)/g)) {
    scripts += Number(match[1]);
  }
  return { run, scripts };
}

function countByMethod(calls: ReadonlyArray<{ method: string }>): Map<string, number> {
  const counts = new Map<string, number>();
  for (const { method } of calls) counts.set(method, (counts.get(method) ?? 0) + 1);
  return counts;
}

/**
 * By method, with each `chat.update` named by what it redrew, a card or a run's root: a card
 * drawn twice for one decision (decided, then resumed) shows apart from the roots' statuses.
 */
function countCycleCalls(
  calls: readonly ApiCall[],
  cards: readonly SandboxMessage[],
): Map<string, number> {
  const cardTs = new Set(cards.map((card) => card.ts));
  return countByMethod(
    calls.map(({ method, args }) =>
      method === 'chat.update'
        ? {
            method: `chat.update (${typeof args.ts === 'string' && cardTs.has(args.ts) ? 'card' : 'root'})`,
          }
        : { method },
    ),
  );
}

function totalOf(counts: ReadonlyMap<string, number>): number {
  return [...counts.values()].reduce((sum, count) => sum + count, 0);
}

function cpuSince(before: CpuSnapshot, after: CpuSnapshot): CpuSnapshot {
  return {
    machine: after.machine - before.machine,
    apps: after.apps - before.apps,
    bench: after.bench - before.bench,
    redis: after.redis - before.redis,
    clicker: after.clicker - before.clicker,
  };
}

function ackRow(target: string): AckRow {
  return { target, acks: [], failed: 0, p99PerBurst: [] };
}

function addAcks(row: AckRow, outcomes: readonly ClickOutcome[]): void {
  const acked = outcomes.flatMap((outcome) =>
    'status' in outcome && outcome.status === 200 ? [outcome.ackMs] : [],
  );
  row.acks.push(...acked);
  row.failed += outcomes.length - acked.length;
  row.p99PerBurst.push(spread(acked).p99);
}

function decisionRow(
  processes: number,
  burst: number,
  clicks: readonly ApproveClick[],
  outcomes: readonly ClickOutcome[],
  settledAt: number,
): Omit<DecisionRow, 'cpu' | 'wallMs' | 'slackCalls' | 'cycleCalls' | 'redisCommands'> {
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
    burst,
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
    `Ack latency: ${BURSTS} bursts of ${BURST_CLICKS} signed Approve clicks sent at once, after ${WARM_UP_CLICKS} warm-up clicks per app process; ms from sending a click to the end of the response`,
  );
  const summaries = ackRows.map((row) => ({ row, acks: spread(row.acks) }));
  const acks = table(
    ['target', 'acks', 'p50', 'p99', 'max', 'p99 of each burst', 'not acked'],
    summaries.map(({ row, acks }) => [
      row.target,
      String(acks.count),
      ms(acks.p50),
      ms(acks.p99),
      ms(acks.max),
      row.p99PerBurst.map(ms).join(' / '),
      String(row.failed),
    ]),
  );
  for (const line of acks) print(line);
  const bare = summaries.find(({ row }) => row.target.startsWith('bare'))?.acks;
  const app = summaries.find(({ row }) => row.target.startsWith('this app, 1 '))?.acks;
  if (bare && app) {
    const ratio = (key: keyof Omit<Spread, 'count'>) => (app[key] / bare[key]).toFixed(1);
    print(
      `ratio this app (1 process) / bare Bolt app: p50 ${ratio('p50')}x, p99 ${ratio('p99')}x, max ${ratio('max')}x`,
    );
  }
  print('');
  print(
    `Decisions end to end, the same bursts: window = first click to last resume received by the fake ADK server; cards final = first click to every card showing "Agent resumed"`,
  );
  const decisions = table(
    [
      'app processes',
      'burst',
      'decisions',
      'window ms',
      'decisions/s',
      'click→resume p50',
      'p99',
      'duplicates',
      'missing',
      'cards final ms',
    ],
    decisionRows.map((row) => [
      String(row.processes),
      String(row.burst),
      String(row.decisions),
      ms(row.windowMs),
      (row.resumed / (row.windowMs / 1000)).toFixed(0),
      ms(row.clickToResume.p50),
      ms(row.clickToResume.p99),
      String(row.duplicates),
      String(row.missing),
      ms(row.finalMs),
    ]),
  );
  for (const line of decisions) print(line);
  print('');
  print(
    `CPU ms per decision, from just before each burst until every card was final (Redis: the whole server); busy = that total over ${availableParallelism()} cores x wall time; machine = every process's use of the cores, others' included`,
  );
  const perDecision = (row: DecisionRow, value: number) => ms(value / row.decisions);
  const cpu = table(
    [
      'app processes',
      'burst',
      'app',
      'sandbox + fake ADK',
      'Redis',
      'clicker',
      'total',
      'busy %',
      'machine busy %',
    ],
    decisionRows.map((row) => {
      const total = row.cpu.apps + row.cpu.bench + row.cpu.redis + row.cpu.clicker;
      return [
        String(row.processes),
        String(row.burst),
        perDecision(row, row.cpu.apps),
        perDecision(row, row.cpu.bench),
        perDecision(row, row.cpu.redis),
        perDecision(row, row.cpu.clicker),
        perDecision(row, total),
        ((100 * total) / (availableParallelism() * row.wallMs)).toFixed(0),
        ((100 * row.cpu.machine) / (availableParallelism() * row.wallMs)).toFixed(0),
      ];
    }),
  );
  for (const line of cpu) print(line);
  print('');
  print(
    "Per decision, from the first click until every card was final: Redis commands run (scripts' own included) and scripts called, and Slack Web API calls by method",
  );
  const methods = [...new Set(decisionRows.flatMap((row) => [...row.slackCalls.keys()]))].sort();
  const calls = table(
    ['app processes', 'burst', 'Redis commands', 'Redis scripts', 'Slack calls', ...methods],
    decisionRows.map((row) => {
      const per = (count: number) => (count / row.decisions).toFixed(2);
      return [
        String(row.processes),
        String(row.burst),
        per(row.redisCommands.run),
        per(row.redisCommands.scripts),
        per(totalOf(row.slackCalls)),
        ...methods.map((method) => per(row.slackCalls.get(method) ?? 0)),
      ];
    }),
  );
  for (const line of calls) print(line);
  print('');
  print(
    "Slack Web API calls per /agent decision cycle, by method: from the first of the burst's commands until every run's root showed it done (the commands, then the clicks)",
  );
  const cycleMethods = [
    ...new Set(decisionRows.flatMap((row) => [...row.cycleCalls.keys()])),
  ].sort();
  const cycles = table(
    ['app processes', 'burst', 'cycles', 'Slack calls', ...cycleMethods],
    decisionRows.map((row) => {
      const per = (count: number) => (count / row.decisions).toFixed(2);
      return [
        String(row.processes),
        String(row.burst),
        String(row.decisions),
        per(totalOf(row.cycleCalls)),
        ...cycleMethods.map((method) => per(row.cycleCalls.get(method) ?? 0)),
      ];
    }),
  );
  for (const line of cycles) print(line);
  print('');
  print('Budget (issues 14 and 35), this run:');
  for (const line of budgetTable(budgetRows())) print(line);
  const strangers = decisionRows.at(-1)?.strangers ?? 0;
  if (strangers > 0)
    print(`resumes naming a call id the fake ADK server never issued: ${strangers}`);
}

function budgetRows(): BudgetRow[] {
  const single = decisionRows.filter((row) => row.processes === 1);
  const appCpu = single.map((row) => row.cpu.apps / row.decisions);
  const bareAcks = ackRows.find((row) => row.target.startsWith('bare'));
  const appAcks = ackRows.find((row) => row.target.startsWith('this app, 1 '));
  const ratios =
    bareAcks && appAcks
      ? appAcks.p99PerBurst.map((p99, i) => p99 / (bareAcks.p99PerBurst[i] ?? Number.NaN))
      : [];
  const clickToResume = single.map((row) => row.clickToResume.p99);
  const bareP99 = bareAcks?.p99PerBurst ?? [];
  const callsPerCycle = decisionRows.map((row) => totalOf(row.cycleCalls) / row.decisions);
  const commands = decisionRows.map((row) => row.redisCommands.run / row.decisions);
  const scripts = decisionRows.map((row) => row.redisCommands.scripts / row.decisions);
  return [
    {
      figure: "Redis commands per decision (scripts' own included), every burst, 1 and 2 processes",
      measured: range(commands, (value) => value.toFixed(1)),
      floor: '2 (the vote and the finish, one command each)',
      budget: '≤ 30',
      met: commands.length > 0 && Math.max(...commands) <= 30,
    },
    {
      figure: 'Redis script calls per decision, every burst, 1 and 2 processes',
      measured: range(scripts, (value) => value.toFixed(2)),
      floor: '2 (the vote, claiming its resume, and the finish)',
      budget: '≤ 5',
      met: scripts.length > 0 && Math.max(...scripts) <= 5,
    },
    {
      figure: 'Slack calls per /agent decision cycle (command → root done), every burst',
      measured: range(callsPerCycle, (value) => value.toFixed(2)),
      floor: '3 (the root, the card and the answer posted; nothing updated)',
      budget: '≤ 5',
      met: callsPerCycle.length > 0 && Math.max(...callsPerCycle) <= 5,
    },
    {
      figure: 'app CPU per decision (click → card → resume → answer posted)',
      measured: `${range(appCpu, ms)} ms`,
      floor: `${range(bareCpuPerClick, ms)} ms (bare Bolt app, ack only)`,
      budget: '≤ 3 ms',
      met: appCpu.length > 0 && Math.max(...appCpu) <= 3,
    },
    {
      figure: `ack p99 ÷ bare Bolt app, ${BURSTS} bursts of ${BURST_CLICKS} clicks, every burst`,
      measured: ratios.map((ratio) => `${ratio.toFixed(2)}×`).join(' / ') || '-',
      floor: `${bareP99.map(ms).join(' / ') || '-'} ms (bare p99)`,
      budget: '≤ 1.15×',
      met: ratios.length > 0 && ratios.every((ratio) => ratio <= 1.15),
    },
    {
      figure: `click → resume received by ADK, p99 within a ${BURST_CLICKS}-click burst`,
      measured: `${range(clickToResume, ms)} ms`,
      floor: `${range(bareP99, ms)} ms (bare ack p99)`,
      budget: '≤ 500 ms',
      met: clickToResume.length > 0 && Math.max(...clickToResume) <= 500,
    },
  ];
}
