import { readFile } from 'node:fs/promises';
import { parseDocument } from 'yaml';
import { z } from 'zod';
import { GATE_KINDS } from '../adk/gate.js';
import { POLICY_SOURCES } from '../approvals/policy/policy-schema.js';
import {
  evaluatePolicy,
  loadPolicyFile,
  type Policy,
  type PolicyCall,
  PolicyError,
  type PolicyVerdict,
} from '../approvals/policy.js';
import type { Approver } from '../approvals/records.js';
import { explainLines } from './policy-explain.js';

/**
 * Policy as code: `check` a file, `explain` what it decides for one call, `test` it against a
 * file of cases (like `opa test`). Returns the exit code; writes to the given streams.
 */

export interface CliOutput {
  out(line: string): void;
  err(line: string): void;
}

const USAGE = [
  'usage: policy check <policy.yml>',
  '       policy explain <policy.yml> \'{"app":"payments","tool":"refund","args":{"amount":50}}\'',
  '       policy test <policy.yml> <cases.yml>',
].join('\n');

/** A call as written on the command line or in a case: only `app` and `tool` are required. */
const callSchema = z.strictObject({
  app: z.string().min(1),
  tool: z.string().min(1),
  kind: z.enum(GATE_KINDS).optional(),
  args: z.record(z.string(), z.unknown()).optional(),
  payload: z.unknown().optional(),
  requester: z.strictObject({ id: z.string(), groups: z.array(z.string()).optional() }).optional(),
  channel: z.string().optional(),
  source: z.enum(POLICY_SOURCES).optional(),
  /** The run's labels (an alert's), for rules matching `labels`. */
  labels: z.record(z.string(), z.string()).optional(),
  /** ISO 8601; absent: the time the command runs. */
  now: z.iso.datetime({ offset: true }).optional(),
});

const caseSchema = z.strictObject({
  name: z.string().min(1),
  call: callSchema,
  expect: z.strictObject({
    decision: z.enum(['ask', 'allow', 'deny']).optional(),
    rule: z.string().optional(),
    /** User, group or `channel` entries, in any order. */
    approvers: z.array(z.string()).optional(),
    quorum: z.number().int().min(1).optional(),
  }),
});
const casesSchema = z.strictObject({ cases: z.array(caseSchema).min(1) });

/** What each command takes after its name, in order. */
const ARGUMENTS: Record<string, readonly string[]> = {
  check: ['the policy file'],
  explain: ['the policy file', 'the call, as JSON'],
  test: ['the policy file', 'the cases file'],
};

export async function runPolicyCli(argv: readonly string[], io: CliOutput): Promise<number> {
  const [command, ...rest] = argv;
  const expected = command === undefined ? undefined : ARGUMENTS[command];
  if (command === undefined || expected === undefined) {
    if (command !== undefined) io.err(`unknown command ${JSON.stringify(command)}`);
    return usage(io);
  }
  // Checked before any file is read: `test cases.yml` must not read the cases as a policy.
  if (rest.length !== expected.length) {
    io.err(
      `policy ${command} takes ${expected.join(' and ')}, in that order; got ${rest.length === 0 ? 'nothing' : rest.map((arg) => JSON.stringify(arg)).join(' ')}`,
    );
    return usage(io);
  }
  const [file, extra] = rest;
  if (file === undefined) return usage(io);
  const policy = await load(file, io);
  if (policy === undefined) return 1;
  if (command === 'check') {
    for (const warning of policy.warnings) io.out(`warning: ${warning}`);
    io.out(`ok: ${file} (${policy.rules.length} rules, version ${policy.version.slice(0, 12)})`);
    return 0;
  }
  if (extra === undefined) return usage(io);
  return command === 'explain' ? explain(policy, extra, io) : test(policy, extra, io);
}

function usage(io: CliOutput): number {
  io.err(USAGE);
  return 2;
}

async function load(file: string, io: CliOutput): Promise<Policy | undefined> {
  try {
    return await loadPolicyFile(file);
  } catch (error) {
    if (!(error instanceof PolicyError)) throw error;
    for (const problem of error.problems) io.err(problem);
    return undefined;
  }
}

