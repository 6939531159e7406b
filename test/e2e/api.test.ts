import { createHash, createHmac, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  attestationMessage,
  type GateAttestation,
} from '@adk-slack-approvals/adk-approvals/attestation';
import type { SandboxMessage } from '@adk-slack-approvals/slack-sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACTION_IDS } from '../../src/slack/codecs/action-ids.js';
import {
  countToolRuns,
  results,
  events as runEvents,
  startConversation,
} from '../support/adk-conversation.js';
import { CHANNELS, type Harness, PEOPLE, startHarness } from '../support/app-harness.js';

/**
 * The approvals API against the whole app: real Redis, the real adk api_server with the test
 * agents, the Slack sandbox. An agent elsewhere is played by a session on the api_server whose
 * events the test posts, as a plugin or runner would.
 */
const { bob } = PEOPLE;
const OPS = CHANNELS.ops.id;
const KEY = `key-${randomBytes(12).toString('hex')}`;
const OTHER_KEY = `key-${randomBytes(12).toString('hex')}`;
const SECRET = randomBytes(24).toString('hex');
const sha = (text: string) => createHash('sha256').update(text).digest('hex');

let webhookServer: Server;
let webhookUrl: string;
const deliveries: { headers: IncomingMessage['headers']; body: string }[] = [];
let webhookFailuresLeft = 0;

const POLICY = `
rules:
  - match: { app: payments }
    channel: ${OPS}
    approvers: [${bob.id}]
`;

let harness: Harness;
let base: string;

beforeAll(async () => {
  webhookServer = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (webhookFailuresLeft > 0) {
        webhookFailuresLeft -= 1;
        res.writeHead(503).end();
        return;
      }
      deliveries.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => webhookServer.listen(0, '127.0.0.1', resolve));
  webhookUrl = `http://127.0.0.1:${(webhookServer.address() as AddressInfo).port}/hooks/`;
  harness = await startHarness({
    policy: POLICY,
    apiKeys: `
keys:
  - name: runbooks
    sha256: ${sha(KEY)}
    apps: [payments]
    webhooks: [${webhookUrl}]
    signingSecret: ${SECRET}
  - name: others
    sha256: ${sha(OTHER_KEY)}
    apps: [time_off]
    signingSecret: ${SECRET}
`,
    webhook: { timeoutMs: 2_000, backoffMs: 200, maxBackoffMs: 400 },
  });
  base = `http://127.0.0.1:${harness.app.port}`;
}, 60_000);

afterAll(async () => {
  await harness?.stop();
  await new Promise<void>((resolve) => webhookServer.close(() => resolve()));
});

function api(
  path: string,
  init: { method?: string; body?: unknown; key?: string; headers?: Record<string, string> } = {},
) {
  return fetch(`${base}${path}`, {
    method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
    headers: {
      authorization: `Bearer ${init.key ?? KEY}`,
      'content-type': 'application/json',
      ...init.headers,
    },
    ...(init.body === undefined
      ? {}
      : { body: typeof init.body === 'string' ? init.body : JSON.stringify(init.body) }),
  });
}

/** A real paused session on the api_server and the events a plugin would post. */
async function pausedTransfer(amount: number) {
  const chat = await startConversation(harness.adk, 'payments', 'u-api');
  const events = await chat.send(`transfer ${amount}`);
  return { chat, events };
}

function cardOf(pauseId: string): Promise<SandboxMessage> {
  return harness.sandbox.waitFor(
    () =>
      harness.sandbox
        .messages(OPS)
        .find(
          (m) =>
            JSON.stringify(m.blocks).includes(pauseId) &&
            JSON.stringify(m.blocks).includes(ACTION_IDS.approve),
        ),
    { timeoutMs: 15_000 },
  );
}

function approve(card: SandboxMessage) {
  return harness.sandbox.clickButton({
    user: bob.id,
    channel: OPS,
    messageTs: card.ts,
    actionId: ACTION_IDS.approve,
  });
}

