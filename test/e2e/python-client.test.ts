import { spawn, spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ACTION_IDS } from '../../src/slack/codecs/action-ids.js';
import { startConversation } from '../support/adk-conversation.js';
import { CHANNELS, type Harness, PEOPLE, startHarness } from '../support/app-harness.js';
import { waitForPauseCard } from '../support/pause-card.js';

/**
 * The stdlib-only Python client (clients/python) against the running app: python3 posts a real
 * paused session's events, long-polls, checks the attestation offline and reports an outcome.
 * Skipped, and said so, where python3 is missing.
 */
const PYTHON = spawnSync('python3', ['--version']).status === 0;
const { bob } = PEOPLE;
const OPS = CHANNELS.ops.id;
const KEY = `key-${randomBytes(12).toString('hex')}`;
const SECRET = randomBytes(24).toString('hex');
const SCRIPT = fileURLToPath(
  new URL('../../clients/python/examples/poll_once.py', import.meta.url),
);

let harness: Harness;

beforeAll(async () => {
  if (!PYTHON) return;
  harness = await startHarness({
    policy: `
rules:
  - match: { app: payments }
    channel: ${OPS}
    approvers: [${bob.id}]
`,
    apiKeys: `
keys:
  - name: python
    sha256: ${createHash('sha256').update(KEY).digest('hex')}
    apps: [payments]
    signingSecret: ${SECRET}
`,
  });
}, 60_000);

afterAll(async () => {
  await harness?.stop();
});

const stepLine = z.discriminatedUnion('step', [
  z.object({ step: z.literal('created'), id: z.string(), sameIdAgain: z.boolean() }),
  z.object({
    step: z.literal('decided'),
    confirmed: z.array(z.boolean()),
    decidedBy: z.array(z.object({ kind: z.string(), id: z.string(), name: z.string() })),
    verified: z.array(z.boolean()),
    forgedVerified: z.array(z.boolean()),
    hasNewMessage: z.boolean(),
    claims: z.array(z.boolean()),
    outcome: z.string().nullable(),
  }),
]);

describe.skipIf(!PYTHON)('the Python client against the running app', () => {
  it('creates a pause (idempotently), long-polls the approval, verifies its attestation, claims the call once and reports the outcome', async () => {
    const chat = await startConversation(harness.adk, 'payments', 'u-python');
    const events = await chat.send('transfer 75');
    const child = spawn('python3', [SCRIPT], {
      env: {
        ...process.env,
        APPROVALS_URL: `http://127.0.0.1:${harness.app.port}`,
        APPROVALS_API_KEY: KEY,
        APPROVALS_SIGNING_SECRET: SECRET,
      },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const stderr: string[] = [];
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk.toString('utf8')));
    child.stdin.end(
      JSON.stringify({
        app: 'payments',
        userId: chat.userId,
        sessionId: chat.sessionId,
        events,
        resume: { mode: 'poll' },
      }),
    );
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    const steps: z.infer<typeof stepLine>[] = [];
    const created = new Promise<string>((resolve) => {
      createInterface({ input: child.stdout }).on('line', (line) => {
        const step = stepLine.parse(JSON.parse(line));
        steps.push(step);
        if (step.step === 'created') resolve(step.id);
      });
    });
    const pauseId = await Promise.race([
      created,
      exited.then((code) => {
        throw new Error(`python3 exited (${code}) before creating: ${stderr.join('')}`);
      }),
    ]);
    const card = await waitForPauseCard(harness.sandbox, OPS, pauseId);
    await harness.sandbox.clickButton({
      user: bob.id,
      channel: OPS,
      messageTs: card.ts,
      actionId: ACTION_IDS.approve,
    });
    expect(await exited, stderr.join('')).toBe(0);
    expect(steps).toEqual([
      { step: 'created', id: pauseId, sameIdAgain: true },
      {
        step: 'decided',
        confirmed: [true],
        decidedBy: [{ kind: 'person', id: bob.id, name: bob.name }],
        verified: [true],
        forgedVerified: [false],
        hasNewMessage: true,
        claims: [true, false],
        outcome: 'executed',
      },
    ]);
  });
});
