import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  emptyPolicy,
  loadPolicyFile,
  type Policy,
  PolicyError,
  parsePolicy,
  resolveGatePolicy,
} from '../../../src/approvals/policy.js';

/** Policy files are written as they would be, one line per array item. */
function yaml(...lines: string[]): string {
  return `${lines.join('\n')}\n`;
}

function policyOf(text: string, source = 'policy.yml'): { policy: Policy; warnings: string[] } {
  const result = parsePolicy(text, source);
  if (!result.ok) throw new Error(`expected a valid policy, got:\n${result.errors.join('\n')}`);
  return result;
}

function errorsOf(text: string, source = 'policy.yml'): string[] {
  const result = parsePolicy(text, source);
  if (result.ok) throw new Error('expected the policy to be refused');
  return result.errors;
}

const PLAIN = {
  quorum: 1,
  selfApproval: false,
  onExpiry: 'reject',
  reasonRequired: false,
} as const;

describe('parsePolicy: admins', () => {
  it('reads admins as user ids, and refuses a group or a mention naming the entry', () => {
    expect(policyOf(yaml('admins: [U0LEAD, W0BOSS]')).policy.admins).toEqual(['U0LEAD', 'W0BOSS']);
    expect(policyOf(yaml('rules: []')).policy.admins).toBeUndefined();
    const errors = errorsOf(yaml('admins: [U0LEAD, S0SRE, "<@U0BOB>"]'));
    expect(errors).toEqual([
      expect.stringContaining('admins[1]: expected a user id (U… or W…), got "S0SRE"'),
      expect.stringContaining(
        'admins[2]: expected a user id (U… or W…), got "<@U0BOB>" (write the bare id U0BOB)',
      ),
    ]);
  });
});

describe('parsePolicy: fields', () => {
  it('turns every field of a rule into the gate policy snapshot, durations in ms', () => {
    const { policy } = policyOf(
      yaml(
        'rules:',
        '  - match: { app: ops, tool: scale_deployment }',
        '    channel: C0OPS1234',
        '    approvers: [U0ALICE, W0BOB, S0SRE, channel]',
        '    quorum: 2',
        '    selfApproval: true',
        '    expiresIn: 30m',
        '    onExpiry: cancel',
        '    reasonRequired: true',
      ),
    );
    expect(resolveGatePolicy(policy, { app: 'ops', tool: 'scale_deployment' })).toEqual({
      channel: 'C0OPS1234',
      policy: {
        rule: 'app=ops tool=scale_deployment',
        policyVersion: policy.version,
        approvers: [
          { kind: 'user', id: 'U0ALICE' },
          { kind: 'user', id: 'W0BOB' },
          { kind: 'usergroup', id: 'S0SRE' },
          { kind: 'channel' },
        ],
        quorum: 2,
        selfApproval: true,
        expiresInMs: 1_800_000,
        onExpiry: 'cancel',
        reasonRequired: true,
      },
    });
  });

  it('accepts a single approver written as a string', () => {
    const { policy } = policyOf(yaml('defaults:', '  approvers: S0ONCALL'));
    expect(resolveGatePolicy(policy, { app: 'a', tool: 't' }).policy.approvers).toEqual([
      { kind: 'usergroup', id: 'S0ONCALL' },
    ]);
  });

  it('uses the documented defaults when neither the rule nor defaults says: nobody, quorum 1, no expiry, run channel', () => {
    const { policy } = policyOf(yaml('rules:', '  - match: {}'));
    expect(resolveGatePolicy(policy, { app: 'a', tool: 't' })).toEqual({
      policy: { rule: 'any call', approvers: [], ...PLAIN, policyVersion: policy.version },
    });
  });

  it('fills what a rule leaves out from defaults, and lets the rule override the rest', () => {
    const { policy } = policyOf(
      yaml(
        'defaults:',
        '  channel: C0APPROVE',
        '  approvers: [U0ALICE, U0BOB]',
        '  expiresIn: 2h',
        '  onExpiry: cancel',
        '  reasonRequired: true',
        'rules:',
        '  - match: { tool: scale_* }',
        '    quorum: 2',
        '    expiresIn: 45s',
      ),
    );
    expect(resolveGatePolicy(policy, { app: 'ops', tool: 'scale_up' })).toEqual({
      channel: 'C0APPROVE',
      policy: {
        rule: 'tool=scale_*',
        policyVersion: policy.version,
        approvers: [
          { kind: 'user', id: 'U0ALICE' },
          { kind: 'user', id: 'U0BOB' },
        ],
        quorum: 2,
        selfApproval: false,
        expiresInMs: 45_000,
        onExpiry: 'cancel',
        reasonRequired: true,
      },
    });
  });

  it('lets a rule say expiresIn: never to undo the defaults expiry', () => {
    const { policy } = policyOf(
      yaml(
        'defaults:',
        '  approvers: S0OPS',
        '  expiresIn: 7d',
        'rules:',
        '  - match: { tool: slow }',
        '    expiresIn: never',
      ),
    );
    expect(resolveGatePolicy(policy, { app: 'a', tool: 'slow' }).policy.expiresInMs).toBe(
      undefined,
    );
    expect(resolveGatePolicy(policy, { app: 'a', tool: 'fast' }).policy.expiresInMs).toBe(
      604_800_000,
    );
  });

  it('lets an explicitly empty approver list in a rule block a tool the defaults would allow', () => {
    const { policy } = policyOf(
      yaml(
        'defaults:',
        '  approvers: S0OPS',
        'rules:',
        '  - match: { tool: drop_database }',
        '    approvers: []',
      ),
    );
    expect(resolveGatePolicy(policy, { app: 'a', tool: 'drop_database' }).policy.approvers).toEqual(
      [],
    );
  });

  it.each([
    ['45s', 45_000],
    ['30m', 1_800_000],
    ['2h', 7_200_000],
    ['7d', 604_800_000],
  ])('reads expiresIn: %s as %d ms', (text, ms) => {
    const { policy } = policyOf(yaml('defaults:', `  expiresIn: ${text}`));
    expect(policy.defaults.policy.expiresInMs).toBe(ms);
  });
});