/** Waits for a condition the app reaches asynchronously (the sandbox's waitFor is synchronous). */
async function until(condition: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 400; i++) {
    if (await condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('the condition was not reached in 20 s');
}

describe('the approvals API', () => {
  it('poll mode: one card, the long-poll answers after the vote with an attested newMessage, and the agent resumes itself once', async () => {
    const { chat, events } = await pausedTransfer(250);
    const body = {
      app: 'payments',
      userId: chat.userId,
      sessionId: chat.sessionId,
      events,
      resume: { mode: 'poll' },
      title: 'Nightly <b>transfer</b>',
    };
    const created = await api('/v1/pauses', { body });
    expect(created.status).toBe(201);
    const pause = (await created.json()) as {
      id: string;
      gates: { callId: string; tool: string }[];
      card: { channel: string; ts: string };
    };
    expect(pause.gates.map((g) => g.tool)).toEqual(['transfer_money']);
    expect(pause.card.channel).toBe(OPS);

    const again = await api('/v1/pauses', { body });
    expect(again.status).toBe(200);
    expect(((await again.json()) as { id: string }).id).toBe(pause.id);

    const early = await api(`/v1/pauses/${pause.id}/decision`);
    expect(early.status).toBe(202);

    const order: string[] = [];
    const waiting = api(`/v1/pauses/${pause.id}/decision?wait=30`).then(async (response) => {
      order.push('decision');
      return response;
    });
    const card = await cardOf(pause.id);
    expect(
      harness.sandbox.messages(OPS).filter((m) => JSON.stringify(m.blocks).includes(pause.id)),
    ).toHaveLength(1);
    expect(JSON.stringify(card.blocks)).toContain('Nightly &lt;b&gt;transfer&lt;/b&gt;');
    order.push('vote');
    await approve(card);
    const decided = await waiting;
    expect(order).toEqual(['vote', 'decision']);
    expect(decided.status).toBe(200);
    const decision = (await decided.json()) as {
      status: string;
      gates: {
        callId: string;
        confirmed: boolean;
        decidedBy: { kind: string; id: string; name: string };
      }[];
      newMessage: { role: string; parts: unknown[] };
      attestation: { gates: GateAttestation[] };
    };
    expect(decision.status).toBe('decided');
    expect(decision.gates[0]).toMatchObject({
      confirmed: true,
      // Bob's display name in the sandbox, from users.info.
      decidedBy: { kind: 'person', id: bob.id, name: bob.name },
    });
    // Nobody has taken the decision yet: the card says it is ready, not that the agent resumed.
    const cardSays = (words: string) =>
      harness.sandbox.waitFor(
        () => {
          const now = harness.sandbox.messages(OPS).find((m) => m.ts === card.ts);
          return JSON.stringify(now?.blocks).includes(words) ? true : undefined;
        },
        { timeoutMs: 10_000 },
      );
    await cardSays('Decision ready for the agent');
    expect(
      JSON.stringify(harness.sandbox.messages(OPS).find((m) => m.ts === card.ts)),
    ).not.toContain('Agent resumed');
    const attested = decision.attestation.gates[0];
    if (attested === undefined) throw new Error('no attestation');
    const expected = createHmac('sha256', SECRET)
      .update(attestationMessage({ pauseId: pause.id, ...attested }))
      .digest('hex');
    expect(attested.signature).toBe(expected);
    expect(attested.argsSha256).toBe(sha('{"amount":250}'));

    // The agent resumes itself with the ready-made message.
    const resumed = await runEvents(
      harness.adk.runSse({
        appName: 'payments',
        userId: chat.userId,
        sessionId: chat.sessionId,
        newMessage: decision.newMessage as never,
      }),
    );
    expect(results(resumed).map((r) => r.name)).toEqual(['transfer_money']);
    expect(await countToolRuns(harness.adk, chat, 'transfer_money')).toBe(1);

    // Its claim before running the call is what tells the card it took the decision.
    const claimed = await api(`/v1/pauses/${pause.id}/claim`, {
      body: { callId: pause.gates[0]?.callId },
    });
    expect(claimed.status).toBe(200);
    await cardSays('The agent took the decision');

    const outcome = await api(`/v1/pauses/${pause.id}/outcome`, {
      body: { callId: pause.gates[0]?.callId, status: 'executed', detail: 'moved 250' },
    });
    expect(outcome.status).toBe(200);
    const read = (await (await api(`/v1/pauses/${pause.id}`)).json()) as {
      status: string;
      gates: { outcome?: { status: string } }[];
    };
    expect(read).toMatchObject({
      status: 'decided',
      gates: [{ outcome: { status: 'executed' }, decidedBy: { kind: 'person', id: bob.id } }],
    });
    const trail = await harness.store.audit.readAudit({ pauseId: pause.id });
    expect(trail.map((e) => e.event)).toContain('outcome_reported');
  });

  it('adk mode: the app resumes the session on the default target and the tool runs once', async () => {
    const { chat, events } = await pausedTransfer(40);
    const created = await api('/v1/pauses', {
      body: {
        app: 'payments',
        userId: chat.userId,
        sessionId: chat.sessionId,
        events,
        resume: { mode: 'adk' },
      },
    });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };
    await approve(await cardOf(id));
    await until(
      async () => (await harness.store.pauses.getPause(id))?.pause.resume.state === 'resumed',
    );
    const session = await harness.adk.getSession('payments', chat.userId, chat.sessionId);
    expect(results(session.events).map((r) => [r.name, r.status])).toEqual([
      ['transfer_money', 'ok'],
    ]);
  });

  it('thread: the card goes into the thread the request names (where a person talked to the agent), and a channel beside it must agree', async () => {
    const asked = harness.sandbox.postAsPerson({
      user: bob.id,
      channel: OPS,
      text: 'please move 45 to savings',
    });
    const { chat, events } = await pausedTransfer(45);
    const body = {
      app: 'payments',
      userId: chat.userId,
      sessionId: chat.sessionId,
      events,
      resume: { mode: 'poll' },
      thread: { channel: OPS, ts: asked.ts },
    };
    const mismatch = await api('/v1/pauses', { body: { ...body, channel: 'C0ELSEWHERE1' } });
    expect(mismatch.status).toBe(422);
    expect(JSON.stringify(await mismatch.json())).toContain('differs from thread.channel');
    const created = await api('/v1/pauses', { body });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };
    const card = await harness.sandbox.waitFor(() =>
      harness.sandbox
        .replies(OPS, asked.ts)
        .find((message) => JSON.stringify(message.blocks).includes(id)),
    );
    expect(card.threadTs).toBe(asked.ts);
    expect(JSON.stringify(card.blocks)).toContain(ACTION_IDS.approve);
    expect(harness.sandbox.messages(OPS).some((m) => JSON.stringify(m.blocks).includes(id))).toBe(
      false,
    );
    await api(`/v1/pauses/${id}/cancel`, { body: {} });
  });

  it('webhook mode: after a failed attempt the decision arrives signed, and the card shows it delivered', async () => {
    const { chat, events } = await pausedTransfer(60);
    webhookFailuresLeft = 1;
    const created = await api('/v1/pauses', {
      body: {
        app: 'payments',
        userId: chat.userId,
        sessionId: chat.sessionId,
        events,
        resume: { mode: 'webhook', url: `${webhookUrl}pauses` },
      },
    });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };
    await approve(await cardOf(id));
    const delivery = await harness.sandbox.waitFor(
      () => deliveries.find((d) => d.headers['x-approvals-delivery'] === id),
      { timeoutMs: 20_000 },
    );
    const signature = String(delivery.headers['x-approvals-signature']);
    const match = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(signature);
    expect(match).not.toBeNull();
    expect(match?.[2]).toBe(
      createHmac('sha256', SECRET).update(`${match?.[1]}.${delivery.body}`).digest('hex'),
    );
    expect(JSON.parse(delivery.body)).toMatchObject({
      type: 'pause.decided',
      id,
      status: 'decided',
    });
    await until(
      async () => (await harness.store.notes.readNotes(id)).delivery?.state === 'delivered',
    );
    expect((await harness.store.notes.readNotes(id)).delivery?.attempts).toBe(2);
  });

  it('cancel calls the pause off and the card says the agent cancelled it', async () => {
    const { chat, events } = await pausedTransfer(70);
    const { id } = (await (
      await api('/v1/pauses', {
        body: {
          app: 'payments',
          userId: chat.userId,
          sessionId: chat.sessionId,
          events,
          resume: { mode: 'poll' },
        },
      })
    ).json()) as { id: string };
    const card = await cardOf(id);
    expect(
      (await api(`/v1/pauses/${id}/cancel`, { body: { reason: 'alert resolved' } })).status,
    ).toBe(200);
    await harness.sandbox.waitFor(
      () => {
        const now = harness.sandbox.messages(OPS).find((m) => m.ts === card.ts);
        const text = JSON.stringify(now?.blocks);
        // The agent's call-off, in the card's one word for it: not a requester's withdrawal.
        return text.includes('Cancelled by the agent (API key') &&
          text.includes('Reason: alert resolved') &&
          !text.includes('Withdrawn')
          ? true
          : undefined;
      },
      { timeoutMs: 10_000 },
    );
    const decision = (await (await api(`/v1/pauses/${id}/decision`)).json()) as { status: string };
    expect(decision.status).toBe('cancelled');
  });

  it('refuses what it must: bad key 401, other app 403, unlisted webhook 403, unknown target 422, 1 MB 413, malformed events 422 naming the field, idempotency conflicts 409', async () => {
    const { chat, events } = await pausedTransfer(80);
    const body = {
      app: 'payments',
      userId: chat.userId,
      sessionId: chat.sessionId,
      events,
      resume: { mode: 'poll' },
    };
    expect((await api('/v1/pauses', { body, key: 'wrong' })).status).toBe(401);
    expect((await api('/v1/pauses', { body, key: OTHER_KEY })).status).toBe(403);
    const elsewhere = await api('/v1/pauses', {
      body: { ...body, resume: { mode: 'webhook', url: 'http://169.254.169.254/latest' } },
    });
    expect(elsewhere.status).toBe(403);
    expect(JSON.stringify(await elsewhere.json())).not.toContain('169.254');
    const lookalike = await api('/v1/pauses', {
      body: {
        ...body,
        resume: { mode: 'webhook', url: webhookUrl.replace(/\/hooks\/$/, '/hooksevil') },
      },
    });
    expect(lookalike.status).toBe(403);
    const target = await api('/v1/pauses', {
      body: { ...body, resume: { mode: 'adk', target: 'nowhere' } },
    });
    expect(target.status).toBe(422);
    expect(((await target.json()) as { problems: string[] }).problems[0]).toMatch(
      /^resume\.target:/,
    );
    expect((await api('/v1/pauses', { body: 'x'.repeat(1024 * 1024 + 1) })).status).toBe(413);
    const broken = structuredClone(events) as {
      content?: { parts?: { functionCall?: { args?: unknown } }[] };
    }[];
    const gateEvent = broken.findIndex((e) =>
      JSON.stringify(e).includes('adk_request_confirmation'),
    );
    const part = broken[gateEvent]?.content?.parts?.[0]?.functionCall;
    if (part) part.args = { toolConfirmation: {} };
    const malformed = await api('/v1/pauses', { body: { ...body, events: broken } });
    expect(malformed.status).toBe(422);
    expect(((await malformed.json()) as { problems: string[] }).problems.join('\n')).toContain(
      `events[${gateEvent}].content.parts[0].functionCall.args.originalFunctionCall`,
    );
    const noGate = await api('/v1/pauses', {
      body: {
        ...body,
        events: events
          .slice(0, 1)
          .filter((e) => !JSON.stringify(e).includes('adk_request_confirmation')),
      },
    });
    expect(noGate.status).toBe(422);
    expect(((await noGate.json()) as { problems: string[] }).problems[0]).toMatch(
      /^events: no adk_request_confirmation, adk_request_input or adk_request_credential/,
    );
    const idem = { 'idempotency-key': `k-${randomBytes(4).toString('hex')}` };
    expect((await api('/v1/pauses', { body, headers: idem })).status).toBe(201);
    expect((await api('/v1/pauses', { body, headers: idem })).status).toBe(200);
    expect(
      (await api('/v1/pauses', { body: { ...body, title: 'other' }, headers: idem })).status,
    ).toBe(409);
  });

  it('the same pause posted 20 times at once through two replicas is one pause with one card, and every answer names it', async () => {
    const second = await startHarness({
      policy: POLICY,
      apiKeys: `keys:\n  - name: runbooks\n    sha256: ${sha(KEY)}\n    apps: [payments]\n    signingSecret: ${SECRET}\n`,
      keyPrefix: harness.keyPrefix,
    });
    try {
      const { chat, events } = await pausedTransfer(90);
      const body = {
        app: 'payments',
        userId: chat.userId,
        sessionId: chat.sessionId,
        events,
        resume: { mode: 'poll' },
      };
      const bases = [base, `http://127.0.0.1:${second.app.port}`];
      const answers = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          fetch(`${bases[i % 2]}/v1/pauses`, {
            method: 'POST',
            headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
            body: JSON.stringify(body),
          }),
        ),
      );
      const statuses = answers.map((a) => a.status).sort();
      expect(statuses.filter((s) => s === 201)).toHaveLength(1);
      expect(statuses.filter((s) => s === 200)).toHaveLength(19);
      const bodies = await Promise.all(
        answers.map(async (a) => (await a.json()) as { id: string; card: { ts: string | null } }),
      );
      const ids = new Set(bodies.map((body) => body.id));
      expect(ids.size).toBe(1);
      const [id] = [...ids];
      // Whichever replica created the pause posts its card, in its own sandbox.
      const cardsOfPause = () =>
        [...harness.sandbox.messages(OPS), ...second.sandbox.messages(OPS)].filter((m) =>
          JSON.stringify(m.blocks).includes(id ?? ''),
        );
      await Promise.any(
        [harness.sandbox, second.sandbox].map((sandbox) =>
          sandbox.waitFor(() => cardsOfPause()[0], { timeoutMs: 15_000 }),
        ),
      );
      expect(cardsOfPause()).toHaveLength(1);
      // Every answer names that card: those that found the pause recorded waited for its card.
      expect(new Set(bodies.map((body) => body.card.ts))).toEqual(new Set([cardsOfPause()[0]?.ts]));
    } finally {
      await second.stop();
    }
  });
});
