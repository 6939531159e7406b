import { createHash, randomBytes } from 'node:crypto';
import {
  ApprovalsPlugin,
  type RunWithApprovalsResult,
  runWithApprovals,
} from '@adk-slack-approvals/adk-approvals';
import type { SandboxMessage } from '@adk-slack-approvals/slack-sandbox';
import {
  type AuthConfig,
  AuthCredentialTypes,
  FunctionNode,
  FunctionTool,
  InMemoryRunner,
  type InvocationContext,
  LlmAgent,
  START,
  ToolNode,
  Workflow,
} from '@google/adk';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { ACTION_IDS } from '../../src/slack/codecs/action-ids.js';
import { rootAgent as askInputAgent } from '../agents/ask_input/agent.js';
import { rootAgent as budgetFlowAgent } from '../agents/budget_flow/agent.js';
import { rootAgent as calendarAgent } from '../agents/calendar/agent.js';
import { ScriptedLlm } from '../agents/scripted-model/scripted-llm.js';
import { rootAgent as twoStageAgent } from '../agents/two_stage/agent.js';
import { CHANNELS, cardText, type Harness, PEOPLE, startHarness } from '../support/app-harness.js';
import { waitForPauseCard } from '../support/pause-card.js';

/**
 * Every kind of pause an agent running its own Runner (the real ADK JS InMemoryRunner with the
 * ApprovalsPlugin) can raise, through the app's API: input requests become the same form card as
 * on the `/agent` path and their answer resumes the runner; a credential request is a notice in
 * Slack and an explicit `unsupported_pause`, never a silent `completed`.
 */
const { bob } = PEOPLE;
const OPS = CHANNELS.ops.id;
const KEY = `key-${randomBytes(12).toString('hex')}`;
const SECRET = randomBytes(24).toString('hex');

let harness: Harness;

beforeAll(async () => {
  harness = await startHarness({
    policy: `
rules:
  - match: { app: "{ask_input,budget_flow,calendar,two_stage,loop_flow,tool_flow,cred_mix}" }
    channel: ${OPS}
    approvers: [${bob.id}]
`,
    apiKeys: `
keys:
  - name: plugin-kinds
    sha256: ${createHash('sha256').update(KEY).digest('hex')}
    apps: [ask_input, budget_flow, calendar, two_stage, loop_flow, tool_flow, cred_mix]
    signingSecret: ${SECRET}
`,
  });
}, 120_000);

afterAll(async () => {
  await harness?.stop();
});

type Agent = ConstructorParameters<typeof InMemoryRunner>[0]['agent'];

function runWithPlugin(agent: Agent, appName: string, text: string, maxPauses?: number) {
  const plugin = new ApprovalsPlugin({
    baseUrl: `http://127.0.0.1:${harness.app.port}`,
    apiKey: KEY,
    signingSecret: SECRET,
    attempts: 1,
  });
  const runner = new InMemoryRunner({ agent, appName, plugins: [plugin] });
  const paused: string[] = [];
  const result = (async (): Promise<RunWithApprovalsResult> => {
    const session = await runner.sessionService.createSession({ appName, userId: 'u-kinds' });
    return runWithApprovals({
      runner,
      plugin,
      userId: session.userId,
      sessionId: session.id,
      newMessage: { role: 'user', parts: [{ text }] },
      waitSeconds: 5,
      ...(maxPauses === undefined ? {} : { maxPauses }),
      onPause: (pause) => paused.push(pause.id),
    });
  })();
  return { result, paused };
}

/** The input card of a pause: it carries the pause id and an Answer button. */
function inputCardOf(pauseId: string): Promise<SandboxMessage> {
  return harness.sandbox.waitFor(
    () =>
      harness.sandbox.messages(OPS).find((message) => {
        const blocks = JSON.stringify(message.blocks);
        return blocks.includes(pauseId) && blocks.includes(ACTION_IDS.answer);
      }),
    { timeoutMs: 15_000 },
  );
}

const modalBlocks = z.object({
  blocks: z.array(z.object({ type: z.string(), block_id: z.string() })),
});

async function answerForm(card: SandboxMessage, values: string[]): Promise<void> {
  await harness.sandbox.clickButton({
    user: bob.id,
    channel: OPS,
    messageTs: card.ts,
    actionId: ACTION_IDS.answer,
  });
  const modal = await harness.sandbox.waitFor(() => harness.sandbox.views(bob.id)[0]);
  const inputs = modalBlocks
    .parse(modal.view)
    .blocks.flatMap((block) => (block.type === 'input' ? [block.block_id] : []));
  expect(inputs).toHaveLength(values.length);
  await harness.sandbox.submitView({
    user: bob.id,
    values: Object.fromEntries(inputs.map((id, index) => [id, values[index] ?? ''])),
  });
}

