import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SandboxMessage } from '@adk-slack-approvals/slack-sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuditVerifier } from '../../src/approvals/audit-verify.js';
import { runAuditCli } from '../../src/cli/audit-cli.js';
import { ACTION_IDS } from '../../src/slack/codecs/action-ids.js';
import { CHANNELS, cardText, type Harness, PEOPLE, startHarness } from '../support/app-harness.js';

/**
 * The audit trail an auditor takes away: after an approval, a rejection with a reason, an
 * expiry and a withdrawal, `GET /v1/audit` (and `npm run audit -- export`) holds one entry for
 * each, with who, what and why, and `verify` accepts it; a changed character or a deleted line
 * makes `verify` name the line. Real Redis, the real ADK api_server, the Slack sandbox.
 */
const { alice, bob } = PEOPLE;
const OPS = CHANNELS.ops.id;
const AUDITOR = `key-${randomBytes(12).toString('hex')}`;
const RUNBOOK = `key-${randomBytes(12).toString('hex')}`;
const sha = (text: string) => createHash('sha256').update(text).digest('hex');

const POLICY = `
admins: [${bob.id}]
defaults:
  approvers: [${bob.id}]
rules:
  - name: quick-expiry
    match: { tool: transfer_money }
    when: args.amount == 777
    expiresIn: 1s
  - name: memos
    match: { tool: send_memo }
    redact: [text]
`;

let harness: Harness;

beforeAll(async () => {
  harness = await startHarness({
    policy: POLICY,
    sweepIntervalMs: 200,
    apiKeys: `
keys:
  - name: auditor
    sha256: ${sha(AUDITOR)}
    apps: [payments]
    signingSecret: ${randomBytes(24).toString('hex')}
    audit: true
  - name: runbook
    sha256: ${sha(RUNBOOK)}
    apps: [payments]
    signingSecret: ${randomBytes(24).toString('hex')}
`,
  });
});
afterAll(async () => {
  await harness?.stop();
});

async function startRun(text: string): Promise<{ root: SandboxMessage; card: SandboxMessage }> {
  const root = await harness.runAgent(alice.id, OPS, text);
  return { root, card: await harness.card(OPS, root.ts) };
}

const click = (user: string, card: SandboxMessage, actionId: string) =>
  harness.sandbox.clickButton({ user, channel: OPS, messageTs: card.ts, actionId });

function waitForCard(card: SandboxMessage, needle: string): Promise<SandboxMessage> {
  return harness.sandbox.waitFor(
    () => {
      const now = harness.sandbox
        .replies(OPS, card.threadTs ?? card.ts)
        .find((message) => message.ts === card.ts);
      return now !== undefined && cardText(now).includes(needle) && now;
    },
    { timeoutMs: 15_000 },
  );
}

const audit = (key: string, query = '') =>
  fetch(`http://127.0.0.1:${harness.app.port}/v1/audit${query}`, {
    headers: { authorization: `Bearer ${key}` },
  });

type Line = Record<string, unknown> & {
  event: string;
  pauseId: string;
  what?: Record<string, unknown>;
  decision?: Record<string, unknown>;
};

function verify(lines: readonly string[]) {
  const verifier = new AuditVerifier();
  for (const line of lines) verifier.add(line);
  return verifier.result();
}