describe('resolveGatePolicy: which rule applies', () => {
  const { policy } = policyOf(
    yaml(
      'defaults:',
      '  approvers: U0DEFAULT',
      'rules:',
      '  - match: { app: payments }',
      '    approvers: S0PAYMENTS',
      '  - match: { app: ops, tool: "restart_{service,pod}" }',
      '    approvers: S0ONCALL',
      '  - match: { tool: "restart_*" }',
      '    approvers: S0SRE',
      '  - match: { tool: "db?" }',
      '    approvers: S0DBA',
    ),
  );
  const ruleFor = (app: string, tool: string) =>
    resolveGatePolicy(policy, { app, tool }).policy.rule;

  it('takes the first rule that matches, even when later rules match too', () => {
    expect(ruleFor('payments', 'restart_service')).toBe('app=payments');
    expect(ruleFor('ops', 'restart_service')).toBe('app=ops tool=restart_{service,pod}');
    expect(ruleFor('ops', 'restart_node')).toBe('tool=restart_*');
  });

  it('falls back to defaults when no rule matches, and says so', () => {
    expect(resolveGatePolicy(policy, { app: 'ops', tool: 'delete_volume' })).toEqual({
      policy: {
        rule: 'defaults',
        approvers: [{ kind: 'user', id: 'U0DEFAULT' }],
        ...PLAIN,
        policyVersion: policy.version,
      },
    });
  });

  it('matches a rule without an app pattern whatever the app', () => {
    expect(ruleFor('billing', 'restart_x')).toBe('tool=restart_*');
    expect(ruleFor('anything', 'db1')).toBe('tool=db?');
  });

  it('matches patterns against the whole name, case-sensitively', () => {
    expect(ruleFor('ops', 'force_restart_service')).toBe('defaults');
    expect(ruleFor('Payments', 'x')).toBe('defaults');
    expect(ruleFor('x', 'db12')).toBe('defaults');
  });

  it('hands out a copy: changing the result does not change the policy', () => {
    const first = resolveGatePolicy(policy, { app: 'payments', tool: 'refund' });
    first.policy.approvers.push({ kind: 'channel' });
    first.policy.quorum = 5;
    expect(resolveGatePolicy(policy, { app: 'payments', tool: 'refund' }).policy).toMatchObject({
      approvers: [{ kind: 'usergroup', id: 'S0PAYMENTS' }],
      quorum: 1,
    });
  });
});

