import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApprovalsPlugin } from '@adk-slack-approvals/adk-approvals';
import type { SandboxMessage } from '@adk-slack-approvals/slack-sandbox';
import { InMemoryRunner } from '@google/adk';
import { context, SpanKind, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { InMemorySpanExporter, type ReadableSpan, TracerProvider } from '@opentelemetry/sdk-trace';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACTION_IDS } from '../../src/slack/codecs/action-ids.js';
import { rootAgent as paymentsAgent } from '../agents/payments/agent.js';
import { startConversation } from '../support/adk-conversation.js';
import { CHANNELS, type Harness, PEOPLE, startHarness } from '../support/app-harness.js';

/**
 * Approvals inside the agent's trace: a pause posted with a W3C `traceparent` yields the app's
 * spans (pause, card, decision with who decided and the wait, resume) in that trace, under the
 * agent's span; an `/agent` run's pause starts a trace of its own; the TypeScript plugin sends
 * the span active in the agent's process. The real OpenTelemetry SDK
 * with an in-memory exporter, real Redis, the real adk api_server, the Slack sandbox.
 */
const { alice, bob } = PEOPLE;
const OPS = CHANNELS.ops.id;
const KEY = `key-${randomBytes(12).toString('hex')}`;
const SECRET = randomBytes(24).toString('hex');
const sha = (text: string) => createHash('sha256').update(text).digest('hex');
const AGENT_TRACE = randomBytes(16).toString('hex');
const AGENT_SPAN = randomBytes(8).toString('hex');

const spans = new InMemorySpanExporter();
const deliveries: IncomingMessage['headers'][] = [];
let receiver: Server;
let webhookUrl: string;
let harness: Harness;

