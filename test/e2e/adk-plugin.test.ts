import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import {
  ApprovalsPlugin,
  decisionSchema,
  type EnforcementMode,
  type RefusalReason,
} from '@adk-slack-approvals/adk-approvals';
import {
  type Event,
  getFunctionCalls,
  getFunctionResponses,
  InMemoryRunner,
  InMemorySessionService,
  Runner,
} from '@google/adk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ACTION_IDS } from '../../src/slack/codecs/action-ids.js';
import { rootAgent as paymentsAgent } from '../agents/payments/agent.js';
import { apiCall } from '../support/api-calls.js';
import { CHANNELS, cardText, type Harness, PEOPLE, startHarness } from '../support/app-harness.js';
import { undecidedCardsOf, waitForClosedCard, waitForPauseCard } from '../support/pause-card.js';

/**
 * The ADK plugin package against the whole app (real Redis, the Slack sandbox, the real ADK JS
 * Runner): an agent that runs its own Runner, in another process or in this one.
 */
const { bob } = PEOPLE;
const OPS = CHANNELS.ops.id;
const KEY = `key-${randomBytes(12).toString('hex')}`;
const SECRET = randomBytes(24).toString('hex');
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const RUNBOOK = `${ROOT}packages/demo/dist/runbook/runbook.js`;

let harness: Harness;
let base: string;

beforeAll(async () => {
  // The runbook runs in its own Node process, which runs the packages' compiled `dist/`.
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  for (const pkg of ['packages/adk-approvals', 'packages/demo']) {
    await promisify(execFile)(
      process.execPath,
      [tsc, '-p', `${pkg}/tsconfig.build.json`, '--noCheck'],
      { cwd: ROOT },
    );
  }
  harness = await startHarness({
    policy: `
rules:
  - match: { app: "{payments,ops}" }
    channel: ${OPS}
    approvers: [${bob.id}]
`,
    apiKeys: `
keys:
  - name: runbooks
    sha256: ${createHash('sha256').update(KEY).digest('hex')}
    apps: [payments, ops]
    signingSecret: ${SECRET}
`,
  });
  base = `http://127.0.0.1:${harness.app.port}`;
}, 120_000);

afterAll(async () => {
  await harness?.stop();
});

function api(path: string, body?: unknown) {
  return apiCall(base, KEY, path, { body });
}

type Message = Parameters<Runner['runAsync']>[0]['newMessage'];

/** Every event of one run of `runner` on the session. */
async function eventsOf(
  runner: Runner,
  session: { userId: string; id: string },
  message: Message,
): Promise<Event[]> {
  const events: Event[] = [];
  for await (const event of runner.runAsync({
    userId: session.userId,
    sessionId: session.id,
    newMessage: message,
  })) {
    events.push(event);
  }
  return events;
}

const cardsOf = (pauseId: string) => undecidedCardsOf(harness.sandbox, OPS, pauseId);

async function approveCardOf(pauseId: string): Promise<void> {
  const card = await waitForPauseCard(harness.sandbox, OPS, pauseId);
  expect(cardsOf(pauseId)).toHaveLength(1);
  await harness.sandbox.clickButton({
    user: bob.id,
    channel: OPS,
    messageTs: card.ts,
    actionId: ACTION_IDS.approve,
  });
}

const gateOutcomes = z.object({
  gates: z.array(
    z.object({ state: z.string(), outcome: z.object({ status: z.string() }).optional() }),
  ),
});

async function outcomesOf(pauseId: string) {
  return gateOutcomes.parse(await (await api(`/v1/pauses/${pauseId}`)).json()).gates;
}