describe('parsePolicy: errors name the file, line, column and key', () => {
  it('reports a wrong type with what it expected and what it found', () => {
    expect(
      errorsOf(
        yaml(
          'defaults:',
          '  approvers: U0ALICE',
          'rules:',
          '  - match: { tool: a }',
          '  - match: { tool: b }',
          '    quorum: two',
        ),
      ),
    ).toEqual(['policy.yml:6:13 rules[1].quorum: expected an integer ≥ 1, got "two"']);
  });

  it('refuses unknown keys at every level, pointing at the key and suggesting the right one', () => {
    expect(
      errorsOf(
        yaml(
          'default:',
          '  approvers: U0ALICE',
          'rules:',
          '  - match: { tools: x }',
          '    approver: U0ALICE',
          '    self_approval: true',
          '  - match: {}',
          '    color: red',
        ),
      ),
    ).toEqual([
      'policy.yml:1:1 default: unknown key (did you mean defaults?)',
      'policy.yml:4:14 rules[0].match.tools: unknown key (did you mean tool?)',
      'policy.yml:5:5 rules[0].approver: unknown key (did you mean approvers?)',
      'policy.yml:6:5 rules[0].self_approval: unknown key (did you mean selfApproval?)',
      'policy.yml:8:5 rules[1].color: unknown key (expected one of name, match, when, decision, reason, risk, redact, payloadSchema, grants, channel, approvers, quorum, selfApproval, expiresIn, onExpiry, remindAfter, escalateAfter, escalateTo, reasonRequired, confirm, batch, delegation, undoWindow)',
    ]);
  });

  it('reports every problem at once, in file order', () => {
    expect(
      errorsOf(
        yaml(
          'defaults:',
          '  approvers: [U0ALICE, "@bob", 42]',
          '  quorum: 0',
          '  selfApproval: "yes"',
          '  expiresIn: 10x',
          '  onExpiry: delete',
          '  channel: "#ops"',
          'rules:',
          '  - approvers: S0OPS',
          '  - match: { tool: "restart_{a,b" }',
          '    expiresIn: -5m',
          '    reasonRequired: 1',
          '    quorum:',
          '  - match: { app: 7 }',
          '    expiresIn: 0s',
          '    channel: C1',
        ),
      ),
    ).toEqual([
      'policy.yml:2:24 defaults.approvers[1]: expected a user id (U… or W…), a user group id (S…) or "channel", got "@bob" (names change and are not unique: use the id from the profile)',
      'policy.yml:2:32 defaults.approvers[2]: expected a user id (U… or W…), a user group id (S…) or "channel", got 42',
      'policy.yml:3:11 defaults.quorum: expected an integer ≥ 1, got 0',
      'policy.yml:4:17 defaults.selfApproval: expected true or false, got "yes"',
      'policy.yml:5:14 defaults.expiresIn: expected a duration such as 45s, 30m, 2h, 7d or 1h30m, or never, got "10x"',
      'policy.yml:6:13 defaults.onExpiry: expected reject, timeout or cancel, got "delete"',
      'policy.yml:7:12 defaults.channel: expected a channel id such as C0123456789, got "#ops" (names change: use the id, from the channel details)',
      'policy.yml:9:5 rules[0].match: expected a mapping with app and/or tool patterns (use {} to match every tool), got nothing',
      'policy.yml:10:20 rules[1].match.tool: pattern "restart_{a,b" has a "{" without "}"',
      'policy.yml:11:16 rules[1].expiresIn: expected a duration such as 45s, 30m, 2h, 7d or 1h30m, or never, got "-5m"',
      'policy.yml:12:21 rules[1].reasonRequired: expected true or false, got 1',
      'policy.yml:13:12 rules[1].quorum: expected an integer ≥ 1, got nothing (null)',
      'policy.yml:14:19 rules[2].match.app: expected a name pattern such as "restart_*", got 7',
      'policy.yml:15:16 rules[2].expiresIn: expected a duration longer than zero, or never, got "0s"',
      'policy.yml:16:14 rules[2].channel: expected a channel id such as C0123456789, got "C1"',
    ]);
  });

  it('names the line of a YAML syntax error', () => {
    const errors = errorsOf(yaml('defaults:', '  quorum: 1', ' approvers: U0ALICE', 'rules: []'));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/^policy\.yml:3:\d+ /);
  });

  it('refuses a key given twice rather than guessing which one counts', () => {
    expect(errorsOf(yaml('defaults:', '  quorum: 1', '  quorum: 2'))).toEqual([
      'policy.yml:3:3 Map keys must be unique',
    ]);
  });

  it('refuses YAML tags rather than turning a setting into a Buffer, a Date or a set', () => {
    expect(
      errorsOf(yaml('defaults: !!binary aGVsbG8=', 'rules:', '  - match: !custom {}')),
    ).toEqual([
      'policy.yml:1:11 Unresolved tag: tag:yaml.org,2002:binary',
      'policy.yml:3:12 Unresolved tag: !custom',
    ]);
  });

  it('refuses an empty file and a file that is not a mapping', () => {
    expect(errorsOf('')).toEqual([
      'policy.yml:1:1 the file is empty: expected defaults and/or rules',
    ]);
    expect(errorsOf('# only a comment\n')).toEqual([
      'policy.yml:1:1 the file is empty: expected defaults and/or rules',
    ]);
    expect(errorsOf(yaml('- match: {}'))).toEqual([
      'policy.yml:1:1 expected a mapping with defaults and/or rules, got a list',
    ]);
  });

  it('hints at the bare id when a Slack mention is pasted as an approver', () => {
    expect(errorsOf(yaml('defaults:', '  approvers: "<@U0ALICE>"'))).toEqual([
      'policy.yml:2:14 defaults.approvers: expected a user id (U… or W…), a user group id (S…) or "channel", got "<@U0ALICE>" (write the bare id U0ALICE)',
    ]);
  });
});