beforeAll(async () => {
  receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      deliveries.push(req.headers);
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  webhookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks/`;
  harness = await startHarness({
    policy: `
rules:
  - match: { app: payments }
    channel: ${OPS}
    approvers: [${bob.id}]
`,
    apiKeys: `
keys:
  - name: runbooks
    sha256: ${sha(KEY)}
    apps: [payments]
    webhooks: [${webhookUrl}]
    signingSecret: ${SECRET}
`,
    spanExporter: spans,
  });
}, 60_000);

afterAll(async () => {
  await harness?.stop();
  await new Promise((resolve) => receiver?.close(resolve));
});

const click = (card: SandboxMessage) =>
  harness.sandbox.clickButton({
    user: bob.id,
    channel: OPS,
    messageTs: card.ts,
    actionId: ACTION_IDS.approve,
  });

function cardOf(pauseId: string): Promise<SandboxMessage> {
  return harness.sandbox.waitFor(() =>
    harness.sandbox.messages(OPS).find((m) => JSON.stringify(m.blocks).includes(pauseId)),
  );
}

/** The spans of one trace, by name, once `names` have all ended. */
function traceSpans(traceId: string, names: readonly string[]) {
  return harness.sandbox.waitFor(
    () => {
      const found = new Map<string, ReadableSpan>();
      for (const span of spans.getFinishedSpans()) {
        if (span.spanContext().traceId === traceId) found.set(span.name, span);
      }
      return names.every((name) => found.has(name)) && found;
    },
    { timeoutMs: 20_000 },
  );
}

const parentOf = (span: ReadableSpan | undefined) => span?.parentSpanContext?.spanId;

describe('approvals in the agent’s trace', () => {
  it('a pause posted with a traceparent: pause, card, decision and webhook resume in that trace, under the agent’s span', async () => {
    const chat = await startConversation(harness.adk, 'payments', 'u-trace');
    const events = await chat.send('transfer 48213');
    const created = await fetch(`http://127.0.0.1:${harness.app.port}/v1/pauses`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${KEY}`,
        'content-type': 'application/json',
        traceparent: `00-${AGENT_TRACE}-${AGENT_SPAN}-01`,
      },
      body: JSON.stringify({
        app: 'payments',
        userId: chat.userId,
        sessionId: chat.sessionId,
        events,
        resume: { mode: 'webhook', url: `${webhookUrl}payments` },
      }),
    });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };
    await click(await cardOf(id));

    const found = await traceSpans(AGENT_TRACE, [
      'approval.pause',
      'approval.card',
      'approval.decision',
      'approval.resume',
    ]);
    const pause = found.get('approval.pause');
    expect(pause?.kind).toBe(SpanKind.SERVER);
    expect(parentOf(pause)).toBe(AGENT_SPAN);
    expect(pause?.attributes).toMatchObject({
      'approvals.app': 'payments',
      'approvals.pause_id': id,
      'approvals.tools': ['transfer_money'],
      'approvals.source': 'api',
    });
    const pauseSpanId = pause?.spanContext().spanId;
    for (const name of ['approval.card', 'approval.decision', 'approval.resume']) {
      expect(parentOf(found.get(name)), name).toBe(pauseSpanId);
    }
    const decision = found.get('approval.decision');
    expect(decision?.attributes).toMatchObject({
      'approvals.pause_id': id,
      'approvals.tool': 'transfer_money',
      'approvals.outcome': 'approved',
      'approvals.decided_by': 'person',
      'approvals.decider': bob.id,
      'slack.channel': OPS,
    });
    const wait = Number(decision?.attributes['approvals.wait_seconds']);
    expect(wait).toBeGreaterThan(0);
    // The decision span is the wait: from the gate recorded to the click.
    const durationMs = (decision?.duration[0] ?? 0) * 1_000 + (decision?.duration[1] ?? 0) / 1e6;
    expect(durationMs).toBeCloseTo(wait * 1_000, -1);
    expect(found.get('approval.resume')?.attributes).toMatchObject({
      'approvals.resume': 'webhook',
      'approvals.attempt': 1,
    });
    // The webhook's receiver gets the trace too.
    const delivery = deliveries.find((headers) => headers['x-approvals-delivery'] === id);
    expect(delivery?.traceparent).toContain(AGENT_TRACE);
    // Arguments never reach a span.
    const text = JSON.stringify([...found.values()].map((span) => span.attributes));
    expect(text).not.toContain('48213');
  });

  it('an /agent run’s pause starts a trace: the decision and the ADK resume join it', async () => {
    const root = await harness.runAgent(alice.id, OPS, 'payments transfer 43');
    const card = await harness.card(OPS, root.ts);
    const { pause } = await harness.pauseOf(card);
    expect(pause.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    const traceId = pause.traceparent?.split('-')[1] ?? '';
    expect(traceId).not.toBe(AGENT_TRACE);
    await click(card);
    await harness.reply(OPS, root.ts, 'Tool transfer_money returned');

    const found = await traceSpans(traceId, [
      'approval.pause',
      'approval.card',
      'approval.decision',
      'approval.resume',
    ]);
    const pauseSpan = found.get('approval.pause');
    expect(pauseSpan?.parentSpanContext).toBeUndefined();
    expect(pauseSpan?.attributes['approvals.source']).toBe('slack');
    expect(parentOf(found.get('approval.decision'))).toBe(pauseSpan?.spanContext().spanId);
    expect(found.get('approval.resume')?.attributes).toMatchObject({
      'approvals.resume': 'adk',
      'approvals.pause_id': pause.id,
    });
    expect(found.get('approval.resume')?.status.code).not.toBe(2);
  });

  it('the TypeScript plugin sends the active span’s traceparent: the approval joins the agent’s own trace', async () => {
    // The agent's process, as a web app with the OpenTelemetry SDK runs it: a request span
    // around the run, in which the plugin posts the pause.
    const provider = new TracerProvider();
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    trace.setGlobalTracerProvider(provider);
    let requestSpan: { traceId: string; spanId: string } | undefined;
    try {
      const runner = new InMemoryRunner({
        agent: paymentsAgent,
        appName: 'payments',
        plugins: [
          new ApprovalsPlugin({
            baseUrl: `http://127.0.0.1:${harness.app.port}`,
            apiKey: KEY,
            signingSecret: SECRET,
            attempts: 1,
          }),
        ],
      });
      const session = await runner.sessionService.createSession({
        appName: 'payments',
        userId: 'u-traced',
      });
      await trace.getTracer('agent-web-app').startActiveSpan('POST /transfers', async (span) => {
        requestSpan = span.spanContext();
        for await (const _ of runner.runAsync({
          userId: session.userId,
          sessionId: session.id,
          newMessage: { role: 'user', parts: [{ text: 'transfer 92' }] },
        })) {
          // The run pauses on the confirmation; the plugin posts it as the run ends.
        }
        span.end();
      });
    } finally {
      trace.disable();
      context.disable();
    }
    const traceId = requestSpan?.traceId ?? '';
    const found = await traceSpans(traceId, ['approval.pause', 'approval.card']);
    expect(parentOf(found.get('approval.pause'))).toBe(requestSpan?.spanId);
    const card = await cardOf(
      String(found.get('approval.pause')?.attributes['approvals.pause_id']),
    );
    expect((await harness.pauseOf(card)).pause.traceparent).toContain(traceId);
  });
});
