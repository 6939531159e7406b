import { describe, expect, it } from 'vitest';
import { compilePromptTemplate } from '../../../src/approvals/runbooks/prompt-template.js';
import {
  DEFAULT_STAND_DOWN_AFTER_MS,
  parseRunbooks,
  RunbooksError,
  runbookFor,
} from '../../../src/approvals/runbooks/runbooks-file.js';

const FILE = `runbooks:
  - name: restart-consumer
    match: { alertname: ConsumerStuck, service: "payments-*" }
    app: ops_runbook
    channel: C0INCIDENTS
    prompt: "restart {{labels.service}}: {{ annotations.summary }}"
    standDownAfter: 2m
  - name: anything-else
    match: {}
    app: ops_runbook
    channel: C0TRIAGE
    prompt: "look at {{labels.alertname}} ({{status}}, {{fingerprint}})"
`;

const alert = (labels: Record<string, string>, annotations: Record<string, string> = {}) => ({
  status: 'firing' as const,
  fingerprint: 'f00d',
  labels,
  annotations,
});

function problemsOf(text: string): readonly string[] {
  try {
    parseRunbooks(text, 'runbooks.yml');
  } catch (error) {
    if (error instanceof RunbooksError) return error.problems;
    throw error;
  }
  throw new Error('the file loaded');
}

describe('the runbooks file', () => {
  it('maps an alert to the first runbook whose every label matches, value or glob', () => {
    const runbooks = parseRunbooks(FILE, 'runbooks.yml');
    const stuck = alert({ alertname: 'ConsumerStuck', service: 'payments-api' });
    expect(runbookFor(runbooks, stuck)?.name).toBe('restart-consumer');
    expect(
      runbookFor(runbooks, alert({ alertname: 'ConsumerStuck', service: 'search' }))?.name,
    ).toBe('anything-else');
    // A label the alert lacks never matches, whatever the pattern.
    expect(runbookFor(runbooks, alert({ service: 'payments-api' }))?.name).toBe('anything-else');
  });

  it('fills labels, annotations, status and fingerprint into the prompt, and leaves them unescaped for the agent', () => {
    const [first, second] = parseRunbooks(FILE, 'runbooks.yml').runbooks;
    expect(
      first?.prompt.fill(alert({ service: 'payments-api' }, { summary: 'lag > 5m & <rising>' })),
    ).toBe('restart payments-api: lag > 5m & <rising>');
    expect(second?.prompt.fill(alert({ alertname: 'DiskFull' }))).toBe(
      'look at DiskFull (firing, f00d)',
    );
    // A missing label or annotation fills in as empty.
    expect(first?.prompt.fill(alert({}))).toBe('restart : ');
  });

  it('gives each runbook its stand-down grace, 5m by default', () => {
    const runbooks = parseRunbooks(FILE.replace('    standDownAfter: 2m\n', ''), 'r.yml');
    expect(runbooks.runbooks.map((r) => r.standDownAfterMs)).toEqual([
      DEFAULT_STAND_DOWN_AFTER_MS,
      DEFAULT_STAND_DOWN_AFTER_MS,
    ]);
    expect(parseRunbooks(FILE, 'r.yml').runbooks[0]?.standDownAfterMs).toBe(120_000);
  });

  it('refuses unknown placeholders, bad globs, durations and channels at load, each with its file:line:col', () => {
    const text = FILE.replace('{{labels.service}}', '{{label.service}}')
      .replace('"payments-*"', '"payments-{a"')
      .replace('standDownAfter: 2m', 'standDownAfter: soon')
      .replace('C0TRIAGE', 'triage');
    expect(problemsOf(text)).toEqual([
      'runbooks.yml:11:14 runbooks[1].channel: expected a Slack channel id',
    ]);
    expect(problemsOf(text.replace('triage', 'C0TRIAGE'))).toEqual([
      'runbooks.yml:3:49 runbooks[0].match.service: pattern "payments-{a" has a "{" without "}"',
      'runbooks.yml:6:13 runbooks[0].prompt: unknown placeholder {{label.service}}: expected {{labels.<name>}}, {{annotations.<name>}}, {{status}} or {{fingerprint}}',
      'runbooks.yml:7:21 runbooks[0].standDownAfter: expected a duration such as 45s, 30m, 2h, 7d or 1h30m',
    ]);
  });

  it('refuses unknown keys, a second runbook of one name and YAML errors', () => {
    expect(problemsOf(FILE.replace('app: ops_runbook', 'ap: ops_runbook'))).toEqual([
      'runbooks.yml:2:5 runbooks[0].app: Invalid input: expected string, received undefined',
      'runbooks.yml:2:5 runbooks[0]: unknown key(s) ap',
    ]);
    expect(problemsOf(FILE.replace('anything-else', 'restart-consumer'))).toEqual([
      'runbooks.yml:8:11 runbooks[1].name: a second runbook of this name',
    ]);
    expect(problemsOf('runbooks: [\n')[0]).toMatch(/^runbooks\.yml:2:1 /);
  });
});

describe('prompt templates', () => {
  it('refuse an unclosed or stray brace', () => {
    expect(compilePromptTemplate('restart {{labels.service').ok).toBe(false);
    expect(compilePromptTemplate('restart }} {{labels.service}}').ok).toBe(false);
    expect(compilePromptTemplate('restart {{labels.service}}').ok).toBe(true);
  });
});
