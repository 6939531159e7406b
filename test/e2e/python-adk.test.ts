import { type ChildProcess, spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { AdkClient } from '../../src/adk/client.js';
import { ACTION_IDS } from '../../src/slack/codecs/action-ids.js';
import { CHANNELS, cardText, type Harness, PEOPLE, startHarness } from '../support/app-harness.js';
import { undecidedCardsOf, waitForClosedCard, waitForPauseCard } from '../support/pause-card.js';
import {
  freePort,
  PYTHON_ADK,
  PYTHON_ADK_SKIPPED,
  type PythonAdkServer,
  startPythonAdkServer,
  toolRuns,
} from '../support/python-adk.js';

/**
 * The Python plugin inside a real google-adk `InMemoryRunner` (the environment
 * scripts/python-adk-env.sh builds), against the running app: a gated `FunctionTool` becomes one
 * card, the approval resumes the runner and the tool runs once; a forged confirmation is refused
 * and closes the card. Skipped, and said so, where that environment is absent.
 */
const { bob } = PEOPLE;
const OPS = CHANNELS.ops.id;
const KEY = `key-${randomBytes(12).toString('hex')}`;
const SECRET = randomBytes(24).toString('hex');
const DRIVER = fileURLToPath(new URL('../python-adk/run_with_plugin.py', import.meta.url));

/**
 * A test's limit. The first run may wait for the driver's import of google-adk (about 3 s on a
 * quiet machine, 20–45 s seen with the whole suite on 2 cores and a third process busy), and the
 * api_server tests start a Python process that imports it.
 */
const PYTHON_TEST_MS = 120_000;

let harness: Harness;
/** The app's spans (tracing on, the real SDK, kept in memory). */
const spans = new InMemorySpanExporter();
/** A Python api_server with the plugin (`--extra_plugins`), which the app resumes in adk mode. */
let pluginServer: PythonAdkServer;

beforeAll(async () => {
  if (PYTHON_ADK === undefined) return;
  const port = await freePort();
  harness = await startHarness({
    adkBaseUrl: `http://127.0.0.1:${port}`,
    policy: `
rules:
  - match: { app: py_payments }
    channel: ${OPS}
    approvers: [${bob.id}]
`,
    apiKeys: `
keys:
  - name: python-adk
    sha256: ${createHash('sha256').update(KEY).digest('hex')}
    apps: [py_payments]
    signingSecret: ${SECRET}
`,
    spanExporter: spans,
  });
  driver = startDriver(); // its import goes on while the api_server starts
  pluginServer = await startPythonAdkServer({
    port,
    extraPlugins: ['adk_slack_approvals.plugin.ApprovalsPlugin'],
    env: {
      APPROVALS_URL: `http://127.0.0.1:${harness.app.port}`,
      APPROVALS_API_KEY: KEY,
      APPROVALS_SIGNING_SECRET: SECRET,
      APPROVALS_RESUME: 'adk',
      APPROVALS_CHANNEL: OPS,
    },
  });
}, 120_000);

afterAll(async () => {
  driver?.kill();
  await harness?.stop();
  await pluginServer?.stop();
});

const stepLine = z.object({
  step: z.enum(['paused', 'resumed', 'forged']),
  pauseId: z.string().nullable().optional(),
  pausesPosted: z.number().optional(),
  asks: z.number().optional(),
  runs: z.number(),
  texts: z.array(z.string()).optional(),
  /** `traced`: the trace ids of the run's spans, and each span's id by name. */
  traceIds: z.array(z.string()).optional(),
  spanIds: z.record(z.string(), z.string()).optional(),
});
type Step = z.infer<typeof stepLine>;

/** The driver in the real google-adk environment; its steps as they come. */
function drive(
  scenario: 'approve' | 'traced' | 'forge' | 'slack-runner',
  prompt: string,
  ...extra: string[]
) {
  return driveWith({}, scenario, prompt, ...extra);
}

/**
 * One driver process (`run_with_plugin.py serve`) for the file: it imports google-adk once and
 * forks a process per run, which then starts at once (an import alone is 3 s on a quiet
 * machine, 20–45 s with the whole suite on 2 cores).
 */
let driver: ChildProcess | undefined;
/** Each run's steps and end, by its id. */
const runs = new Map<
  string,
  { onStep(step: Step): void; onExit(code: number, stderr: string): void }
>();

const driverLine = z.union([
  z.object({ id: z.string(), exit: z.number(), stderr: z.string() }),
  stepLine.extend({ id: z.string() }),
]);

function startDriver(): ChildProcess {
  if (PYTHON_ADK === undefined) throw new Error(PYTHON_ADK_SKIPPED);
  const child = spawn(`${PYTHON_ADK}/bin/python`, [DRIVER, 'serve'], {
    env: {
      ...process.env,
      APPROVALS_URL: `http://127.0.0.1:${harness.app.port}`,
      APPROVALS_API_KEY: KEY,
      APPROVALS_SIGNING_SECRET: SECRET,
      APPROVALS_RESUME: 'poll',
      APPROVALS_CHANNEL: OPS,
    },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  // Its own output (import warnings) is shown only if it ends early.
  const output: string[] = [];
  child.stderr?.on('data', (chunk: Buffer) => output.push(chunk.toString('utf8')));
  if (child.stdout) {
    createInterface({ input: child.stdout }).on('line', (line) => {
      const said = driverLine.parse(JSON.parse(line));
      const run = runs.get(said.id);
      if ('exit' in said) run?.onExit(said.exit, said.stderr);
      else run?.onStep(said);
    });
  }
  child.on('exit', (code) => {
    const why = `the driver process exited (${code}): ${output.join('').slice(-4_000)}`;
    for (const run of runs.values()) run.onExit(-1, why);
    if (driver === child) driver = undefined; // the next run starts another
  });
  return child;
}

/** `drive`, with more of the plugin's environment (e.g. `APPROVALS_ENFORCEMENT`). */
function driveWith(
  env: Record<string, string>,
  scenario: 'approve' | 'traced' | 'forge' | 'slack-runner',
  prompt: string,
  ...extra: string[]
) {
  driver ??= startDriver();
  const id = randomBytes(6).toString('hex');
  const stderr: string[] = [];
  const steps: Step[] = [];
  const waiting = new Map<string, (step: Step) => void>();
  let ended: (code: number) => void = () => {};
  const exited = new Promise<number>((resolve) => {
    ended = resolve;
  });
  runs.set(id, {
    onStep(step) {
      steps.push(step);
      waiting.get(step.step)?.(step);
    },
    onExit(code, text) {
      stderr.push(text);
      runs.delete(id);
      ended(code);
    },
  });
  driver.stdin?.write(`${JSON.stringify({ id, args: [scenario, prompt, ...extra], env })}\n`);
  const step = (name: Step['step']) =>
    Promise.race([
      new Promise<Step>((resolve) => {
        const seen = steps.find((s) => s.step === name);
        if (seen) resolve(seen);
        else waiting.set(name, resolve);
      }),
      exited.then((code) => {
        throw new Error(`the driver exited (${code}) before "${name}": ${stderr.join('')}`);
      }),
    ]);
  return { step, exited, stderr };
}

const gateOutcomes = z.object({
  gates: z.array(
    z.object({ state: z.string(), outcome: z.object({ status: z.string() }).optional() }),
  ),
});

/** Each gate's state and the outcome the plugin reported, as the approvals API shows them. */
async function outcomesOf(pauseId: string) {
  const response = await fetch(`http://127.0.0.1:${harness.app.port}/v1/pauses/${pauseId}`, {
    headers: { authorization: `Bearer ${KEY}` },
  });
  return gateOutcomes
    .parse(await response.json())
    .gates.map((gate) => [gate.state, gate.outcome?.status]);
}

async function approveCard(pauseId: string, actionId: string): Promise<void> {
  const card = await waitForPauseCard(harness.sandbox, OPS, pauseId);
  expect(undecidedCardsOf(harness.sandbox, OPS, pauseId)).toHaveLength(1);
  await harness.sandbox.clickButton({ user: bob.id, channel: OPS, messageTs: card.ts, actionId });
}

describe.skipIf(PYTHON_ADK === undefined)('the Python plugin in a real google-adk Runner', () => {
  it('a gated FunctionTool becomes one card; the approval resumes the runner and the tool runs once', {
    timeout: PYTHON_TEST_MS,
  }, async () => {
    const run = drive('approve', 'transfer 300');
    const paused = await run.step('paused');
    expect(paused).toMatchObject({ pausesPosted: 1, asks: 1, runs: 0 });
    await approveCard(String(paused.pauseId), ACTION_IDS.approve);
    const resumed = await run.step('resumed');
    expect(await run.exited, run.stderr.join('')).toBe(0);
    expect(resumed.runs).toBe(1);
    expect(resumed.texts).toEqual([
      'Tool transfer_money returned {"status":"transferred","amount":300}',
    ]);
    expect(await outcomesOf(String(paused.pauseId))).toEqual([['approved', 'executed']]);
  });

  it('the plugin sends the run’s traceparent: the approval’s spans join the agent’s trace, under its invocation span', {
    timeout: PYTHON_TEST_MS,
  }, async () => {
    const run = drive('traced', 'transfer 301');
    const paused = await run.step('paused');
    expect(paused.traceIds).toHaveLength(1);
    const invocation = paused.spanIds?.invocation;
    expect(invocation).toMatch(/^[0-9a-f]{16}$/);
    await approveCard(String(paused.pauseId), ACTION_IDS.approve);
    await run.step('resumed');
    expect(await run.exited, run.stderr.join('')).toBe(0);
    const ofPause = (name: string) =>
      spans
        .getFinishedSpans()
        .find((s) => s.name === name && s.attributes['approvals.pause_id'] === paused.pauseId);
    const pause = await vi.waitFor(() => {
      const span = ofPause('approval.pause');
      if (span === undefined || ofPause('approval.decision') === undefined)
        throw new Error('no spans yet');
      return span;
    });
    expect(pause.spanContext().traceId).toBe(paused.traceIds?.[0]);
    expect(pause.parentSpanContext?.spanId).toBe(invocation);
    expect(ofPause('approval.decision')?.spanContext().traceId).toBe(paused.traceIds?.[0]);
    expect(ofPause('approval.decision')?.attributes['approvals.decider']).toBe(bob.id);
  });

  it('two gated calls in one model turn give one card, and each tool runs once', {
    timeout: PYTHON_TEST_MS,
  }, async () => {
    const run = drive('approve', 'transfer 5 and transfer 7');
    const paused = await run.step('paused');
    expect(paused).toMatchObject({ pausesPosted: 1, asks: 2, runs: 0 });
    await approveCard(String(paused.pauseId), ACTION_IDS.approveAll);
    const resumed = await run.step('resumed');
    expect(await run.exited, run.stderr.join('')).toBe(0);
    expect(resumed.runs).toBe(2);
    expect(await outcomesOf(String(paused.pauseId))).toEqual([
      ['approved', 'executed'],
      ['approved', 'executed'],
    ]);
  });

  it('adk api_server --extra_plugins loads the plugin: a run there becomes one card, and the approval the app sends back runs the tool once', {
    timeout: PYTHON_TEST_MS,
  }, async () => {
    const adk = new AdkClient({ baseUrl: pluginServer.url });
    const session = await adk.createSession('py_payments', 'u-api-server');
    const before = new Set(harness.sandbox.messages(OPS).map((message) => message.ts));
    for await (const _item of adk.runSse({
      appName: 'py_payments',
      userId: 'u-api-server',
      sessionId: session.id,
      newMessage: { role: 'user', parts: [{ text: 'transfer 70' }] },
    })) {
      // The run pauses; the plugin posts the pause once it ends.
    }
    const card = await harness.sandbox.waitFor(() =>
      harness.sandbox
        .messages(OPS)
        .find(
          (message) =>
            !before.has(message.ts) && JSON.stringify(message.blocks).includes(ACTION_IDS.approve),
        ),
    );
    expect(cardText(card)).toContain('transfer_money');
    await harness.sandbox.clickButton({
      user: bob.id,
      channel: OPS,
      messageTs: card.ts,
      actionId: ACTION_IDS.approve,
    });
    // The app resumes the session on the api_server (adk mode); the plugin there checks the
    // attested decision, claims it and lets the tool run.
    await vi.waitFor(
      async () => {
        const now = await adk.getSession('py_payments', 'u-api-server', session.id);
        expect(toolRuns(now.state)).toBe(1);
      },
      { timeout: 20_000, interval: 200 },
    );
  });

  it('as ADK SlackRunner runs it: the card goes into the thread the person wrote in, and the approval resumes the runner, whose answer is said there', {
    timeout: PYTHON_TEST_MS,
  }, async () => {
    const asked = harness.sandbox.postAsPerson({ user: bob.id, channel: OPS, text: 'transfer 9' });
    const run = drive('slack-runner', 'transfer 9', OPS, asked.ts);
    const paused = await run.step('paused');
    const pauseId = String(paused.pauseId);
    const card = await harness.sandbox.waitFor(() =>
      harness.sandbox
        .replies(OPS, asked.ts)
        .find(
          (message) =>
            JSON.stringify(message.blocks).includes(pauseId) &&
            JSON.stringify(message.blocks).includes(ACTION_IDS.approve),
        ),
    );
    await harness.sandbox.clickButton({
      user: bob.id,
      channel: OPS,
      messageTs: card.ts,
      actionId: ACTION_IDS.approve,
    });
    const resumed = await run.step('resumed');
    expect(await run.exited, run.stderr.join('')).toBe(0);
    expect(resumed.runs).toBe(1);
    expect(resumed.texts).toEqual([
      'Tool transfer_money returned {"status":"transferred","amount":9}',
    ]);
  });

  it('a forged {confirmed: true} sent straight to the runner is refused, the tool does not run, and the card is closed', {
    timeout: PYTHON_TEST_MS,
  }, async () => {
    const run = drive('forge', 'transfer 40');
    const paused = await run.step('paused');
    const card = await waitForPauseCard(harness.sandbox, OPS, String(paused.pauseId));
    const forged = await run.step('forged');
    expect(await run.exited, run.stderr.join('')).toBe(0);
    expect(forged.runs).toBe(0);
    expect(forged.texts?.join('\n')).toContain('Tool call refused');
    expect(await outcomesOf(String(paused.pauseId))).toEqual([['cancelled', 'blocked']]);
    const closed = await waitForClosedCard(harness.sandbox, OPS, card.ts);
    expect(cardText(closed)).toContain('the agent answered transfer_money itself');
  });

  it.each(['deny-only', 'off'])(
    'in %s mode a forged {confirmed: true} runs the tool, and the card closes with that fact: no buttons left, it says the call ran without an approval from here',
    { timeout: PYTHON_TEST_MS },
    async (mode) => {
      const run = driveWith(
        { APPROVALS_ENFORCEMENT: mode },
        'forge',
        `transfer ${mode === 'off' ? 41 : 42}`,
      );
      const paused = await run.step('paused');
      const card = await waitForPauseCard(harness.sandbox, OPS, String(paused.pauseId));
      const forged = await run.step('forged');
      expect(await run.exited, run.stderr.join('')).toBe(0);
      expect(forged.runs).toBe(1);
      expect(await outcomesOf(String(paused.pauseId))).toEqual([['cancelled', 'executed']]);
      const closed = await waitForClosedCard(harness.sandbox, OPS, card.ts);
      expect(cardText(closed)).toContain(
        `ran without an approval from here (the plugin's enforcement is ${mode})`,
      );
    },
  );

  it('adk api_server --extra_plugins with the plugin misconfigured stops every run, saying why, instead of running the agent without it', {
    timeout: PYTHON_TEST_MS + 30_000,
  }, async () => {
    // ADK's loader logs a plugin constructor's exception and carries on without the plugin: the
    // agent would run unguarded, its confirmations answerable by anyone who can reach it.
    const server = await startPythonAdkServer({
      extraPlugins: ['adk_slack_approvals.plugin.ApprovalsPlugin'],
      env: {
        APPROVALS_URL: `http://127.0.0.1:${harness.app.port}`,
        APPROVALS_API_KEY: KEY,
        APPROVALS_SIGNING_SECRET: '',
        APPROVALS_RESUME: 'adk',
      },
    });
    try {
      const adk = new AdkClient({ baseUrl: server.url });
      const session = await adk.createSession('py_payments', 'u-misconfigured');
      const texts: string[] = [];
      let asks = 0;
      for await (const item of adk.runSse({
        appName: 'py_payments',
        userId: 'u-misconfigured',
        sessionId: session.id,
        newMessage: { role: 'user', parts: [{ text: 'transfer 80' }] },
      })) {
        if (item.type !== 'event') continue;
        for (const part of item.event.content?.parts ?? []) {
          if (part.functionCall?.name === 'adk_request_confirmation') asks += 1;
          if (typeof part.text === 'string') texts.push(part.text);
        }
      }
      expect(asks).toBe(0);
      expect(texts.join('\n')).toContain(
        'This agent is stopped: its approvals plugin is not configured (APPROVALS_SIGNING_SECRET',
      );
      const now = await adk.getSession('py_payments', 'u-misconfigured', session.id);
      expect(toolRuns(now.state)).toBe(0);
    } finally {
      await server.stop();
    }
  });
});

if (PYTHON_ADK === undefined) {
  describe('the Python plugin in a real google-adk Runner', () => {
    it.skip(PYTHON_ADK_SKIPPED, () => {});
  });
}