describe('parsePolicy: JSON files', () => {
  it('reads a JSON policy the same way', () => {
    const { policy } = policyOf(
      JSON.stringify({
        defaults: { approvers: ['S0OPS'], expiresIn: '30m' },
        rules: [{ match: { tool: 'scale_*' }, approvers: ['U0A', 'U0B', 'U0C'], quorum: 2 }],
      }),
      'policy.json',
    );
    expect(resolveGatePolicy(policy, { app: 'ops', tool: 'scale_up' }).policy).toMatchObject({
      rule: 'tool=scale_*',
      quorum: 2,
      expiresInMs: 1_800_000,
    });
  });

  it('names line and column in JSON too, tab-indented included', () => {
    const text = '{\n\t"defaults": {\n\t\t"quorum": "two",\n\t\t"aprovers": ["U0A"]\n\t}\n}\n';
    expect(errorsOf(text, 'policy.json')).toEqual([
      'policy.json:3:13 defaults.quorum: expected an integer ≥ 1, got "two"',
      'policy.json:4:3 defaults.aprovers: unknown key (did you mean approvers?)',
    ]);
  });

  it('names the line of a JSON syntax error', () => {
    const errors = errorsOf('{\n  "defaults": {\n    "quorum": 1,,\n  }\n}\n', 'policy.json');
    expect(errors.length).toBeGreaterThan(0);
    expect(errors[0]).toMatch(/^policy\.json:3:\d+ /);
  });
});