function finalText(result: RunWithApprovalsResult): string {
  return result.events
    .flatMap((event) => event.content?.parts ?? [])
    .flatMap((part) => (part.text === undefined ? [] : [part.text]))
    .join('\n');
}

/**
 * Polled: the plugin's `onPause` is not a sandbox event, and `sandbox.waitFor` looks again only
 * when the sandbox changes.
 */
async function waitForPause(paused: string[]): Promise<string> {
  return vi.waitFor(
    () => {
      const [first] = paused;
      if (first === undefined) throw new Error('no pause posted yet');
      return first;
    },
    { timeout: 15_000, interval: 20 },
  );
}

/** Bob approves the pause's card; returns the card as it was posted. */
async function approvePause(pauseId: string): Promise<SandboxMessage> {
  const card = await waitForPauseCard(harness.sandbox, OPS, pauseId);
  await harness.sandbox.clickButton({
    user: bob.id,
    channel: OPS,
    messageTs: card.ts,
    actionId: ACTION_IDS.approve,
  });
  return card;
}

/** The requests of a run that ended `unsupported_pause` (fails the test otherwise). */
function unsupportedOf(done: RunWithApprovalsResult) {
  expect(done.kind).toBe('unsupported_pause');
  if (done.kind !== 'unsupported_pause') throw new Error('expected unsupported_pause');
  return done.requests;
}

/** The outcome each gate of the pause reports, through the API. */
async function outcomesOf(pauseId: string) {
  const read = await fetch(`http://127.0.0.1:${harness.app.port}/v1/pauses/${pauseId}`, {
    headers: { authorization: `Bearer ${KEY}` },
  });
  return z
    .object({
      gates: z.array(z.object({ outcome: z.object({ status: z.string(), detail: z.string() }) })),
    })
    .parse(await read.json()).gates;
}

/** A message posted in the channel after the first `before` ones whose text holds `needle`. */
function noticeAfter(before: number, needle: string): Promise<SandboxMessage> {
  return harness.sandbox.waitFor(() =>
    harness.sandbox
      .messages(OPS)
      .slice(before)
      .find((message) => message.text.includes(needle)),
  );
}

describe('input requests through the plugin and the API', () => {
  it("a requestInputTool question is a form card from its schema; the answer resumes the runner, which reads it as the tool's response", async () => {
    const { result, paused } = runWithPlugin(askInputAgent, 'ask_input', 'charge laptops');
    const pauseId = await waitForPause(paused);
    const card = await inputCardOf(pauseId);
    expect(cardText(card)).toContain('Which cost center should be charged?');
    expect(cardText(card)).toContain('*Input needed*');
    await answerForm(card, ['CC-1234', '250']);
    const done = await result;
    expect(done.kind).toBe('completed');
    expect(finalText(done)).toContain('Charging to CC-1234 (250)');
    expect(paused).toEqual([pauseId]);
  });

  it("a Workflow RequestInput node's question is a form card; the next node receives the answer", async () => {
    const { result, paused } = runWithPlugin(budgetFlowAgent, 'budget_flow', 'start');
    const pauseId = await waitForPause(paused);
    const card = await inputCardOf(pauseId);
    expect(cardText(card)).toContain('What budget should I approve?');
    // amount, then priority (the third option: urgent)
    await answerForm(card, ['1200', '2']);
    const done = await result;
    expect(done.kind).toBe('completed');
    expect(finalText(done)).toContain('Budget approved: 1200 USD, urgent');
  });
});

describe('credential requests through the plugin and the API', () => {
  it('end the run as unsupported_pause naming the request, with a notice in the channel, never completed', async () => {
    const before = harness.sandbox.messages(OPS).length;
    const { result, paused } = runWithPlugin(calendarAgent, 'calendar', 'calendar monday');
    const done = await result;
    expect(unsupportedOf(done)).toEqual([
      { kind: 'credential', requestId: expect.any(String), tool: 'read_calendar' },
    ]);
    expect(paused).toEqual([]);
    const notice = await noticeAfter(before, 'asked for credentials');
    expect(cardText(notice)).toContain('read_calendar');
    expect(cardText(notice)).toContain('never collects credentials');
  });
});