function explain(policy: Policy, json: string, io: CliOutput): number {
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch (error) {
    io.err(`the call is not JSON: ${error instanceof Error ? error.message : String(error)}`);
    return 2;
  }
  const call = callSchema.safeParse(raw);
  if (!call.success) {
    io.err(`the call: ${describeIssues(call.error)}`);
    return 2;
  }
  const verdict = evaluatePolicy(policy, toPolicyCall(call.data));
  for (const line of explainLines(verdict)) io.out(line);
  return 0;
}

async function test(policy: Policy, casesFile: string, io: CliOutput): Promise<number> {
  let text: string;
  try {
    text = await readFile(casesFile, 'utf8');
  } catch {
    io.err(`${casesFile}: cannot read the cases file`);
    return 2;
  }
  const doc = parseDocument(text, { prettyErrors: false });
  if (doc.errors.length > 0) {
    io.err(`${casesFile}: ${doc.errors[0]?.message ?? 'not YAML'}`);
    return 2;
  }
  const parsed = casesSchema.safeParse(doc.toJS());
  if (!parsed.success) {
    io.err(`${casesFile}: ${describeIssues(parsed.error)}`);
    return 2;
  }
  let failed = 0;
  for (const testCase of parsed.data.cases) {
    const verdict = evaluatePolicy(policy, toPolicyCall(testCase.call));
    const problems = mismatches(testCase.expect, verdict);
    if (problems.length === 0) io.out(`PASS  ${testCase.name}`);
    else {
      failed += 1;
      io.out(`FAIL  ${testCase.name}: ${problems.join('; ')}`);
    }
  }
  const passed = parsed.data.cases.length - failed;
  io.out(`${passed} passed, ${failed} failed`);
  return failed === 0 ? 0 : 1;
}

function mismatches(
  expected: z.infer<typeof caseSchema>['expect'],
  verdict: PolicyVerdict,
): string[] {
  const problems: string[] = [];
  const { policy } = verdict.resolved;
  if (expected.decision !== undefined && expected.decision !== verdict.decision) {
    problems.push(`expected decision ${expected.decision}, got ${verdict.decision}`);
  }
  if (expected.rule !== undefined && expected.rule !== verdict.rule.name) {
    problems.push(`expected rule ${expected.rule}, got ${verdict.rule.name}`);
  }
  if (expected.approvers !== undefined) {
    const got = policy.approvers.map(approverText).sort();
    const want = [...expected.approvers].sort();
    if (got.join(',') !== want.join(',')) {
      problems.push(`expected approvers [${want.join(', ')}], got [${got.join(', ')}]`);
    }
  }
  if (expected.quorum !== undefined && expected.quorum !== policy.quorum) {
    problems.push(`expected quorum ${expected.quorum}, got ${policy.quorum}`);
  }
  if (verdict.condition?.error !== undefined) {
    problems.push(`(the condition could not be evaluated: ${verdict.condition.error})`);
  }
  return problems;
}

function toPolicyCall(call: z.infer<typeof callSchema>): PolicyCall {
  return {
    app: call.app,
    tool: call.tool,
    ...(call.kind === undefined ? {} : { kind: call.kind }),
    args: call.args ?? {},
    ...(call.payload === undefined ? {} : { payload: call.payload }),
    ...(call.requester === undefined
      ? {}
      : {
          requester: {
            id: call.requester.id,
            ...(call.requester.groups === undefined ? {} : { groups: call.requester.groups }),
          },
        }),
    ...(call.channel === undefined ? {} : { channel: call.channel }),
    source: call.source ?? 'slack',
    ...(call.labels === undefined ? {} : { labels: call.labels }),
    now: call.now === undefined ? new Date() : new Date(call.now),
  };
}

function approverText(approver: Approver): string {
  return approver.kind === 'channel' ? 'channel' : approver.id;
}

function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => `${issue.path.map(String).join('.') || '(top)'}: ${issue.message}`)
    .join('; ');
}
