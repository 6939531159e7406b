import { describe, expect, it } from 'vitest';
import { evaluatePolicy, type PolicyCall, parsePolicy } from '../../../src/approvals/policy.js';
import { policyOf } from '../../support/workflow.js';

/** Issue 36: rules that match where a call was met (`source`) and the run's labels. */
const FILE = `
defaults:
  approvers: [U0BOB]
rules:
  - name: warning-restarts
    match: { app: ops, tool: restart_*, source: alert, labels: { severity: warning } }
    decision: allow
  - name: failovers
    match: { app: ops, tool: failover, source: alert }
    approvers: [U0CAROL]
  - name: payment-alerts
    match: { source: alert, labels: { service: "pay*", severity: critical } }
    risk: high
`;

function policy() {
  return policyOf(FILE);
}

function call(overrides: Partial<PolicyCall>): PolicyCall {
  return {
    app: 'ops',
    tool: 'restart_consumer',
    args: {},
    source: 'alert',
    labels: { severity: 'warning', alertname: 'ConsumerStuck' },
    now: new Date('2026-11-28T12:00:00Z'),
    ...overrides,
  };
}

describe('policy rules matching a run started by an alert', () => {
  it("allows a warning alert's restart", () => {
    expect(evaluatePolicy(policy(), call({}))).toMatchObject({
      rule: { name: 'warning-restarts' },
      decision: 'allow',
    });
  });

  it('asks for a critical alert, and for a failover whatever its severity', () => {
    const critical = evaluatePolicy(policy(), call({ labels: { severity: 'critical' } }));
    expect(critical.decision).toBe('ask');
    expect(critical.rule.name).toBe('defaults');
    const failover = evaluatePolicy(policy(), call({ tool: 'failover' }));
    expect(failover).toMatchObject({ rule: { name: 'failovers' }, decision: 'ask' });
    expect(failover.resolved.policy.approvers).toEqual([{ kind: 'user', id: 'U0CAROL' }]);
  });

  it('a source-matching rule never matches the same call from Slack or the API', () => {
    for (const source of ['slack', 'api'] as const) {
      const verdict = evaluatePolicy(policy(), call({ source }));
      expect(verdict.rule.name).toBe('defaults');
      expect(verdict.decision).toBe('ask');
    }
  });

  it('labels match by glob, every label named, and a missing label never matches', () => {
    const paying = call({
      tool: 'scale',
      labels: { service: 'payments-api', severity: 'critical' },
    });
    expect(evaluatePolicy(policy(), paying).rule.name).toBe('payment-alerts');
    const noSeverity = call({ tool: 'scale', labels: { service: 'payments-api' } });
    expect(evaluatePolicy(policy(), noSeverity).rule.name).toBe('defaults');
    expect(evaluatePolicy(policy(), call({ labels: undefined })).rule.name).toBe('defaults');
  });

  it('unnamed rules are named by their source and labels too', () => {
    const parsed = parsePolicy(
      'defaults: { approvers: [U0BOB] }\nrules:\n  - match: { tool: restart, source: alert, labels: { severity: warning } }\n',
      'policy.yml',
    );
    if (!parsed.ok) throw new Error(parsed.errors.join('\n'));
    expect(parsed.policy.rules[0]?.resolved.policy.rule).toBe(
      'tool=restart source=alert severity=warning',
    );
  });

  it('refuses a source it does not know and a label pattern that is not one, naming the key', () => {
    const parsed = parsePolicy(
      'rules:\n  - match: { source: pager, labels: { severity: "warn{" } }\n',
      'policy.yml',
    );
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.errors.join('\n')).toContain(
      'rules[0].match.source: expected slack, api or alert',
    );
    expect(parsed.errors.join('\n')).toContain('rules[0].match.labels.severity');
  });
});