describe('a confirmation ADK raised no request for, through the plugin', () => {
  it('a tool resumed with its approval that asks again is reported failed with the reason, never executed, and the run ends unsupported_pause', async () => {
    const before = harness.sandbox.messages(OPS).length;
    const { result, paused } = runWithPlugin(twoStageAgent, 'two_stage', 'deploy billing');
    const pauseId = await waitForPause(paused);
    const card = await approvePause(pauseId);
    const done = await result;
    expect(unsupportedOf(done)).toEqual([
      { kind: 'unraised_confirmation', callId: expect.any(String), tool: 'deploy_service' },
    ]);
    expect(await outcomesOf(pauseId)).toEqual([
      {
        outcome: expect.objectContaining({
          status: 'failed',
          detail: expect.stringContaining('asked for another confirmation'),
        }),
      },
    ]);
    const cardNow = harness.sandbox.message(OPS, card.ts);
    expect(cardNow === undefined ? '' : cardText(cardNow)).not.toMatch(/executed/i);
    const notice = await noticeAfter(before, 'cannot be answered');
    expect(cardText(notice)).toContain('deploy_service');
    expect(cardText(notice)).toContain('Change board: sign off');
  });
});

describe('a gated call beside a credential request, approved before the driver closes its pause', () => {
  it('ends unsupported_pause without throwing, and the card says the decision was not used: nothing ran', async () => {
    const auth: AuthConfig = {
      authScheme: { type: 'apiKey', in: 'header', name: 'X-Api-Key' },
      rawAuthCredential: { authType: AuthCredentialTypes.API_KEY },
      credentialKey: 'mix_api_key',
    };
    const agent = new LlmAgent({
      name: 'cred_mix',
      description: 'Reads a calendar and sends invoices.',
      instruction: 'Use the tools.',
      model: new ScriptedLlm([
        {
          pattern: /\bcalendar (\w+)/gi,
          toCall: (match) => ({ name: 'read_calendar', args: { day: String(match[1]) } }),
        },
        {
          pattern: /\binvoice (\d+)/gi,
          toCall: (match) => ({ name: 'send_invoice', args: { amount: Number(match[1]) } }),
        },
      ]),
      tools: [
        new FunctionTool({
          name: 'read_calendar',
          description: 'Read a calendar.',
          parameters: z.object({ day: z.string() }),
          execute: async (_args, context) => {
            if (!context?.getAuthResponse(auth)) context?.requestCredential(auth);
            return { status: 'Waiting for an API key.' };
          },
        }),
        new FunctionTool({
          name: 'send_invoice',
          description: 'Send an invoice.',
          parameters: z.object({ amount: z.number() }),
          requireConfirmation: true,
          execute: async ({ amount }) => ({ status: 'sent', amount }),
        }),
      ],
    });
    const base = `http://127.0.0.1:${harness.app.port}`;
    /**
     * The approval lands between the plugin posting the pause and the driver closing it (a
     * person quick on the card): made certain by approving before the run hands back.
     */
    class ApprovedAtOnce extends ApprovalsPlugin {
      override async afterRunCallback(args: { invocationContext: InvocationContext }) {
        await super.afterRunCallback(args);
        const posted = this.postedPause(args.invocationContext.invocationId);
        if (posted === undefined) return;
        await approvePause(posted.pause.id);
        const decided = await fetch(`${base}/v1/pauses/${posted.pause.id}/decision?wait=10`, {
          headers: { authorization: `Bearer ${KEY}` },
        });
        expect(decided.status).toBe(200);
      }
    }
    const plugin = new ApprovedAtOnce({
      baseUrl: base,
      apiKey: KEY,
      signingSecret: SECRET,
      attempts: 1,
    });
    const runner = new InMemoryRunner({ agent, appName: 'cred_mix', plugins: [plugin] });
    const session = await runner.sessionService.createSession({
      appName: 'cred_mix',
      userId: 'u-mix',
    });
    const done = await runWithApprovals({
      runner,
      plugin,
      userId: session.userId,
      sessionId: session.id,
      newMessage: { role: 'user', parts: [{ text: 'calendar monday and invoice 55' }] },
      waitSeconds: 5,
    });
    expect(unsupportedOf(done)).toEqual([
      { kind: 'credential', requestId: expect.any(String), tool: 'read_calendar' },
    ]);
    const pauseId = [...done.events]
      .reverse()
      .map((event) => plugin.postedPause(event.invocationId)?.pause.id)
      .find((id) => id !== undefined);
    if (pauseId === undefined) throw new Error('expected the posted pause');
    const card = harness.sandbox
      .messages(OPS)
      .findLast((message) => cardText(message).includes('send_invoice'));
    if (card === undefined) throw new Error('expected the card of the pause');
    const told = await harness.sandbox.waitFor(() => {
      const now = harness.sandbox.message(OPS, card.ts);
      return now !== undefined && cardText(now).includes('refused it') ? now : undefined;
    });
    expect(cardText(told)).not.toContain('Agent resumed');
    expect(cardText(told)).toContain('credentials');
    expect(done.events.flatMap((event) => event.content?.parts ?? [])).not.toContainEqual(
      expect.objectContaining({
        functionResponse: expect.objectContaining({
          name: 'send_invoice',
          response: { status: 'paid', amount: 55 },
        }),
      }),
    );
  });
});

