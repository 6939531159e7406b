import { createHash, randomBytes } from 'node:crypto';
import {
  ApprovalsPlugin,
  decisionSchema,
  type ResumeMode,
  runWithApprovals,
} from '@adk-slack-approvals/adk-approvals';
import type { SandboxMessage } from '@adk-slack-approvals/slack-sandbox';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { ACTION_IDS } from '../../src/slack/codecs/action-ids.js';
import { rootAgent as timeOffAgent } from '../agents/time_off/agent.js';
import { startConversation } from '../support/adk-conversation.js';
import { apiCall } from '../support/api-calls.js';
import { CHANNELS, cardText, type Harness, PEOPLE, startHarness } from '../support/app-harness.js';
import { waitForPauseCard } from '../support/pause-card.js';
import {
  type DecisionReceiver,
  pausedOn,
  pluginRunner,
  startDecisionReceiver,
} from '../support/plugin-runs.js';

/**
 * A resume the agent refused (ADK's IntentMismatchError: it stores the answer, then refuses it,
 * and nothing runs) shows as refused on the card, whichever path took the decision to the
 * agent: the plugin's `runWithApprovals` (poll), an agent polling the API itself, a webhook
 * receiver, and the app's own resume (`adk` mode). Never "Agent resumed".
 *
 * `time_off`'s `swap_shift` asks for confirmation itself without saying it requires one: ADK JS
 * 2.0 refuses its answer with `confirmation_not_required` (see the agent).
 */
const { bob } = PEOPLE;
const OPS = CHANNELS.ops.id;
const KEY = `key-${randomBytes(12).toString('hex')}`;
const SECRET = randomBytes(24).toString('hex');

let harness: Harness;
let base: string;
let receiver: DecisionReceiver;

beforeAll(async () => {
  receiver = await startDecisionReceiver();
  harness = await startHarness({
    policy: `
rules:
  - match: { app: time_off }
    channel: ${OPS}
    approvers: [${bob.id}]
`,
    apiKeys: `
keys:
  - name: refusals
    sha256: ${createHash('sha256').update(KEY).digest('hex')}
    apps: [time_off]
    webhooks: [${receiver.url}]
    signingSecret: ${SECRET}
`,
    webhook: { timeoutMs: 10_000, backoffMs: 200, maxBackoffMs: 400 },
  });
  base = `http://127.0.0.1:${harness.app.port}`;
}, 120_000);

afterAll(async () => {
  await harness?.stop();
  await receiver?.close();
});

function api(path: string, body?: unknown) {
  return apiCall(base, KEY, path, { body });
}

/** A time_off runner of its own with the plugin (resuming by `resume`). */
function timeOffRun(resume?: ResumeMode) {
  const plugin = new ApprovalsPlugin({
    baseUrl: base,
    apiKey: KEY,
    signingSecret: SECRET,
    attempts: 1,
    ...(resume === undefined ? {} : { resume }),
  });
  return pluginRunner(timeOffAgent, 'time_off', plugin, 'u-refusals');
}

async function approve(pauseId: string): Promise<SandboxMessage> {
  const card = await waitForPauseCard(harness.sandbox, OPS, pauseId);
  await harness.sandbox.clickButton({
    user: bob.id,
    channel: OPS,
    messageTs: card.ts,
    actionId: ACTION_IDS.approve,
  });
  return card;
}

/** The card once it says the agent refused the decision; it must never have said "resumed". */
async function refusedCard(card: SandboxMessage): Promise<SandboxMessage> {
  const refused = await harness.sandbox.waitFor(
    () => {
      const now = harness.sandbox.message(OPS, card.ts);
      return now !== undefined && cardText(now).includes('refused it') ? now : undefined;
    },
    { timeoutMs: 15_000 },
  );
  expect(cardText(refused)).not.toContain('Agent resumed');
  expect(cardText(refused)).toContain('confirmation_not_required');
  expect(JSON.stringify(refused.blocks)).not.toContain(ACTION_IDS.retryResume);
  return refused;
}