describe('a runner in another process with the plugin (poll mode)', () => {
  // The runbook is a Node process of its own loading ADK: 2.4 s alone, 14-16 s with the whole
  // suite on 2 cores, and past the default 20 s once in CI.
  it('pauses, shows one card, resumes itself after the approval, runs the tool once and reports it', {
    timeout: 60_000,
  }, async () => {
    const child: ChildProcess = spawn(process.execPath, [RUNBOOK, 'restart payments-api'], {
      env: {
        ...process.env,
        APPROVALS_URL: base,
        APPROVALS_API_KEY: KEY,
        APPROVALS_SIGNING_SECRET: SECRET,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const stderr: string[] = [];
    child.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk.toString('utf8')));
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    const lines: Record<string, unknown>[] = [];
    let pauseId: string | undefined;
    const pausedLine = z.object({ runbook: z.literal('paused'), pauseId: z.string() });
    const paused = new Promise<string>((resolve) => {
      createInterface({ input: child.stdout ?? process.stdin }).on('line', (line) => {
        // ADK's own logger writes to stdout too; the runbook's lines are the JSON ones.
        if (!line.startsWith('{')) return;
        const parsed = z.record(z.string(), z.unknown()).parse(JSON.parse(line));
        lines.push(parsed);
        const pause = pausedLine.safeParse(parsed);
        if (pause.success) resolve(pause.data.pauseId);
      });
    });
    try {
      pauseId = await Promise.race([
        paused,
        exited.then((code) => {
          throw new Error(`the runbook exited (${code}) before pausing: ${stderr.join('')}`);
        }),
      ]);
      await approveCardOf(pauseId);
      expect(await exited).toBe(0);
    } finally {
      child.kill();
    }
    const tools = lines.filter((line) => line.runbook === 'tool');
    expect(tools).toEqual([{ runbook: 'tool', tool: 'restart_service', status: 'restarted' }]);
    expect(lines.at(-1)).toMatchObject({ runbook: 'done', pauses: 1 });
    // One card for the whole run: the decided card keeps no buttons (nor the pause id), so it is
    // found by its tool; only this test runs the ops agent.
    expect(
      harness.sandbox
        .messages(OPS)
        .filter((m) => JSON.stringify(m.blocks).includes('restart_service')),
    ).toHaveLength(1);
    expect(await outcomesOf(pauseId)).toEqual([
      { state: 'approved', outcome: expect.objectContaining({ status: 'executed' }) },
    ]);
  });
});

describe('enforcement: a confirmation sent straight to the runner', () => {
  const refusals: RefusalReason[] = [];

  async function pausedTransfer(amount: number, enforcement: EnforcementMode = 'attested') {
    const live = new ApprovalsPlugin({
      baseUrl: base,
      apiKey: KEY,
      signingSecret: SECRET,
      enforcement,
      attempts: 1,
      logger: {
        warn: (_m: string, fields?: { reason?: RefusalReason }) => {
          if (fields?.reason !== undefined) refusals.push(fields.reason);
        },
      },
    });
    const runner = new InMemoryRunner({
      agent: paymentsAgent,
      appName: 'payments',
      plugins: [live],
    });
    const session = await runner.sessionService.createSession({
      appName: 'payments',
      userId: 'u-plugin',
    });
    const run = (message: Message) => eventsOf(runner, session, message);
    const first = await run({ role: 'user', parts: [{ text: `transfer ${amount}` }] });
    const ask = first.find((event) =>
      getFunctionCalls(event).some((call) => call.name === 'adk_request_confirmation'),
    );
    const askCall = ask === undefined ? undefined : getFunctionCalls(ask)[0];
    const posted = ask === undefined ? undefined : live.postedPause(ask.invocationId);
    if (ask === undefined || askCall?.id === undefined || posted === undefined) {
      throw new Error('the run did not pause');
    }
    const confirm = (response: Record<string, unknown>) =>
      run({
        role: 'user',
        parts: [
          { functionResponse: { id: askCall.id, name: 'adk_request_confirmation', response } },
        ],
      });
    return { live, ask, askCall, pauseId: posted.pause.id, confirm, run, runner, session };
  }

  const transfers = (events: Event[]) =>
    events
      .flatMap((event) => getFunctionResponses(event))
      .filter((r) => r.name === 'transfer_money');

  it('{confirmed: true} without a decision from the service is refused, the tool does not run, and the gate is closed: the card says the agent answered the call itself and why, with no buttons left', async () => {
    refusals.length = 0;
    const { pauseId, confirm } = await pausedTransfer(900);
    const card = await waitForPauseCard(harness.sandbox, OPS, pauseId);
    const events = await confirm({ confirmed: true });
    const answers = transfers(events);
    expect(answers).toHaveLength(1);
    expect(answers[0]?.response).toEqual({
      error: 'Tool call refused: no decision from the approvers was attested for this call.',
    });
    expect(refusals).toEqual(['no_decision']);
    expect(await outcomesOf(pauseId)).toEqual([
      { state: 'cancelled', outcome: expect.objectContaining({ status: 'blocked' }) },
    ]);
    const closed = await waitForClosedCard(harness.sandbox, OPS, card.ts);
    expect(cardText(closed)).toContain('the agent answered transfer_money itself');
    expect(cardText(closed)).toContain('no decision from the approvers was attested');
  });

  it('a decision the service attested for other arguments of the same call is refused', async () => {
    refusals.length = 0;
    const { live, ask, askCall, confirm } = await pausedTransfer(900);
    // Someone posts the pause with the call's arguments changed, and it is approved as such.
    const tampered = JSON.parse(JSON.stringify(ask));
    const part = tampered.content.parts[0].functionCall;
    part.args.originalFunctionCall.args = { amount: 1 };
    part.id = `adk-${randomUUID()}`;
    tampered.longRunningToolIds = [part.id];
    const created = await api('/v1/pauses', {
      app: 'payments',
      userId: 'u-plugin',
      sessionId: `tampered-${randomUUID()}`,
      events: [tampered],
      resume: { mode: 'poll' },
    });
    expect(created.status).toBe(201);
    const { id } = z.object({ id: z.string() }).parse(await created.json());
    await approveCardOf(id);
    const decided = await api(`/v1/pauses/${id}/decision?wait=10`);
    expect(decided.status).toBe(200);
    const decision = decisionSchema.parse(await decided.json());
    const original = z
      .object({ originalFunctionCall: z.object({ id: z.string() }) })
      .parse(askCall.args).originalFunctionCall;
    // The attestation names the runner's very call: only its arguments differ.
    expect(decision.attestation.gates[0]?.originalCallId).toBe(original.id);
    live.acceptDecision(decision);
    const events = await confirm({ confirmed: true });
    const answers = transfers(events);
    expect(answers).toHaveLength(1);
    expect(answers[0]?.response).toEqual({
      error: 'Tool call refused: the decision was made for other arguments.',
    });
    expect(refusals).toEqual(['arguments_mismatch']);
    expect(askCall.id).not.toBe(part.id);
  });

  it('two processes handed one decision run the tool once: the service records the first claim and refuses the second', async () => {
    refusals.length = 0;
    const paused = await pausedTransfer(700);
    const { live, pauseId } = paused;
    const runner0Session = async () => {
      const found = await paused.runner.sessionService.getSession({
        appName: 'payments',
        userId: paused.session.userId,
        sessionId: paused.session.id,
      });
      if (found === undefined) throw new Error('the first process lost its session');
      return found;
    };
    const decided = api(`/v1/pauses/${pauseId}/decision?wait=10`);
    await approveCardOf(pauseId);
    const decision = decisionSchema.parse(await (await decided).json());
    if (decision.newMessage === undefined) throw new Error('expected a newMessage');

    // A second process (a webhook receiver beside the poller): its own plugin and its own copy of
    // the session as it stood at the pause.
    const other = new ApprovalsPlugin({
      baseUrl: base,
      apiKey: KEY,
      signingSecret: SECRET,
      attempts: 1,
      logger: {
        warn: (_m: string, fields?: { reason?: RefusalReason }) => {
          if (fields?.reason !== undefined) refusals.push(fields.reason);
        },
      },
    });
    const sessionService = new InMemorySessionService();
    const runner = new Runner({
      appName: 'payments',
      agent: paymentsAgent,
      sessionService,
      plugins: [other],
    });
    // The session as it stood at the pause, copied into the second process's own store.
    const held = await runner0Session();
    const copy = await sessionService.createSession({
      appName: 'payments',
      userId: held.userId,
      sessionId: held.id,
    });
    for (const event of held.events) {
      await sessionService.appendEvent({ session: copy, event });
    }
    const message = decision.newMessage;
    live.acceptDecision(decision);
    other.acceptDecision(decision);
    const resumed = await Promise.all([paused.run(message), eventsOf(runner, copy, message)]);
    const answers = resumed.flatMap(transfers).map((answer) => answer.response);
    expect(answers).toHaveLength(2);
    expect(answers.filter((r) => JSON.stringify(r).includes('transferred'))).toHaveLength(1);
    expect(answers).toContainEqual({
      error: 'Tool call refused: another process already used the decision to run this call.',
    });
    expect(refusals).toEqual(['claimed_elsewhere']);
    expect(await outcomesOf(pauseId)).toEqual([
      { state: 'approved', outcome: expect.objectContaining({ status: 'executed' }) },
    ]);
  });

  async function decidedMessage(pauseId: string, decide: () => Promise<void>) {
    const decided = api(`/v1/pauses/${pauseId}/decision?wait=10`);
    await decide();
    const decision = decisionSchema.parse(await (await decided).json());
    if (decision.newMessage === undefined) throw new Error('expected a newMessage');
    return { decision, message: decision.newMessage };
  }

  /** Bob rejects the pause's card, giving `reason`. */
  async function rejectCard(pauseId: string, reason: string): Promise<void> {
    const card = await waitForPauseCard(harness.sandbox, OPS, pauseId);
    await harness.sandbox.clickButton({
      user: bob.id,
      channel: OPS,
      messageTs: card.ts,
      actionId: ACTION_IDS.reject,
    });
    await harness.sandbox.waitFor(() => harness.sandbox.views(bob.id)[0]);
    await harness.sandbox.submitView({ user: bob.id, values: { reason } });
  }

  it("the approvers' rejection is reported rejected, not blocked, and the model gets their reason (poll mode)", async () => {
    refusals.length = 0;
    const paused = await pausedTransfer(450);
    const { message } = await decidedMessage(paused.pauseId, () =>
      rejectCard(paused.pauseId, 'Budget is frozen'),
    );
    const answers = transfers(await paused.run(message));
    expect(answers.map((answer) => answer.response)).toEqual([
      { error: 'Tool call rejected by the approvers: Budget is frozen.' },
    ]);
    expect(refusals).toEqual([]);
    expect(await outcomesOf(paused.pauseId)).toEqual([
      { state: 'rejected', outcome: expect.objectContaining({ status: 'rejected' }) },
    ]);
  });

  it.each(['deny-only', 'off'] as const)(
    'in %s mode an approved call that ran is reported executed on its card',
    async (mode) => {
      const paused = await pausedTransfer(120, mode);
      const { message } = await decidedMessage(paused.pauseId, () => approveCardOf(paused.pauseId));
      const answers = transfers(await paused.run(message));
      expect(answers.map((answer) => answer.response)).toEqual([
        { status: 'transferred', amount: 120 },
      ]);
      expect(await outcomesOf(paused.pauseId)).toEqual([
        { state: 'approved', outcome: expect.objectContaining({ status: 'executed' }) },
      ]);
    },
  );

  it.each(['deny-only', 'off'] as const)(
    'in %s mode a forged {confirmed: true} runs the tool, and its card closes with that fact: no buttons left, it says the call ran without an approval from here, and the audit has it',
    async (mode) => {
      const { pauseId, confirm } = await pausedTransfer(130, mode);
      const card = await waitForPauseCard(harness.sandbox, OPS, pauseId);
      const answers = transfers(await confirm({ confirmed: true }));
      expect(answers.map((answer) => answer.response)).toEqual([
        { status: 'transferred', amount: 130 },
      ]);
      const closed = await waitForClosedCard(harness.sandbox, OPS, card.ts);
      expect(cardText(closed)).toContain(
        `ran without an approval from here (the plugin's enforcement is ${mode})`,
      );
      expect(cardText(closed)).not.toContain('Withdrawn');
      expect(await outcomesOf(pauseId)).toEqual([
        { state: 'cancelled', outcome: expect.objectContaining({ status: 'executed' }) },
      ]);
      const trail = await harness.store.audit.readAudit({ pauseId });
      expect(trail.map((entry) => entry.event)).toEqual(
        expect.arrayContaining(['cancelled', 'outcome_reported']),
      );
    },
  );

  it.each([
    ['deny-only', { error: 'Tool call rejected by the approvers: No budget.' }],
    ['off', { error: 'This tool call is rejected.' }],
  ] as const)(
    "in %s mode the approvers' rejection is reported rejected, never executed nor blocked: the tool did not run",
    async (mode, answer) => {
      const paused = await pausedTransfer(140, mode);
      const { decision, message } = await decidedMessage(paused.pauseId, () =>
        rejectCard(paused.pauseId, 'No budget'),
      );
      // As runWithApprovals (or a webhook receiver) hands it over.
      paused.live.acceptDecision(decision);
      const answers = transfers(await paused.run(message));
      expect(answers.map((a) => a.response)).toEqual([answer]);
      expect(await outcomesOf(paused.pauseId)).toEqual([
        { state: 'rejected', outcome: expect.objectContaining({ status: 'rejected' }) },
      ]);
    },
  );
});