describe('parsePolicy: checks across fields', () => {
  it('refuses a quorum larger than a fixed list of users, which could never be met', () => {
    expect(
      errorsOf(yaml('defaults:', '  approvers: [U0ALICE, U0BOB, U0ALICE]', '  quorum: 3')),
    ).toEqual([
      'policy.yml:3:11 defaults.quorum: quorum 3 can never be met: only 2 users are listed as approvers',
    ]);
  });

  it('refuses a rule whose own quorum exceeds the users it inherits', () => {
    expect(
      errorsOf(
        yaml(
          'defaults:',
          '  approvers: [U0ALICE, U0BOB]',
          'rules:',
          '  - match: { tool: scale_* }',
          '    quorum: 3',
        ),
      ),
    ).toEqual([
      'policy.yml:5:13 rules[0].quorum: quorum 3 can never be met: only 2 users are listed as approvers',
    ]);
  });

  it('accepts a large quorum when a group or the channel may approve: they can grow', () => {
    const { policy } = policyOf(
      yaml(
        'defaults:',
        '  approvers: [U0ALICE, S0SRE]',
        '  quorum: 5',
        'rules:',
        '  - match: {}',
        '    approvers: channel',
        '    quorum: 9',
      ),
    );
    expect(policy.rules[0]?.resolved.policy.quorum).toBe(9);
  });

  it('warns that nobody may approve when defaults or a rule names no approvers', () => {
    const { warnings } = policyOf(
      yaml(
        'defaults:',
        '  expiresIn: 1h',
        'rules:',
        '  - match: { tool: a }',
        '    approvers: S0OPS',
        '  - match: { tool: drop_* }',
        '    approvers: []',
        '  - match: { tool: c }',
        '    quorum: 2',
      ),
    );
    expect(warnings).toEqual([
      'policy.yml:2:3 defaults: no approvers: nobody may approve tool calls that no rule matches',
      'policy.yml:7:16 rules[1].approvers: no approvers: nobody may approve the tool calls this rule matches',
      'policy.yml:8:5 rules[2]: no approvers: nobody may approve the tool calls this rule matches',
    ]);
  });

  it('warns when self-approval is turned on', () => {
    const { warnings } = policyOf(yaml('defaults:', '  approvers: S0OPS', '  selfApproval: true'));
    expect(warnings).toEqual([
      'policy.yml:3:17 defaults.selfApproval: selfApproval is on: whoever starts a run may approve its own tool calls',
    ]);
  });

  it('warns when a run started by a listed approver could never reach its quorum', () => {
    const { warnings } = policyOf(
      yaml(
        'defaults:',
        '  approvers: U0ALICE',
        'rules:',
        '  - match: { tool: scale_* }',
        '    approvers: [U0ALICE, U0BOB]',
        '    quorum: 2',
        '  - match: { tool: b }',
        '    approvers: [U0ALICE, U0BOB]',
        '    quorum: 2',
        '    selfApproval: true',
      ),
    );
    expect(warnings).toEqual([
      'policy.yml:2:14 defaults.approvers: a run started by the only approver can never be approved (selfApproval is off)',
      'policy.yml:6:13 rules[0].quorum: quorum 2 needs every listed approver, so a run started by one of them can never be approved (selfApproval is off)',
      'policy.yml:10:19 rules[1].selfApproval: selfApproval is on: whoever starts a run may approve its own tool calls',
    ]);
  });

  it('warns about rules that can never apply after a rule matching everything', () => {
    const { warnings } = policyOf(
      yaml(
        'defaults:',
        '  approvers: S0OPS',
        'rules:',
        '  - match: { app: "*" }',
        '    approvers: S0SRE',
        '  - match: { tool: restart }',
        '    approvers: S0ONCALL',
      ),
    );
    expect(warnings).toEqual([
      'policy.yml:6:5 rules[1]: never applies: rules[0] (rule "app=*") before it matches every tool call',
    ]);
  });

  it('warns about an approver listed twice and counts it once', () => {
    const result = policyOf(yaml('defaults:', '  approvers: [S0OPS, U0ALICE, S0OPS]'));
    expect(result.warnings).toEqual([
      'policy.yml:2:14 defaults.approvers: listed more than once (counted once): S0OPS',
    ]);
    expect(result.policy.defaults.policy.approvers).toEqual([
      { kind: 'usergroup', id: 'S0OPS' },
      { kind: 'user', id: 'U0ALICE' },
    ]);
  });
});