const pauseRead = z.object({ resume: z.object({ state: z.string() }) });

async function resumeStateOf(pauseId: string): Promise<string> {
  return pauseRead.parse(await (await api(`/v1/pauses/${pauseId}`)).json()).resume.state;
}

/** A paused `swap_shift` on the real api_server, posted through the API with `resume`. */
async function postedSwap(shift: number, resume: unknown) {
  const chat = await startConversation(harness.adk, 'time_off', 'u-refusals');
  const events = await chat.send(`swap shift ${shift}`);
  const created = await api('/v1/pauses', {
    app: 'time_off',
    userId: chat.userId,
    sessionId: chat.sessionId,
    events,
    resume,
  });
  expect(created.status).toBe(201);
  const pause = z
    .object({ id: z.string(), gates: z.array(z.object({ callId: z.string() })) })
    .parse(await created.json());
  return { chat, pause };
}

describe('a resume the agent refused shows as refused on every path', () => {
  it('the plugin (runWithApprovals): the run ends `refused` naming the reason, and the card says so', async () => {
    const run = await timeOffRun();
    const paused: string[] = [];
    const result = runWithApprovals({
      ...run,
      newMessage: { role: 'user', parts: [{ text: 'swap shift 7' }] },
      waitSeconds: 5,
      onPause: (pause) => paused.push(pause.id),
    });
    const pauseId = await vi.waitFor(
      () => {
        const [first] = paused;
        if (first === undefined) throw new Error('no pause posted yet');
        return first;
      },
      { timeout: 15_000, interval: 20 },
    );
    const card = await approve(pauseId);
    expect(await result).toMatchObject({
      kind: 'refused',
      pauseId,
      reason: expect.stringContaining('confirmation_not_required'),
    });
    await refusedCard(card);
    expect(await resumeStateOf(pauseId)).toBe('refused');
  });

  it('an agent that polls the API itself reports the refusal (`refused`), and the card says so', async () => {
    const { chat, pause } = await postedSwap(8, { mode: 'poll' });
    const card = await approve(pause.id);
    const decided = await api(`/v1/pauses/${pause.id}/decision?wait=10`);
    const { newMessage } = decisionSchema.parse(await decided.json());
    if (newMessage === undefined) throw new Error('expected a newMessage');
    // ADK's refusal arrives as an error frame once the answer is stored; the agent tells the service.
    const refusal = await (async () => {
      try {
        for await (const _item of harness.adk.runSse({
          appName: 'time_off',
          userId: chat.userId,
          sessionId: chat.sessionId,
          newMessage,
        })) {
          // read to the end
        }
        return 'no refusal';
      } catch (error) {
        return error instanceof Error ? error.message : String(error);
      }
    })();
    expect(refusal).toContain('confirmation_not_required');
    const reported = await api(`/v1/pauses/${pause.id}/outcome`, {
      callId: pause.gates[0]?.callId,
      status: 'refused',
      detail: refusal,
    });
    expect(reported.status).toBe(200);
    await refusedCard(card);
    expect(await resumeStateOf(pause.id)).toBe('refused');
  });

  it('a webhook receiver that resumes its runner with the plugin: the refusal is reported, and the card says so', async () => {
    const run = await timeOffRun({ mode: 'webhook', url: `${receiver.url}decided` });
    const posted = await pausedOn(run, 'swap shift 9');
    const outcome = receiver.resumes(posted.id, run);
    const card = await approve(posted.id);
    expect(await outcome).toMatchObject({
      kind: 'refused',
      reason: expect.stringContaining('confirmation_not_required'),
    });
    await refusedCard(card);
    expect(await resumeStateOf(posted.id)).toBe('refused');
  });

  it('the app resuming the agent itself (`adk` mode): the card says the agent refused it', async () => {
    const { pause } = await postedSwap(10, { mode: 'adk' });
    const card = await approve(pause.id);
    await refusedCard(card);
    expect(await resumeStateOf(pause.id)).toBe('refused');
  });
});
