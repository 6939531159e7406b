import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runPolicyCli } from '../../src/cli/policy-cli.js';

const EXAMPLE = fileURLToPath(new URL('../../examples/policy.yml', import.meta.url));
const EXAMPLE_CASES = fileURLToPath(new URL('../../examples/policy.test.yml', import.meta.url));

async function run(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runPolicyCli(argv, { out: (l) => out.push(l), err: (l) => err.push(l) });
  return { code, out, err };
}

async function tempFile(name: string, text: string): Promise<string> {
  const path = join(await mkdtemp(join(tmpdir(), 'policy-cli-')), name);
  await writeFile(path, text);
  return path;
}

describe('policy check', () => {
  it('passes the example and names its version', async () => {
    const { code, out } = await run('check', EXAMPLE);
    expect(code).toBe(0);
    expect(out.at(-1)).toMatch(/^ok: .*policy\.yml \(\d+ rules, version [0-9a-f]{12}\)$/);
  });

  it('names the problems of every kind at once: a value the schema refuses and a quorum no list can meet', async () => {
    const file = await tempFile(
      'p.yml',
      [
        'rules:',
        '  - match: { tool: a }',
        '    expiresIn: soon',
        '  - match: { tool: b }',
        '    approvers: [U0AAA]',
        '    quorum: 2',
      ].join('\n'),
    );
    const { code, err } = await run('check', file);
    expect(code).toBe(1);
    expect(err).toEqual([
      expect.stringMatching(/p\.yml:3:16 rules\[0\]\.expiresIn: /),
      expect.stringMatching(/p\.yml:6:13 rules\[1\]\.quorum: quorum 2 can never be met/),
    ]);
  });

  it('fails with exit 1 naming the line of a broken condition', async () => {
    const file = await tempFile('p.yml', 'rules:\n  - match: {}\n    when: args.amount >\n');
    const { code, err } = await run('check', file);
    expect(code).toBe(1);
    expect(err[0]).toMatch(/p\.yml:3:11 rules\[0\]\.when: not a valid CEL expression/);
  });
});

describe('policy check: conditions are bounded', () => {
  it('refuses four nested all() over the call lists, naming the line and what is expensive', async () => {
    const file = await tempFile(
      'p.yml',
      [
        'rules:',
        '  - match: { app: ops }',
        '    approvers: [U0BOB]',
        '  - match: { app: ops }',
        '    when: args.a.all(w, args.b.all(x, args.c.all(y, args.d.all(z, w + x + y + z > 0))))',
        '    decision: allow',
        '',
      ].join('\n'),
    );
    const { code, err } = await run('check', file);
    expect(code).toBe(1);
    expect(err[0]).toContain('p.yml:5:11 rules[1].when: too costly: up to');
    expect(err[0]).toContain('budget 10^5 (4 nested all() over lists of up to 1,000 entries each)');
  });

  it('refuses a pattern RE2 cannot run, naming the line and why', async () => {
    const file = await tempFile(
      'p.yml',
      'rules:\n  - match: { app: ops }\n    when: args.user.matches("^(?<!x)admin")\n    decision: deny\n',
    );
    const { code, err } = await run('check', file);
    expect(code).toBe(1);
    expect(err[0]).toContain('p.yml:3:11 rules[0].when: "^(?<!x)admin" is not an RE2 pattern:');
    expect(err[0]).toContain('(RE2 syntax: no backreferences, no lookaround)');
  });
});