describe('emptyPolicy', () => {
  it('lets nobody approve anything, and warns', () => {
    const policy = emptyPolicy();
    expect(resolveGatePolicy(policy, { app: 'ops', tool: 'restart' })).toEqual({
      policy: { rule: 'defaults', approvers: [], ...PLAIN, policyVersion: policy.version },
    });
    expect(policy.warnings).toEqual([expect.stringContaining('nobody may approve any tool call')]);
  });
});

describe('loadPolicyFile', () => {
  let dir = '';
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'policy-test-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('reads a policy file and keeps its warnings', async () => {
    const path = join(dir, 'ok.yml');
    await writeFile(path, yaml('rules:', '  - match: {}', '    approvers: S0OPS'));
    const policy = await loadPolicyFile(path);
    expect(policy.source).toBe(path);
    expect(resolveGatePolicy(policy, { app: 'a', tool: 'b' }).policy.rule).toBe('any call');
    expect(policy.warnings).toEqual([
      expect.stringContaining(`${path}:1:1 defaults: no approvers`),
    ]);
  });

  it('throws a PolicyError that lists every problem with the file named', async () => {
    const path = join(dir, 'bad.yml');
    await writeFile(path, yaml('defaults:', '  quorum: two', '  approver: U0ALICE'));
    const error = await loadPolicyFile(path).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PolicyError);
    expect(error).toMatchObject({
      problems: [
        `${path}:2:11 defaults.quorum: expected an integer ≥ 1, got "two"`,
        `${path}:3:3 defaults.approver: unknown key (did you mean approvers?)`,
      ],
    });
    expect(String(error)).toContain(`Invalid policy file ${path} (2 problems):`);
    expect(String(error)).toContain('defaults.approver: unknown key');
  });

  it('throws a PolicyError when the file cannot be read, rather than allowing or blocking quietly', async () => {
    const path = join(dir, 'missing.yml');
    await expect(loadPolicyFile(path)).rejects.toThrow(
      new PolicyError(path, [`${path}: cannot read the policy file (ENOENT)`]),
    );
  });
});

describe('examples/policy.yml', () => {
  it('loads and says what its comments say', async () => {
    const policy = await loadPolicyFile(
      new URL('../../../examples/policy.yml', import.meta.url).pathname,
    );
    // At noon UTC: the example denies production restarts at night (rule night-restarts).
    const noon = new Date('2026-11-25T12:00:00Z');
    const resolve = (app: string, tool: string) =>
      resolveGatePolicy(policy, { app, tool, now: noon });

    expect(resolve('payments', 'refund_charge')).toMatchObject({
      channel: 'C05PAYMENTS',
      policy: {
        approvers: [{ kind: 'usergroup', id: 'S05PAYMENTS' }],
        reasonRequired: true,
        confirm: true,
      },
    });
    expect(policy.approvalsChannel).toBe('C05APPROVALS');
    expect(policy.admins).toEqual(['U05OPSLEAD']);
    expect(resolve('ops', 'schedule_maintenance').policy.payloadSchema).toMatchObject({
      properties: { durationMinutes: { minimum: 5, maximum: 480 } },
    });
    expect(resolve('ops', 'restart_service').policy).toMatchObject({
      approvers: [{ kind: 'usergroup', id: 'S05ONCALL' }],
      quorum: 1,
      selfApproval: false,
      expiresInMs: 15 * 60_000,
    });
    expect(resolve('ops', 'scale_deployment').policy).toMatchObject({
      quorum: 2,
      onExpiry: 'cancel',
      expiresInMs: 3_600_000,
    });
    expect(resolve('ops', 'delete_volume').policy).toMatchObject({
      rule: 'defaults',
      approvers: [],
    });
    const question = { app: 'ops', tool: 'adk_request_input', kind: 'input' } as const;
    expect(resolveGatePolicy(policy, question).policy).toMatchObject({
      rule: 'kind=input',
      approvers: [{ kind: 'channel' }],
    });
    expect(policy.warnings).toEqual([expect.stringContaining('defaults.approvers: no approvers')]);
  });
});