describe('the audit trail', () => {
  const pauses: Record<string, string> = {};

  beforeAll(async () => {
    const approved = await startRun('payments transfer 101');
    await click(bob.id, approved.card, ACTION_IDS.approve);
    await harness.reply(OPS, approved.root.ts, 'Tool transfer_money returned');

    const rejected = await startRun('payments transfer 102');
    await click(bob.id, rejected.card, ACTION_IDS.reject);
    await harness.sandbox.waitFor(() => harness.sandbox.views(bob.id)[0]);
    await harness.sandbox.submitView({ user: bob.id, values: { reason: 'no budget left' } });
    await waitForCard(rejected.card, 'no budget left');

    const expired = await startRun('payments transfer 777');
    await waitForCard(expired.card, 'xpired');

    const withdrawn = await startRun('payments memo: rotate the vault key ACCT-99');
    await click(alice.id, withdrawn.card, ACTION_IDS.withdraw);
    await waitForCard(withdrawn.card, 'Withdrawn by');

    for (const [name, run] of Object.entries({ approved, rejected, expired, withdrawn })) {
      pauses[name] = (await harness.pauseOf(run.card)).pause.id;
    }
  }, 90_000);

  it('exports one entry for each way a gate moved, with who, what and why, and verifies', async () => {
    const response = await audit(AUDITOR);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('application/x-ndjson');
    const text = await response.text();
    const lines = text.trimEnd().split('\n');
    expect(verify(lines)).toMatchObject({ ok: true, linksChecked: true });
    const entries = lines.slice(1).map((line) => JSON.parse(line) as Line);
    const of = (name: string, event: string) =>
      entries.filter((entry) => entry.pauseId === pauses[name] && entry.event === event);

    const [approved] = of('approved', 'approved');
    expect(of('approved', 'approved')).toHaveLength(1);
    expect(approved).toMatchObject({
      initiator: 'person',
      actor: bob.id,
      // Who, by id and by the name Slack gave when they decided.
      decision: { by: bob.id, byName: bob.name, at: expect.any(Number) },
      what: {
        app: 'payments',
        tool: 'transfer_money',
        args: { amount: 101 },
        argsSha256: expect.stringMatching(/^[0-9a-f]{64}$/),
        rule: 'defaults',
        policyVersion: expect.stringMatching(/^[0-9a-f]{64}$/),
      },
    });
    expect(of('approved', 'created')).toHaveLength(1);
    expect(of('approved', 'resumed')).toHaveLength(1);

    expect(of('rejected', 'rejected')).toEqual([
      expect.objectContaining({
        initiator: 'person',
        actor: bob.id,
        decision: expect.objectContaining({ byName: bob.name, reason: 'no budget left' }),
      }),
    ]);
    expect(of('expired', 'expired')).toEqual([
      expect.objectContaining({
        initiator: 'system',
        what: expect.objectContaining({ rule: 'quick-expiry', condition: 'args.amount == 777' }),
      }),
    ]);
    const [withdrawn] = of('withdrawn', 'withdrawn');
    expect(of('withdrawn', 'withdrawn')).toHaveLength(1);
    expect(withdrawn).toMatchObject({
      initiator: 'person',
      actor: alice.id,
      decision: { by: alice.id, byName: alice.name },
      what: { tool: 'send_memo', args: { text: '[redacted]' }, redacted: ['text'] },
    });
    expect(text).not.toContain('ACCT-99');
  });

  it('verify names the line where one character was changed, and the line after a deleted one', async () => {
    const lines = (await (await audit(AUDITOR)).text()).trimEnd().split('\n');
    const target = lines.findIndex((line) => line.includes('"event":"rejected"'));
    const changed = [...lines];
    changed[target] = String(changed[target]).replace('no budget left', 'no budget Left');
    expect(verify(changed)).toMatchObject({ ok: false, line: target + 1 });

    const deleted = lines.filter((_, index) => index !== target);
    const verdict = verify(deleted);
    expect(verdict.ok).toBe(false);
    // The rejection's pause goes on after it (its resume), and that line names the gap.
    const next = lines.findIndex(
      (line, index) => index > target && line.includes(`"pauseId":"${pauses.rejected}"`),
    );
    expect(verdict).toMatchObject({ line: next, problem: expect.stringContaining('missing') });
  });

  it('npm run audit -- export writes the same lines, and verify checks the file', async () => {
    const out: string[] = [];
    const err: string[] = [];
    const io = {
      out: (line: string) => out.push(line),
      err: (line: string) => err.push(line),
      now: () => Date.now(),
      store: async () => harness.store,
    };
    expect(await runAuditCli(['export', '--app', 'payments'], io)).toBe(0);
    const dir = await mkdtemp(join(tmpdir(), 'audit-'));
    const file = join(dir, 'audit.jsonl');
    await writeFile(file, `${out.join('\n')}\n`);
    const printed: string[] = [];
    expect(await runAuditCli(['verify', file], { ...io, out: (line) => printed.push(line) })).toBe(
      0,
    );
    expect(printed.join('\n')).toMatch(/^OK .*: \d+ entries of \d+ pauses/);

    const broken = [...out];
    const at = broken.findIndex((line) => line.includes('"event":"approved"'));
    broken[at] = String(broken[at]).replace('"amount":101', '"amount":9101');
    await writeFile(file, `${broken.join('\n')}\n`);
    expect(await runAuditCli(['verify', file], io)).toBe(1);
    expect(err.at(-1)).toBe(
      `${file}:${at + 1}: its hash does not match its content: the line was changed after it was written`,
    );
  });

  it('a key without audit: true gets 403; a bad query gets 422 naming the parameter', async () => {
    const refused = await audit(RUNBOOK);
    expect(refused.status).toBe(403);
    expect(JSON.stringify(await refused.json())).toContain('audit: true');
    const bad = await audit(AUDITOR, '?since=yesterday');
    expect(bad.status).toBe(422);
    expect(JSON.stringify(await bad.json())).toContain('since');
  });

  it('pages with a cursor: the export continues where the last one stopped', async () => {
    const first = (await (await audit(AUDITOR, '?limit=3')).text()).trimEnd().split('\n');
    expect(first).toHaveLength(5);
    const cursor = JSON.parse(String(first.at(-1))) as { nextCursor: string };
    const rest = (await (await audit(AUDITOR, `?cursor=${cursor.nextCursor}`)).text())
      .trimEnd()
      .split('\n');
    const all = (await (await audit(AUDITOR)).text()).trimEnd().split('\n');
    expect([...first.slice(1, 4), ...rest.slice(1)]).toEqual(all.slice(1));
  });
});