describe('policy explain', () => {
  it('says why a condition could not be evaluated when a value is over the size bounds', async () => {
    const items = JSON.stringify(Array.from({ length: 5_000 }, (_, index) => index));
    const call = `{"app":"payments","tool":"refund","args":{"amount":10,"items":${items}}}`;
    const file = await tempFile(
      'p.yml',
      'rules:\n  - name: few-items\n    match: { app: payments }\n    when: args.items.all(i, i >= 0)\n    decision: allow\n',
    );
    const { code, out } = await run('explain', file, call);
    expect(code).toBe(0);
    expect(out).toContain('decision:       ask');
    expect(out).toContain(
      'condition:      args.items.all(i, i >= 0) → error: args.items has 5,000 items; a condition reads at most 1,000',
    );
  });

  it('names the rule, the outcome, the condition value, and every setting a person is asked under', async () => {
    const call = '{"app":"payments","tool":"refund","args":{"amount":5000,"account":"acme"}}';
    const { code, out } = await run('explain', EXAMPLE, call);
    expect(code).toBe(0);
    expect(out.slice(0, -1)).toEqual([
      'rule:           large-refunds',
      'decision:       ask',
      'condition:      has(args.amount) && args.amount > 1000 → true',
      'risk:           high',
      'approvers:      S05PAYMENTS, U05CFO',
      'quorum:         2',
      'selfApproval:   false',
      'channel:        C05PAYMENTS',
      'expiresIn:      2h',
      'onExpiry:       reject',
      'remindAfter:    (no reminder)',
      'escalateAfter:  (no escalation)',
      'reasonRequired: true',
      'confirm:        true',
      'undoWindow:     (none)',
      'batch:          true',
      'grants:         (none)',
      'payloadSchema:  (none)',
    ]);
    expect(out.at(-1)).toMatch(/^version: {8}[0-9a-f]{12}$/);
  });

  it('shows grants, the undo window, reminders, escalation, the payload fields and redaction as the rule and the defaults set them', async () => {
    const file = await tempFile(
      'p.yml',
      [
        'defaults:',
        '  approvers: [U0AAA, U0BBB]',
        '  expiresIn: 1h',
        '  remindAfter: 10m',
        'rules:',
        '  - name: restarts',
        '    match: { tool: restart }',
        '    grants: [session, 1h]',
        '    undoWindow: 30s',
        '    escalateAfter: 20m',
        '    escalateTo: [S0ONCALL]',
        '    onExpiry: cancel',
        '    batch: false',
        '    redact: [token]',
        '    payloadSchema:',
        '      type: object',
        '      properties: { service: { type: string }, force: { type: boolean } }',
        '      required: [service]',
      ].join('\n'),
    );
    const { code, out } = await run('explain', file, '{"app":"ops","tool":"restart"}');
    expect(code).toBe(0);
    expect(out).toEqual(
      expect.arrayContaining([
        'rule:           restarts',
        'approvers:      U0AAA, U0BBB',
        'expiresIn:      1h',
        'onExpiry:       cancel',
        'remindAfter:    10m',
        'escalateAfter:  20m',
        'escalateTo:     S0ONCALL',
        'undoWindow:     30s',
        'batch:          false',
        'grants:         session, 1h',
        'payloadSchema:  fields service (required), force',
        'redact:         token',
      ]),
    );
  });

  it('refuses a call that is not JSON, with exit 2', async () => {
    expect((await run('explain', EXAMPLE, '{app:')).code).toBe(2);
  });
});

describe('arguments', () => {
  it('policy test with one file says it needs the policy and the cases, and reads no file as a policy', async () => {
    const { code, err } = await run('test', EXAMPLE_CASES);
    expect(code).toBe(2);
    expect(err[0]).toBe(
      `policy test takes the policy file and the cases file, in that order; got "${EXAMPLE_CASES}"`,
    );
    expect(err.join('\n')).not.toMatch(/unknown key/);
  });

  it('policy explain without the call, and policy check with two files, are usage errors', async () => {
    const explain = await run('explain', EXAMPLE);
    expect(explain.code).toBe(2);
    expect(explain.err[0]).toMatch(/^policy explain takes the policy file and the call, as JSON/);
    expect((await run('check', EXAMPLE, EXAMPLE)).code).toBe(2);
  });
});

describe('policy test', () => {
  it('runs the example cases: every one passes', async () => {
    const { code, out } = await run('test', EXAMPLE, EXAMPLE_CASES);
    expect(out.filter((line) => line.startsWith('FAIL'))).toEqual([]);
    expect(code).toBe(0);
    expect(out.at(-1)).toMatch(/^\d+ passed, 0 failed$/);
  });

  it('a wrong expectation fails with exit 1 and names the case and what differed', async () => {
    const cases = await tempFile(
      'cases.yml',
      [
        'cases:',
        '  - name: small refunds are allowed',
        '    call: { app: payments, tool: refund, args: { amount: 20 } }',
        '    expect: { decision: allow }',
        '  - name: big refunds are allowed too (wrong)',
        '    call: { app: payments, tool: refund, args: { amount: 9000 } }',
        '    expect: { decision: allow, quorum: 1 }',
      ].join('\n'),
    );
    const { code, out } = await run('test', EXAMPLE, cases);
    expect(code).toBe(1);
    expect(out).toContain('PASS  small refunds are allowed');
    expect(out).toContain(
      'FAIL  big refunds are allowed too (wrong): expected decision allow, got ask; expected quorum 1, got 2',
    );
    expect(out.at(-1)).toBe('1 passed, 1 failed');
  });
});