describe('parsePolicy: reminders, escalation and what expiry tells the agent', () => {
  it('reads remindAfter, escalateAfter, escalateTo and onExpiry: timeout into the gate policy', () => {
    const { policy } = policyOf(
      yaml(
        'defaults:',
        '  approvers: [U0ALICE, U0BOB]',
        '  expiresIn: 1h',
        '  remindAfter: 10m',
        'rules:',
        '  - match: { tool: deploy }',
        '    escalateAfter: 30m',
        '    escalateTo: [S0LEADS, channel]',
        '    onExpiry: timeout',
      ),
    );
    expect(resolveGatePolicy(policy, { app: 'a', tool: 'deploy' }).policy).toMatchObject({
      remindAfterMs: 600_000,
      escalateAfterMs: 1_800_000,
      escalateTo: [{ kind: 'usergroup', id: 'S0LEADS' }, { kind: 'channel' }],
      onExpiry: 'timeout',
    });
    const other = resolveGatePolicy(policy, { app: 'a', tool: 'read' }).policy;
    expect(other.remindAfterMs).toBe(600_000);
    expect(other.escalateAfterMs).toBeUndefined();
    expect(other.escalateTo).toBeUndefined();
    expect(other.onExpiry).toBe('reject');
  });

  it('refuses a reminder or an escalation that would come after the gate expired', () => {
    expect(
      errorsOf(
        yaml(
          'defaults:',
          '  approvers: [U0ALICE, U0BOB]',
          '  expiresIn: 10m',
          '  remindAfter: 10m',
          '  escalateAfter: 1h',
          '  escalateTo: S0LEADS',
        ),
      ),
    ).toEqual([
      'policy.yml:4:16 defaults.remindAfter: remindAfter 10m is not shorter than expiresIn 10m: the gate expires first',
      'policy.yml:5:18 defaults.escalateAfter: escalateAfter 1h is not shorter than expiresIn 10m: the gate expires first',
    ]);
  });

  it('refuses escalateAfter without escalateTo, and escalateTo without escalateAfter', () => {
    expect(
      errorsOf(
        yaml(
          'defaults:',
          '  approvers: [U0ALICE, U0BOB]',
          'rules:',
          '  - match: { tool: a }',
          '    escalateAfter: 5m',
          '  - match: { tool: b }',
          '    escalateTo: [S0LEADS]',
        ),
      ),
    ).toEqual([
      'policy.yml:5:5 rules[0].escalateAfter: escalateAfter needs escalateTo: the approvers who may decide after escalation',
      'policy.yml:7:5 rules[1].escalateTo: escalateTo needs escalateAfter: how long to wait before escalating',
    ]);
  });

  it('names what was wrong with a bad delay, an approver to escalate to, or an onExpiry', () => {
    expect(
      errorsOf(
        yaml(
          'defaults:',
          '  remindAfter: never',
          '  escalateAfter: 5 minutes',
          '  escalateTo: ["@leads"]',
          '  onExpiry: ignore',
        ),
      ),
    ).toEqual([
      'policy.yml:2:16 defaults.remindAfter: expected a duration such as 45s, 30m, 2h, 7d or 1h30m, got "never"',
      'policy.yml:3:18 defaults.escalateAfter: expected a duration such as 45s, 30m, 2h, 7d or 1h30m, got "5 minutes"',
      'policy.yml:4:16 defaults.escalateTo[0]: expected a user id (U… or W…), a user group id (S…) or "channel", got "@leads" (names change and are not unique: use the id from the profile)',
      'policy.yml:5:13 defaults.onExpiry: expected reject, timeout or cancel, got "ignore"',
    ]);
  });

  it('reads an undo window, at most 10m', () => {
    const { policy: ok } = policyOf(
      yaml('defaults:', '  approvers: [U0BOB000001]', '  undoWindow: 30s'),
    );
    expect(resolveGatePolicy(ok, { app: 'a', tool: 't' }).policy.undoWindowMs).toBe(30_000);
    expect(errorsOf(yaml('defaults:', '  undoWindow: 1h'))).toEqual([
      'policy.yml:2:15 defaults.undoWindow: expected at most 10m: the agent waits for it',
    ]);
  });

  it('reads the grants a rule offers: session, one duration of at most 8h, exactArgs', () => {
    const { policy } = policyOf(
      yaml(
        'defaults:',
        '  approvers: [U0BOB000001]',
        'rules:',
        '  - match: { tool: transfer_money }',
        '    grants: [session, 1h30m, exactArgs]',
      ),
    );
    expect(resolveGatePolicy(policy, { app: 'a', tool: 'transfer_money' }).policy.grants).toEqual([
      'session',
      5_400_000,
      'exactArgs',
    ]);
    expect(resolveGatePolicy(policy, { app: 'a', tool: 'other' }).policy.grants).toBeUndefined();
    expect(
      errorsOf(
        yaml('rules:', '  - match: {}', '    grants: [forever, 9h, 1h, 2h, session, session]'),
      ),
    ).toEqual([
      'policy.yml:3:14 rules[0].grants[0]: expected session, a duration of at most 8h (such as 1h) or exactArgs, got "forever"',
      'policy.yml:3:23 rules[0].grants[1]: expected at most 8h (no grant outlives a working day), got "9h"',
      'policy.yml:3:31 rules[0].grants[3]: expected each scope once (one duration at most)',
      'policy.yml:3:44 rules[0].grants[5]: expected each scope once (one duration at most)',
    ]);
  });

  it('offers no grant where one click must not stand for later calls', () => {
    const rule = (...lines: string[]) =>
      errorsOf(
        yaml(
          'defaults:',
          '  approvers: [U0BOB000001, U0CAROL0001]',
          'rules:',
          '  - match: { tool: t }',
          ...lines,
          '    grants: [session]',
        ),
      );
    expect(rule('    quorum: 2')).toEqual([
      "policy.yml:6:13 rules[0].grants: grants are not offered on this rule (quorum 2: a grant is one person's approval)",
    ]);
    expect(rule('    risk: critical')).toEqual([
      'policy.yml:6:13 rules[0].grants: grants are not offered on this rule (risk: critical: each such call needs a person)',
    ]);
    expect(rule('    decision: allow')).toEqual([
      'policy.yml:6:13 rules[0].grants: grants are not offered on this rule (the policy decides these calls (decision allow or deny): nobody approves them)',
    ]);
  });
});

