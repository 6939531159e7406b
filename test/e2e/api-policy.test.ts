import { createHash, createHmac, randomBytes } from 'node:crypto';
import {
  attestationMessage,
  type GateAttestation,
} from '@adk-slack-approvals/adk-approvals/attestation';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACTION_IDS } from '../../src/slack/codecs/action-ids.js';
import { startConversation } from '../support/adk-conversation.js';
import { apiCall } from '../support/api-calls.js';
import { CHANNELS, type Harness, PEOPLE, startHarness } from '../support/app-harness.js';

/**
 * Policy outcomes for pauses posted through the approvals API (an agent that runs elsewhere):
 * `allow` and `deny` answer the long-poll at once, with the policy as the decider and an
 * attestation the plugin verifies, and no card to click. Real app, Redis and ADK api_server.
 */
const { bob } = PEOPLE;
const OPS = CHANNELS.ops.id;
const KEY = `key-${randomBytes(12).toString('hex')}`;
const SECRET = randomBytes(24).toString('hex');
const sha = (text: string) => createHash('sha256').update(text).digest('hex');

const POLICY = `
defaults:
  channel: ${OPS}
rules:
  - name: small-transfers
    match: { app: payments, tool: transfer_money }
    when: args.amount <= 100 && source == "api"
    decision: allow
  - name: treasury-only
    match: { app: payments, tool: transfer_money }
    when: args.amount > 5000
    decision: deny
    reason: "above 5000 ({{args.amount}}): the treasury desk"
  - match: { app: payments }
    channel: ${OPS}
    approvers: [${bob.id}]
`;

let harness: Harness;

beforeAll(async () => {
  harness = await startHarness({
    policy: POLICY,
    apiKeys: `
keys:
  - name: runbooks
    sha256: ${sha(KEY)}
    apps: [payments]
    signingSecret: ${SECRET}
`,
  });
}, 60_000);
afterAll(async () => {
  await harness?.stop();
});

function api(path: string, body?: unknown) {
  return apiCall(`http://127.0.0.1:${harness.app.port}`, KEY, path, { body });
}

interface Decision {
  status: string;
  gates: { confirmed: boolean; reason?: string; decidedBy: unknown }[];
  attestation: { gates: GateAttestation[] };
}

/** A real paused session on the api_server, posted as a plugin would (poll mode). */
async function postPause(amount: number): Promise<string> {
  const user = `u-${randomBytes(4).toString('hex')}`;
  const chat = await startConversation(harness.adk, 'payments', user);
  const events = await chat.send(`transfer ${amount}`);
  const created = await api('/v1/pauses', {
    app: 'payments',
    userId: chat.userId,
    sessionId: chat.sessionId,
    events,
    resume: { mode: 'poll' },
  });
  expect(created.status).toBe(201);
  return ((await created.json()) as { id: string }).id;
}

async function postAndWait(amount: number): Promise<{ id: string; decision: Decision }> {
  const id = await postPause(amount);
  const answered = await api(`/v1/pauses/${id}/decision?wait=10`);
  expect(answered.status).toBe(200);
  return { id, decision: (await answered.json()) as Decision };
}

function expectValidAttestation(id: string, decision: Decision): void {
  const attested = decision.attestation.gates[0];
  if (attested === undefined) throw new Error('no attestation');
  const expected = createHmac('sha256', SECRET)
    .update(attestationMessage({ pauseId: id, ...attested }))
    .digest('hex');
  expect(attested.signature).toBe(expected);
}

function buttonsFor(id: string) {
  return harness.sandbox
    .messages(OPS)
    .filter(
      (m) =>
        JSON.stringify(m.blocks).includes(id) &&
        JSON.stringify(m.blocks).includes(ACTION_IDS.approve),
    );
}

describe('policy outcomes through the approvals API', () => {
  it('allow: the long-poll answers with the policy as decider and a valid attestation, and no card', async () => {
    const { id, decision } = await postAndWait(40);
    expect(decision.status).toBe('decided');
    expect(decision.gates[0]).toMatchObject({
      confirmed: true,
      decidedBy: {
        kind: 'policy',
        id: 'small-transfers',
        policyVersion: expect.stringMatching(/^[0-9a-f]{64}$/),
      },
    });
    expect(decision.attestation.gates[0]).toMatchObject({ confirmed: true });
    expectValidAttestation(id, decision);
    expect(buttonsFor(id)).toEqual([]);
    const line = harness.sandbox.messages(OPS).find((m) => m.text.includes('auto-approved'));
    expect(line?.text).toContain('small-transfers');
  });

  it('deny: the answer is a refusal with the reason, attested, and no card', async () => {
    const { id, decision } = await postAndWait(9000);
    expect(decision.gates[0]).toMatchObject({
      confirmed: false,
      reason: 'above 5000 (9000): the treasury desk',
      decidedBy: { kind: 'policy', id: 'treasury-only' },
    });
    expect(decision.attestation.gates[0]).toMatchObject({ confirmed: false });
    expectValidAttestation(id, decision);
    expect(buttonsFor(id)).toEqual([]);
  });

  it('ask: a call between the tiers gets a card for a person', async () => {
    const id = await postPause(700);
    await harness.sandbox.waitFor(() => buttonsFor(id)[0], { timeoutMs: 15_000 });
    expect((await api(`/v1/pauses/${id}/decision`)).status).toBe(202);
  });
});