describe('a driver that gives up', () => {
  it('cancels its pause, so its card offers no decision that would lead nowhere', async () => {
    const { result } = runWithPlugin(twoStageAgent, 'two_stage', 'deploy search', 0);
    await expect(result).rejects.toThrow('still pausing after 0 decisions');
    const card = harness.sandbox
      .messages(OPS)
      .findLast((message) => cardText(message).includes('search'));
    if (card === undefined) throw new Error('expected the card of the pause');
    const closed = await harness.sandbox.waitFor(() => {
      const now = harness.sandbox.message(OPS, card.ts);
      return now !== undefined && !JSON.stringify(now.blocks).includes(ACTION_IDS.approve)
        ? now
        : undefined;
    });
    expect(cardText(closed)).toContain("the agent's driver gave up");
  });
});

describe('a Workflow LlmAgent node with a gated tool (ADK JS 2.0 re-runs the node input on resume)', () => {
  it('gets one card; the re-request after the approval is a note on that card, not another card, and the run ends unsupported_pause', async () => {
    const payer = new LlmAgent({
      name: 'payer',
      description: 'Pays.',
      instruction: 'Use the tool.',
      model: new ScriptedLlm([
        {
          pattern: /\bpay (\d+)/gi,
          toCall: (match) => ({ name: 'pay_vendor', args: { amount: Number(match[1]) } }),
        },
      ]),
      tools: [
        new FunctionTool({
          name: 'pay_vendor',
          description: 'Pay a vendor.',
          parameters: z.object({ amount: z.number() }),
          requireConfirmation: true,
          execute: async ({ amount }) => ({ status: 'paid', amount }),
        }),
      ],
    });
    const flow = new Workflow({ name: 'loop_flow', edges: [[START, payer]] });
    const { result, paused } = runWithPlugin(flow, 'loop_flow', 'pay 310');
    const pauseId = await waitForPause(paused);
    await approvePause(pauseId);
    const done = await result;
    expect(unsupportedOf(done)).toEqual([
      { kind: 're_request', callId: expect.any(String), tool: 'pay_vendor' },
    ]);
    expect(paused).toEqual([pauseId]);
    const cards = harness.sandbox
      .messages(OPS)
      .filter((message) => JSON.stringify(message.blocks).includes('pay_vendor'));
    expect(cards).toHaveLength(1);
    expect(await outcomesOf(pauseId)).toEqual([
      {
        outcome: expect.objectContaining({
          status: 'failed',
          detail: expect.stringContaining('asked again for this same call'),
        }),
      },
    ]);
  });
});

describe('a Workflow ToolNode whose tool requires confirmation', () => {
  it('never completes silently: ADK raises no request, so the run ends unsupported_pause and a notice names the tool', async () => {
    const before = harness.sandbox.messages(OPS).length;
    const gated = new FunctionTool({
      name: 'wipe_cache',
      description: 'Wipe a cache.',
      parameters: z.object({}),
      requireConfirmation: true,
      execute: async () => ({ status: 'wiped' }),
    });
    // The workflow's input is the user's text; the tool takes an object of arguments.
    const toArgs = new FunctionNode('to_args', () => ({}));
    const flow = new Workflow({
      name: 'tool_flow',
      edges: [[START, toArgs, new ToolNode(gated)]],
    });
    const { result, paused } = runWithPlugin(flow, 'tool_flow', 'go');
    const done = await result;
    expect(unsupportedOf(done)).toEqual([
      { kind: 'unraised_confirmation', callId: expect.any(String), tool: 'wipe_cache' },
    ]);
    expect(paused).toEqual([]);
    const notice = await noticeAfter(before, 'cannot be answered');
    expect(cardText(notice)).toContain('wipe_cache');
  });
});