describe('parsePolicy: rule names (#34)', () => {
  const ruleNames = (text: string) =>
    policyOf(text).policy.rules.map((r) => r.resolved.policy.rule);

  it('names an unnamed rule by what it matches, and keeps `name:` when given', () => {
    expect(
      ruleNames(
        yaml(
          'rules:',
          '  - match: { app: ops, tool: "restart_*" }',
          '    approvers: S0ONCALL',
          '  - name: payments-all',
          '    match: { app: payments }',
          '    approvers: S0PAYMENTS',
          '  - match: { kind: input }',
          '    approvers: S0ONCALL',
          '  - match: {}',
          '    approvers: S0ONCALL',
        ),
      ),
    ).toEqual(['app=ops tool=restart_*', 'payments-all', 'kind=input', 'any call']);
  });

  it('keeps a rule’s name when rules are added above it, so grants and the audit still find it', () => {
    const before = ruleNames(
      yaml('rules:', '  - match: { app: ops, tool: "scale_*" }', '    approvers: S0SRE'),
    );
    const after = ruleNames(
      yaml(
        'rules:',
        '  - match: { app: payments }',
        '    approvers: S0PAYMENTS',
        '  - match: { app: ops, tool: "scale_*" }',
        '    approvers: S0SRE',
      ),
    );
    expect(after[1]).toBe(before[0]);
  });

  it('tells apart unnamed rules with the same match, and warns to name them', () => {
    const text = yaml(
      'rules:',
      '  - match: { app: payments, tool: transfer_money }',
      '    when: args.amount <= 100',
      '    decision: allow',
      '  - match: { app: payments, tool: transfer_money }',
      '    approvers: S0PAYMENTS',
    );
    expect(ruleNames(text)).toEqual([
      'app=payments tool=transfer_money',
      'app=payments tool=transfer_money #2',
    ]);
    expect(policyOf(text).warnings.join('\n')).toContain(
      'policy.yml:5:5 rules[1].match: another unnamed rule matches the same calls',
    );
  });
});
