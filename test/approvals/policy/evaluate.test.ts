import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  evaluatePolicy,
  loadPolicyFile,
  type PolicyCall,
  parsePolicy,
} from '../../../src/approvals/policy.js';
import { policyOf } from '../../support/workflow.js';

const FILE = `
defaults:
  approvers: [U0BOB]
rules:
  - name: small-refunds
    match: { app: payments, tool: refund }
    when: args.amount <= 100
    decision: allow
    reason: "refund of {{args.amount}} to {{args.customer.id}}"
  - name: large-refunds
    match: { app: payments, tool: refund }
    when: args.amount > 1000
    risk: high
    quorum: 2
    approvers: [U0BOB, U0CAROL]
  - name: office-hours
    match: { app: ops }
    when: now.getHours("UTC") < 9 || now.getHours("UTC") >= 17
    decision: deny
    reason: outside office hours
  - match: { app: payments, tool: refund }
    risk: medium
`;

function policy() {
  return policyOf(FILE);
}

function call(overrides: Partial<PolicyCall>): PolicyCall {
  return {
    app: 'payments',
    tool: 'refund',
    args: {},
    source: 'slack',
    now: new Date('2026-11-25T12:00:00Z'),
    ...overrides,
  };
}

describe('evaluatePolicy', () => {
  it('the first rule whose patterns match and whose condition is true decides', () => {
    const verdict = evaluatePolicy(
      policy(),
      call({ args: { amount: 50, customer: { id: 'c1' } } }),
    );
    expect(verdict).toMatchObject({
      rule: { index: 0, name: 'small-refunds' },
      decision: 'allow',
      reason: 'refund of 50 to c1',
      condition: { text: 'args.amount <= 100', value: true },
    });
  });

  it('a false condition passes to the next rule; a rule with no name is named by what it matches', () => {
    const large = evaluatePolicy(policy(), call({ args: { amount: 5000 } }));
    expect(large).toMatchObject({ rule: { name: 'large-refunds' }, decision: 'ask', risk: 'high' });
    expect(large.resolved.policy).toMatchObject({ quorum: 2, rule: 'large-refunds' });
    const middle = evaluatePolicy(policy(), call({ args: { amount: 500 } }));
    expect(middle).toMatchObject({
      rule: { index: 3, name: 'app=payments tool=refund' },
      decision: 'ask',
    });
  });

  it('a condition that fails at evaluation asks, never allows, and says why', () => {
    const verdict = evaluatePolicy(policy(), call({ args: { amount: 'fifty' } }));
    expect(verdict.decision).toBe('ask');
    expect(verdict.rule.name).toBe('small-refunds');
    expect(verdict.condition?.error).toBeTruthy();
    expect(verdict.resolved.policy.condition?.error).toBe(verdict.condition?.error);
    const missing = evaluatePolicy(policy(), call({ args: {} }));
    expect(missing.decision).toBe('ask');
    expect(missing.condition?.error).toMatch(/amount/);
  });

  it('`now` is a timestamp: business hours decide', () => {
    const night = call({ app: 'ops', tool: 'restart', now: new Date('2026-11-25T22:00:00Z') });
    expect(evaluatePolicy(policy(), night)).toMatchObject({
      decision: 'deny',
      reason: 'outside office hours',
    });
    const day = call({ app: 'ops', tool: 'restart' });
    expect(evaluatePolicy(policy(), day)).toMatchObject({ rule: { index: null }, decision: 'ask' });
  });

  it("every verdict carries the file's SHA-256 as the policy version", () => {
    const verdict = evaluatePolicy(policy(), call({ args: { amount: 5000 } }));
    const sha = createHash('sha256').update(FILE).digest('hex');
    expect(verdict.policyVersion).toBe(sha);
    expect(verdict.resolved.policy.policyVersion).toBe(sha);
  });
});

describe('conditions in the policy file', () => {
  it('a condition that does not parse is an error naming the file, line, column and key', () => {
    const parsed = parsePolicy(
      'rules:\n  - match: { tool: refund }\n    when: args.amount >\n',
      'policy.yml',
    );
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.errors[0]).toMatch(
      /^policy\.yml:3:11 rules\[0\]\.when: not a valid CEL expression/,
    );
  });

  it('a condition of the wrong type, an unknown variable and a non-boolean are refused at load', () => {
    for (const when of ['app == 1', 'user.id == "x"', 'args.amount + 1']) {
      const parsed = parsePolicy(`rules:\n  - match: {}\n    when: '${when}'\n`, 'p.yml');
      expect(parsed.ok, when).toBe(false);
    }
  });

  it('decision, risk and name are checked; names are unique', () => {
    const bad = parsePolicy(
      'rules:\n  - name: a\n    match: {}\n    decision: maybe\n    risk: huge\n  - name: a\n    match: {}\n',
      'p.yml',
    );
    expect(bad.ok).toBe(false);
    if (bad.ok) return;
    expect(bad.errors.join('\n')).toContain('rules[0].decision: expected ask, allow or deny');
    expect(bad.errors.join('\n')).toContain(
      'rules[0].risk: expected low, medium, high or critical',
    );
    const twice = parsePolicy(
      'rules:\n  - name: a\n    match: {}\n  - name: a\n    match: {}\n',
      'p.yml',
    );
    expect(twice.ok).toBe(false);
    if (twice.ok) return;
    expect(twice.errors).toContain(
      'p.yml:4:11 rules[1].name: the name "a" is taken by rules[0]: names must be unique',
    );
  });
});

describe('examples/policy.yml', () => {
  it('loads, and its refund tiers decide as its comments say', async () => {
    const example = await loadPolicyFile(
      new URL('../../../examples/policy.yml', import.meta.url).pathname,
    );
    const refund = (args: Record<string, unknown>) =>
      evaluatePolicy(example, call({ app: 'payments', tool: 'refund', args }));
    expect(refund({ amount: 30 })).toMatchObject({
      rule: { name: 'small-refunds' },
      decision: 'allow',
    });
    expect(refund({ amount: 30, account: 'closed-17' })).toMatchObject({
      rule: { name: 'closed-accounts' },
      decision: 'deny',
    });
    expect(refund({ amount: 300, account: 'closed-17' })).toMatchObject({
      decision: 'deny',
      reason: 'account closed-17 is closed: refunds go through support',
    });
    expect(refund({ amount: 5000 })).toMatchObject({
      rule: { name: 'large-refunds' },
      decision: 'ask',
      risk: 'high',
    });
  });
});

describe("the demo's policy (npm start)", () => {
  it('spans the three outcomes on one tool, as the demo agents table (docs/agents.md) says', async () => {
    const { demoPolicyFile } = await import('@adk-slack-approvals/demo');
    const demo = await loadPolicyFile(demoPolicyFile());
    const transfer = (amount: number) =>
      evaluatePolicy(demo, call({ app: 'payments', tool: 'transfer_money', args: { amount } }));
    expect(transfer(50)).toMatchObject({ decision: 'allow', rule: { name: 'small-transfers' } });
    expect(transfer(250)).toMatchObject({ decision: 'ask' });
    expect(transfer(9000)).toMatchObject({ decision: 'deny', rule: { name: 'treasury-only' } });
    expect(transfer(9000).reason).toContain('9000 asked');
  });
});
