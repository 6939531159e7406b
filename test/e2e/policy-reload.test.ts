import { rename, writeFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { CHANNELS, type Harness, PEOPLE, startHarness } from '../support/app-harness.js';

const { alice, bob } = PEOPLE;
const OPS = CHANNELS.ops.id;

const ASK_EVERYTHING = `
defaults:
  approvers: [${bob.id}]
`;
const ALLOW_SMALL = `${ASK_EVERYTHING}
rules:
  - name: small-transfers
    match: { app: payments, tool: transfer_money }
    when: args.amount <= 100
    decision: allow
`;
const BROKEN = `${ALLOW_SMALL}
  - name: typo
    match: { app: payments }
    when: args.amount >
`;

let harness: Harness;

beforeAll(async () => {
  harness = await startHarness({ policy: ASK_EVERYTHING, sweepIntervalMs: 60_000 });
});
afterAll(async () => {
  await harness?.stop();
});

/** Replaces the file as editors and config maps do: a new file renamed over the old one. */
async function replacePolicy(text: string): Promise<void> {
  const next = `${harness.policyFile}.next`;
  await writeFile(next, text);
  await rename(next, harness.policyFile);
}

async function readyz(): Promise<{ status: string; warnings?: Record<string, string> }> {
  const response = await fetch(`http://127.0.0.1:${harness.app.port}/readyz`);
  return (await response.json()) as { status: string; warnings?: Record<string, string> };
}

/** Polls the app's log (the sandbox's own waitFor wakes only on Slack traffic). */
function waitForLog(needle: string, after: number): Promise<string> {
  return vi.waitFor(
    () => {
      const line = harness.logs.slice(after).find((entry) => entry.includes(needle));
      if (line === undefined) throw new Error(`no log line with "${needle}" yet`);
      return line;
    },
    { timeout: 10_000, interval: 50 },
  );
}

describe('policy hot reload', () => {
  it('an edit changes the next decision without a restart; a broken edit keeps the policy and says so', async () => {
    const before = await harness.runAgent(alice.id, OPS, 'payments transfer 40');
    await harness.card(OPS, before.ts);

    let mark = harness.logs.length;
    await replacePolicy(ALLOW_SMALL);
    await waitForLog('policy reloaded', mark);
    const after = await harness.runAgent(alice.id, OPS, 'payments transfer 40');
    const line = await harness.reply(OPS, after.ts, 'auto-approved');
    expect(line.text).toContain('small-transfers');
    await harness.reply(OPS, after.ts, 'Tool transfer_money returned');
    expect((await readyz()).warnings).toBeUndefined();

    mark = harness.logs.length;
    await replacePolicy(BROKEN);
    await waitForLog('does not load', mark);
    const status = await readyz();
    expect(status.status).toBe('ready');
    expect(status.warnings?.policy).toMatch(
      /policy\.yml:\d+:\d+ rules\[1\]\.when: not a valid CEL/,
    );
    const kept = await harness.runAgent(alice.id, OPS, 'payments transfer 60');
    expect((await harness.reply(OPS, kept.ts, 'auto-approved')).text).toContain('small-transfers');

    mark = harness.logs.length;
    await replacePolicy(ASK_EVERYTHING);
    await waitForLog('policy reloaded', mark);
    expect((await readyz()).warnings).toBeUndefined();
    const asked = await harness.runAgent(alice.id, OPS, 'payments transfer 70');
    await harness.card(OPS, asked.ts);
  });
});
